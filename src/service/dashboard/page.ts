import type { Request, Response } from 'express';
import type { ChainInfo } from '../../contracts/deployment.js';
import { CONFIG_PLACEHOLDER, DASHBOARD_FILES, readAsset, type DashboardFile } from './assets.js';

/** What the page is told at load: the key it calls the API with, when the sandbox hands one out. */
export interface PageConfig {
  apiKey?: string;
  workspaceId?: string;
}

const HOST_PATTERN = /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;

function hostname(host: string): string {
  return host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : (host.split(':')[0] ?? '');
}

/**
 * True when both ends are this machine: the TCP peer is a loopback address and the browser addressed a loopback
 * name. The second half matters: a web page on a rebound DNS name also reaches 127.0.0.1, but its Host header
 * carries the foreign name, so it never gets the key.
 */
export function isLoopbackVisitor(req: Request): boolean {
  const remote = req.socket.remoteAddress ?? '';
  const peerIsLocal = remote === '::1' || /^(::ffff:)?127\.\d+\.\d+\.\d+$/.test(remote);
  const host = req.headers.host ?? '';
  if (!HOST_PATTERN.test(host)) return false;
  const name = hostname(host).toLowerCase();
  const hostIsLocal = name === 'localhost' || name === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(name);
  return peerIsLocal && hostIsLocal;
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function renderIndex(template: string, config: PageConfig): string {
  const tags: string[] = [];
  if (config.apiKey !== undefined) tags.push(`<meta name="sandbox-api-key" content="${escapeAttribute(config.apiKey)}">`);
  if (config.workspaceId !== undefined) tags.push(`<meta name="sandbox-workspace" content="${escapeAttribute(config.workspaceId)}">`);
  return template.replace(CONFIG_PLACEHOLDER, tags.join(''));
}

function origin(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.origin : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Scripts and styles from this origin only; network access to this origin (REST and WebSocket) and to the
 * chains' JSON-RPC endpoints (block numbers of transactions); no frames, forms or foreign resources.
 */
export function contentSecurityPolicy(req: Request, chains: readonly ChainInfo[]): string {
  const host = req.headers.host ?? '';
  const connect = ["'self'"];
  if (HOST_PATTERN.test(host)) connect.push(`ws://${host}`, `wss://${host}`);
  for (const chain of chains) {
    const rpc = origin(chain.rpcUrl);
    if (rpc !== undefined && !connect.includes(rpc)) connect.push(rpc);
  }
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src ${connect.join(' ')}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

function setCommonHeaders(res: Response): void {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  res.setHeader('X-Frame-Options', 'DENY');
}

const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>Dashboard not built</title>
<p>The dashboard page has not been built. Run <code>node scripts/build-dashboard.mjs</code> (npm install does it) and reload.</p>`;

export interface PageDeps {
  assetsDir: string;
  chains: readonly ChainInfo[];
  /** The key for loopback visitors, or undefined when there is none to give. */
  sandboxKey(): { apiKey: string; workspaceId: string } | undefined;
}

export function serveIndex(deps: PageDeps) {
  return (req: Request, res: Response): void => {
    setCommonHeaders(res);
    // The page may carry a key: never cache it, anywhere.
    res.setHeader('Cache-Control', 'no-store');
    const template = readAsset(deps.assetsDir, 'index.html');
    if (template === undefined) {
      res.status(503).type('html').send(NOT_BUILT);
      return;
    }
    res.setHeader('Content-Security-Policy', contentSecurityPolicy(req, deps.chains));
    const key = isLoopbackVisitor(req) ? deps.sandboxKey() : undefined;
    const html = renderIndex(template.toString('utf8'), key ?? {});
    res.status(200).type(DASHBOARD_FILES['index.html']).send(html);
  };
}

export function serveAsset(deps: Pick<PageDeps, 'assetsDir'>) {
  return (req: Request, res: Response, next: () => void): void => {
    const file = req.params.file as string;
    if (file === 'index.html' || !Object.hasOwn(DASHBOARD_FILES, file)) {
      next();
      return;
    }
    const body = readAsset(deps.assetsDir, file as DashboardFile);
    if (body === undefined) {
      next();
      return;
    }
    setCommonHeaders(res);
    res.setHeader('Cache-Control', 'no-cache');
    res
      .status(200)
      .type(DASHBOARD_FILES[file as DashboardFile])
      .send(body);
  };
}
