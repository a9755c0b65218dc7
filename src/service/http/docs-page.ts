import type { Request, Response } from 'express';
import { ERROR_TYPES } from '../errors/api-errors.js';
import { errorCodes } from '../errors/error-codes.js';

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** `GET /docs/errors`: the page every `doc_url` points into, one anchor per code. */
export function errorDocsPage(_req: Request, res: Response): void {
  const types = Object.entries(ERROR_TYPES)
    .map(([type, status]) => `<tr id="${type}"><td>${status}</td><td><code>${type}</code></td></tr>`)
    .join('\n');
  const codes = [...errorCodes()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([code, text]) => `<tr id="${escapeHtml(code)}"><td><code>${escapeHtml(code)}</code></td><td>${escapeHtml(text)}</td></tr>`)
    .join('\n');
  res
    .type('html')
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>API errors</title></head><body>` +
        `<h1>API errors</h1><p>Errors are <code>{"error": {"type", "code", "message", "param", "doc_url"}}</code>.</p>` +
        `<h2>Types</h2><table><tr><th>Status</th><th>type</th></tr>${types}</table>` +
        `<h2>Codes</h2><table><tr><th>code</th><th>Meaning</th></tr>${codes}</table></body></html>`,
    );
}
