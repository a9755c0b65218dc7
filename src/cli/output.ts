import type { Command } from 'commander';

/**
 * Printing for both audiences of every command: people (progress on stderr, readable text on stdout) and
 * scripts (`--json`: exactly one JSON document on stdout, nothing else there, errors included).
 */

/** Options every command gets from the program (main.ts): `--json` and `--state-dir`. */
export interface GlobalOptions {
  json: boolean;
  stateDir: string;
}

import { DEFAULT_STATE_DIR } from '../devnet/state-dir.js';

export { DEFAULT_STATE_DIR };

export function globalOptions(command: Command): GlobalOptions {
  const options = command.optsWithGlobals<{ json?: boolean; stateDir?: string }>();
  return { json: options.json === true, stateDir: options.stateDir ?? DEFAULT_STATE_DIR };
}

export interface Output {
  readonly json: boolean;
  /** A step in progress, for people only (stderr, so that stdout stays parseable). */
  progress(message: string): void;
  /** The result: `human` text for people, `value` as JSON for scripts. */
  result(human: string | (() => string), value: unknown): void;
  /** A warning that does not stop the command. */
  warn(message: string): void;
}

export function createOutput(json: boolean): Output {
  return {
    json,
    progress(message) {
      if (!json) process.stderr.write(`${dim('›')} ${message}\n`);
    },
    result(human, value) {
      if (json) printJson(value);
      else process.stdout.write(`${typeof human === 'function' ? human() : human}\n`);
    },
    warn(message) {
      if (json) process.stderr.write(`${JSON.stringify({ warning: message })}\n`);
      else process.stderr.write(`${yellow('warning:')} ${message}\n`);
    },
  };
}

export function printJson(value: unknown): void {
  process.stdout.write(`${toJson(value)}\n`);
}

/** JSON with bigints as decimal strings (amounts on chain exceed 2^53). */
export function toJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v), 2);
}

/** The shape of an error for scripts: `{ "error": { "code", "message", "docsPath" } }`. */
export interface JsonError {
  error: { code: string; message: string; docsPath?: string };
}

export function toJsonError(error: unknown): JsonError {
  if (error instanceof Error) {
    const { code, docsPath } = error as Error & { code?: unknown; docsPath?: unknown };
    return {
      error: {
        code: typeof code === 'string' ? code : 'internal_error',
        message: error.message,
        ...(typeof docsPath === 'string' ? { docsPath } : {}),
      },
    };
  }
  return { error: { code: 'internal_error', message: String(error) } };
}

/**
 * Reports a failed command and sets a failing exit code. Errors we expect (those with a `code`) print their
 * message and docs path; anything else is a bug and prints its stack.
 */
export function reportError(error: unknown, json: boolean): void {
  process.exitCode = 1;
  if (json) {
    printJson(toJsonError(error));
    return;
  }
  const expected = error instanceof Error && typeof (error as { code?: unknown }).code === 'string';
  if (expected) {
    const { docsPath } = error as Error & { docsPath?: string };
    process.stderr.write(`${red('error:')} ${error.message}\n${docsPath ? dim(`  see ${docsPath}\n`) : ''}`);
  } else {
    process.stderr.write(`${red('error:')} ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  }
}

/** Runs a command action with uniform error reporting. */
export function action<A extends unknown[]>(
  run: (output: Output, options: GlobalOptions, ...args: A) => Promise<void>,
): (...args: [...A, Command]) => Promise<void> {
  return async (...args) => {
    const command = args[args.length - 1] as Command;
    const options = globalOptions(command);
    try {
      await run(createOutput(options.json), options, ...(args.slice(0, -1) as A));
    } catch (error) {
      reportError(error, options.json);
    }
  };
}

/** A plain text table: columns padded to their widest cell. */
export function table(rows: ReadonlyArray<readonly string[]>, indent = '  '): string {
  const widths: number[] = [];
  for (const row of rows)
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, visibleLength(cell));
    });
  return rows.map((row) => indent + row.map((cell, i) => (i === row.length - 1 ? cell : pad(cell, widths[i] ?? 0))).join('  ')).join('\n');
}

const colorEnabled = (): boolean => process.stdout.isTTY === true && !process.env.NO_COLOR;
const paint = (code: string) => (text: string) => (colorEnabled() ? `\u001b[${code}m${text}\u001b[0m` : text);
export const bold = paint('1');
export const dim = paint('2');
export const red = paint('31');
export const green = paint('32');
export const yellow = paint('33');
export const cyan = paint('36');

// eslint-disable-next-line no-control-regex
const visibleLength = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '').length;
const pad = (text: string, width: number) => text + ' '.repeat(Math.max(0, width - visibleLength(text)));
