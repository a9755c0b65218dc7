/**
 * A fault-proxy mode that turns our sandbox into a deployment that implements only the spec: every project
 * extension the suite may lean on is taken away, on the wire and in the OpenAPI document. The suite must still pass
 * such a target, with the checks that need an extension SKIPPED for that reason.
 *
 * Taken away: `user`, `lockType` and `settlementPath` on quote requests and `?user=` on the quote detail;
 * `typedData` and `nonce` on quotes; `cursor` on WebSocket subscribe and its `replay.done`; the webhook replay route;
 * the solver stream's order messages; every sandbox route (clock, keys, faucet).
 */
import { type Fault, type ProxiedRequest, type ProxiedResponse, rewriteJson } from './fault-proxy.js';

const QUOTE_REQUEST_EXTENSIONS = ['user', 'lockType', 'settlementPath'] as const;
const QUOTE_EXTENSIONS = ['typedData', 'nonce'] as const;

function pathOf(req: ProxiedRequest): string {
  return req.path.split('?')[0]!;
}

/** Routes the stripped deployment does not serve. */
function isStrippedRoute(path: string): boolean {
  return /^\/api\/v1\/sandbox(\/|$)/.test(path) || /^\/api\/v1\/webhooks\/[^/]+\/replay$/.test(path);
}

function notFound(res: ProxiedResponse, req: ProxiedRequest): void {
  res.status = 404;
  res.headers = { ...res.headers, 'content-type': 'application/json; charset=utf-8' };
  res.body = Buffer.from(
    JSON.stringify({ error: { type: 'not_found', code: 'route_not_found', message: `No endpoint ${req.method} ${pathOf(req)}.` } }),
  );
}

/** Removes the extension properties from the schema an OpenAPI request body points at ($ref and compositions followed). */
function stripRequestSchema(document: Record<string, any>, path: string, method: string, fields: readonly string[]): void {
  const seen = new Set<unknown>();
  const visit = (node: any): void => {
    if (typeof node !== 'object' || node === null || seen.has(node)) return;
    seen.add(node);
    if (typeof node.$ref === 'string' && node.$ref.startsWith('#/')) {
      let target: any = document;
      for (const part of node.$ref.slice(2).split('/')) target = target?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
      visit(target);
    }
    if (node.properties) for (const field of fields) delete node.properties[field];
    if (Array.isArray(node.required)) node.required = node.required.filter((r: string) => !fields.includes(r));
    for (const key of ['allOf', 'oneOf', 'anyOf']) if (Array.isArray(node[key])) for (const part of node[key]) visit(part);
  };
  visit(document.paths?.[path]?.[method]?.requestBody?.content?.['application/json']?.schema);
}

function stripDocument(document: Record<string, any>): void {
  for (const path of Object.keys(document.paths ?? {})) if (isStrippedRoute(path.replace(/\{[^}]+\}/g, 'x'))) delete document.paths[path];
  stripRequestSchema(document, '/api/v1/quotes', 'post', QUOTE_REQUEST_EXTENSIONS);
  const detail = document.paths?.['/api/v1/quotes/{quoteId}']?.get;
  if (Array.isArray(detail?.parameters)) detail.parameters = detail.parameters.filter((p: any) => p?.name !== 'user');
}

export function stripExtensions(): Fault {
  return {
    name: 'spec-only deployment (every project extension stripped)',
    request: (req) => {
      const path = pathOf(req);
      if (req.method === 'POST' && path === '/api/v1/quotes' && req.body.length > 0) {
        try {
          const body = JSON.parse(req.body.toString('utf8'));
          for (const field of QUOTE_REQUEST_EXTENSIONS) delete body[field];
          req.body = Buffer.from(JSON.stringify(body));
        } catch {
          // not JSON: the deployment answers it as it would
        }
      }
      if (req.method === 'GET' && /^\/api\/v1\/quotes\/[^/]+$/.test(path)) {
        const url = new URL(req.path, 'http://x');
        url.searchParams.delete('user');
        req.path = `${url.pathname}${url.search}`;
      }
    },
    response: (req, res) => {
      const path = pathOf(req);
      if (isStrippedRoute(path)) return notFound(res, req);
      if (path === '/api/v1/openapi.json') return rewriteJson(res, stripDocument);
      if (/^\/api\/v1\/quotes(\/[^/]+)?$/.test(path)) {
        rewriteJson(res, (body) => {
          for (const quote of [body, ...(Array.isArray(body?.quotes) ? body.quotes : [])])
            if (quote && typeof quote === 'object') for (const field of QUOTE_EXTENSIONS) delete quote[field];
        });
      }
    },
    wsFromClient: (message) => (message.type === 'subscribe' ? { ...message, cursor: undefined } : message),
    wsFromServer: (message, path) => {
      if (message.type === 'replay.done') return undefined;
      if (/\/ws\/(v1\/)?solver\/stream/.test(path) && typeof message.type === 'string' && message.type.startsWith('order.'))
        return undefined;
      return message;
    },
  };
}
