/**
 * The fault catalogue: ways a deployment can get the spec subtly wrong, each produced by the fault proxy in front
 * of our (correct) sandbox, and benign variants a correct client must tolerate. The suite must fail a run under
 * each fault (a kill) and pass every run under a benign variant (else a false alarm).
 *
 * Each entry names the check groups it is judged by (`area`, whole groups such as `quotes.*`, never the one check
 * written for it), so a kill means "the suite notices", not "the check we aimed at fires".
 */
import { createHmac, randomUUID } from 'node:crypto';
import { FAULTS } from './fault-proxy.js';
import {
  API,
  type CatalogueEntry,
  deliveryBody,
  header,
  isError,
  isEvent,
  isPath,
  json,
  onHealth,
  onOrderCreate,
  onOrderRead,
  onQuoteDetail,
  onQuotes,
  resign,
} from './fault-helpers.js';
import { VALUE_BENIGN, VALUE_FAULTS } from './value-faults.js';

export type { CatalogueEntry, FaultChannel } from './fault-helpers.js';

const HTTP: CatalogueEntry[] = [
  // Rate-limit headers and 429s.
  { channel: 'http', area: ['ratelimit.*'], fault: FAULTS.dropHeader('X-RateLimit-Remaining') },
  { channel: 'http', area: ['ratelimit.*'], fault: FAULTS.dropHeader('X-RateLimit-Limit') },
  { channel: 'http', area: ['ratelimit.*'], fault: FAULTS.dropHeader('X-RateLimit-Reset') },
  {
    channel: 'http',
    area: ['ratelimit.*'],
    fault: header(
      'X-RateLimit-Remaining is not a number',
      () => true,
      (res) => {
        if (res.headers['x-ratelimit-remaining'] !== undefined) res.headers['x-ratelimit-remaining'] = 'plenty';
      },
    ),
  },
  {
    channel: 'http',
    area: ['ratelimit.*'],
    fault: header(
      '429 without Retry-After',
      (_q, res) => res.status === 429,
      (res) => void delete res.headers['retry-after'],
    ),
  },
  { channel: 'http', area: ['ratelimit.*'], fault: FAULTS.status(429, 503) },
  // Authentication.
  { channel: 'http', area: ['auth.*'], fault: FAULTS.status(401, 403, API) },
  { channel: 'http', area: ['auth.*'], fault: FAULTS.status(401, 404, API) },
  // Status codes per route.
  { channel: 'http', area: ['quotes.*'], fault: FAULTS.status(404, 200, /\/quotes\/qt_/) },
  { channel: 'http', area: ['orders.*'], fault: { ...FAULTS.status(404, 400, /\/orders\//), name: 'unknown order 404 → 400' } },
  {
    channel: 'http',
    area: ['orders.*'],
    fault: {
      name: 'POST /orders answers 200 instead of 201',
      response: (q, r) => void (onOrderCreate(q) && r.status === 201 && (r.status = 200)),
    },
  },
  {
    channel: 'http',
    area: ['webhooks.*'],
    fault: {
      name: 'POST /webhooks answers 200 instead of 201',
      response: (q, r) => void (isPath(q, 'POST', /^\/api\/v1\/webhooks\/?$/) && r.status === 201 && (r.status = 200)),
    },
  },
  { channel: 'http', area: ['quotes.*'], fault: FAULTS.status(400, 422, /\/quotes/) },
  { channel: 'http', area: ['errors.*'], fault: FAULTS.status(404, 400, API) },
  // Ordering.
  { channel: 'http', area: ['quotes.*'], fault: FAULTS.unsortQuotes() },
  // Error bodies.
  { channel: 'http', area: ['errors.*'], fault: FAULTS.dropErrorField('doc_url') },
  { channel: 'http', area: ['errors.*', 'quotes.*'], fault: FAULTS.dropErrorField('param') },
  { channel: 'http', area: ['errors.*'], fault: FAULTS.dropErrorField('type') },
  { channel: 'http', area: ['errors.*'], fault: FAULTS.dropErrorField('message') },
  {
    channel: 'http',
    area: ['errors.*'],
    fault: json('error type api_error on 4xx', isError, (b) => void (b?.error && (b.error.type = 'api_error'))),
  },
  {
    channel: 'http',
    area: ['errors.*'],
    fault: json(
      'doc_url that does not resolve',
      isError,
      (b) => void (b?.error?.doc_url && (b.error.doc_url = String(b.error.doc_url).replace(/\/docs\//, '/docs-gone/'))),
    ),
  },
  {
    channel: 'http',
    area: ['errors.*'],
    fault: header('errors as plain text', isError, (res) => {
      res.body = Buffer.from('Bad Request');
      res.headers['content-type'] = 'text/plain';
    }),
  },
  {
    channel: 'http',
    area: ['errors.*'],
    fault: json('errors without the error envelope', isError, (b) => void (b?.error && Object.assign(b, b.error) && delete b.error)),
  },
  // Ids, prefixes, timestamps, types.
  {
    channel: 'http',
    area: ['quotes.*'],
    fault: json('quoteId without qt_', onQuotes, (b) =>
      b?.quotes?.forEach((q: any) => void (q.quoteId = String(q.quoteId).replace(/^qt_/, 'q_'))),
    ),
  },
  {
    channel: 'http',
    area: ['quotes.*'],
    fault: json('requestId without req_', onQuotes, (b) => void (b && (b.requestId = String(b.requestId).replace(/^req_/, '')))),
  },
  {
    channel: 'http',
    area: ['quotes.*'],
    fault: json('expiresAt as Unix seconds', onQuotes, (b) =>
      b?.quotes?.forEach((q: any) => void (q.expiresAt = Math.floor(Date.parse(q.expiresAt) / 1000))),
    ),
  },
  {
    channel: 'http',
    area: ['quotes.*'],
    fault: json('outputAmount as a number', onQuotes, (b) =>
      b?.quotes?.forEach((q: any) => void (q.outputAmount = Number(q.outputAmount))),
    ),
  },
  {
    channel: 'http',
    area: ['quotes.*'],
    fault: json('feeBps as a string', onQuotes, (b) => b?.quotes?.forEach((q: any) => void (q.feeBps = String(q.feeBps)))),
  },
  { channel: 'http', area: ['quotes.*'], fault: json('quote response without corridor', onQuotes, (b) => void delete b?.corridor) },
  { channel: 'http', area: ['quotes.*'], fault: json('quote response without uccpBps', onQuotes, (b) => void delete b?.uccpBps) },
  {
    channel: 'http',
    area: ['quotes.*'],
    fault: json('lockType outside the enum', onQuotes, (b) => b?.quotes?.forEach((q: any) => void (q.lockType = 'Permit2'))),
  },
  {
    channel: 'http',
    area: ['quotes.*'],
    fault: json('quote detail status "active"', onQuoteDetail, (b) => void (b && (b.status = 'active'))),
  },
  {
    channel: 'http',
    area: ['quotes.*'],
    fault: json(
      'standardOrder.expires as ISO text',
      onQuoteDetail,
      (b) => void (b?.standardOrder && (b.standardOrder.expires = new Date(b.standardOrder.expires * 1000).toISOString())),
    ),
  },
  {
    channel: 'http',
    area: ['orders.*'],
    fault: json('orderId without ord_', onOrderCreate, (b) => void (b?.orderId && (b.orderId = String(b.orderId).replace(/^ord_/, 'o_')))),
  },
  {
    channel: 'http',
    area: ['orders.*'],
    fault: json('createdAt as Unix milliseconds', onOrderCreate, (b) => void (b?.createdAt && (b.createdAt = Date.parse(b.createdAt)))),
  },
  {
    channel: 'http',
    area: ['orders.*'],
    fault: json(
      'order status in lowercase',
      onOrderCreate,
      (b) => void (typeof b?.status === 'string' && (b.status = b.status.toLowerCase())),
    ),
  },
  {
    channel: 'http',
    area: ['orders.*'],
    fault: json('order detail without originTxHash', onOrderRead, (b) => void delete b?.originTxHash),
  },
  // Health, environment, version.
  {
    channel: 'http',
    area: ['health.*', 'auth.*', 'environment.*', 'versioning.*'],
    fault: json('health says production', onHealth, (b) => void (b && (b.environment = 'production'))),
  },
  { channel: 'http', area: ['health.*'], fault: json('health ok false with 200', onHealth, (b) => void (b && (b.ok = false))) },
  { channel: 'http', area: ['health.*'], fault: json('health without uptimeSeconds', onHealth, (b) => void delete b?.uptimeSeconds) },
  { channel: 'http', area: ['health.*', 'versioning.*'], fault: json('health without version', onHealth, (b) => void delete b?.version) },
  // Corridors.
  {
    channel: 'http',
    area: ['corridors.*'],
    fault: json(
      'corridor solverCount as a string',
      (q) => isPath(q, 'GET', /^\/api\/v1\/corridors\/?$/),
      (b) => b?.corridors?.forEach((c: any) => void (c.solverCount = String(c.solverCount))),
    ),
  },
  // Pagination.
  {
    channel: 'http',
    area: ['pagination.*', 'orders.*'],
    fault: json(
      'has_more always false',
      (q, r) => q.method === 'GET' && r.status === 200,
      (b) => void (b && 'has_more' in b && (b.has_more = false)),
    ),
  },
  {
    channel: 'http',
    area: ['pagination.*', 'orders.*'],
    fault: {
      name: 'before and after together accepted',
      request: (req) => {
        const url = new URL(req.path, 'http://x');
        if (url.searchParams.has('before') && url.searchParams.has('after')) {
          url.searchParams.delete('before');
          req.path = `${url.pathname}${url.search}`;
        }
      },
    },
  },
  {
    channel: 'http',
    area: ['pagination.*', 'orders.*'],
    fault: json(
      'pages lose their last item',
      (q, r) => q.method === 'GET' && r.status === 200,
      (b) => void (Array.isArray(b?.data) && b.data.length > 1 && b.data.pop()),
    ),
  },
  // Idempotency.
  {
    channel: 'http',
    area: ['idempotency.*'],
    fault: { name: 'Idempotency-Key ignored', request: (req) => void delete req.headers['idempotency-key'] },
  },
  // Settlements.
  {
    channel: 'http',
    area: ['settlements.*'],
    fault: json(
      'settlement without evidenceHash',
      (q) => isPath(q, 'GET', /\/settlements\/[^/]+$/),
      (b) => void delete b?.evidenceHash,
    ),
  },
];

const WS: CatalogueEntry[] = [
  // Ordered so the faults that make the suite wait longest alternate between the runner's lanes.
  { channel: 'ws', area: ['ws.*'], fault: { name: 'no auth.ok', wsFromServer: (m) => (m.type === 'auth.ok' ? undefined : m) } },
  {
    channel: 'ws',
    area: ['ws.*'],
    fault: { name: 'no subscribe acknowledgement', wsFromServer: (m) => (m.type === 'subscribe.ok' ? undefined : m) },
  },
  {
    channel: 'ws',
    area: ['ws.*', 'events.*'],
    fault: { name: 'events without id', wsFromServer: (m) => (isEvent(m) ? { ...m, id: undefined } : m) },
  },
  {
    channel: 'ws',
    area: ['events.*'],
    fault: { name: 'order.settled never sent on WS', wsFromServer: (m) => (m.type === 'order.settled' ? undefined : m) },
  },
  {
    channel: 'ws',
    area: ['ws.*'],
    fault: {
      name: 'auth.ok names another environment',
      wsFromServer: (m) => (m.type === 'auth.ok' ? { ...m, environment: 'production' } : m),
    },
  },
  { channel: 'ws', area: ['ws.*'], fault: { name: 'server never pings', wsFromServer: (m) => (m.type === 'ping' ? undefined : m) } },
  {
    channel: 'ws',
    area: ['events.*'],
    fault: {
      name: 'terminal event sent twice with new ids',
      wsFromServer: (m) => (m.type === 'order.settled' ? [m, { ...m, id: `evt_${randomUUID().replaceAll('-', '')}` }] : m),
    },
  },
  {
    channel: 'ws',
    area: ['ws.*', 'events.*'],
    fault: {
      // Acknowledges the cursor and replays nothing: the events between subscribe and replay.done are withheld.
      name: 'replay acknowledged, events withheld',
      wsFromClient: (m, _path, connection) => {
        if (m.type === 'subscribe' && typeof m.cursor === 'string') connection.replaying = true;
        return m;
      },
      wsFromServer: (m, _path, connection) => {
        if (m.type === 'replay.done') connection.replaying = false;
        return connection.replaying === true && isEvent(m) ? undefined : m;
      },
    },
  },
];

const WEBHOOK: CatalogueEntry[] = [
  { channel: 'webhook', area: ['webhooks.*', 'orders.*'], fault: FAULTS.badWebhookSignature() },
  {
    channel: 'webhook',
    area: ['webhooks.*', 'orders.*'],
    fault: { name: 'no X-Service-Timestamp', delivery: (d) => void delete d.headers['x-service-timestamp'] },
  },
  {
    channel: 'webhook',
    area: ['webhooks.*', 'orders.*'],
    fault: {
      name: 'signature over the body alone',
      delivery: (d) => {
        // The classic mistake: HMAC over the raw body without the `<timestamp>.` prefix.
        if (d.secret !== undefined)
          d.headers['x-service-signature'] = createHmac('sha256', Buffer.from(d.secret, 'utf8')).update(d.body).digest('hex');
      },
    },
  },
  {
    channel: 'webhook',
    area: ['webhooks.*', 'orders.*'],
    fault: {
      name: 'timestamp ten minutes old (re-signed)',
      delivery: (d) => {
        const t = Number(d.headers['x-service-timestamp']);
        if (Number.isFinite(t)) d.headers['x-service-timestamp'] = String(t - 600);
        resign(d);
      },
    },
  },
  {
    channel: 'webhook',
    area: ['webhooks.*', 'orders.*'],
    fault: { name: 'X-Service-Event differs from the body', delivery: (d) => void (d.headers['x-service-event'] = 'order.unknown') },
  },
  {
    channel: 'webhook',
    area: ['webhooks.*', 'orders.*'],
    fault: { name: 'no X-Service-WebhookId', delivery: (d) => void delete d.headers['x-service-webhookid'] },
  },
  {
    channel: 'webhook',
    area: ['webhooks.*', 'orders.*'],
    fault: {
      name: 'one X-Service-DeliveryId for every attempt',
      delivery: (d, memory) => {
        if (!memory.has('deliveryId'))
          memory.set('deliveryId', typeof d.headers['x-service-deliveryid'] === 'string' ? d.headers['x-service-deliveryid'] : 'dlv_fixed');
        d.headers['x-service-deliveryid'] = memory.get('deliveryId') as string;
      },
    },
  },
  {
    channel: 'webhook',
    area: ['webhooks.*', 'orders.*'],
    fault: {
      name: 'event id changes on every delivery (re-signed)',
      delivery: (d) => deliveryBody(d, (b) => void (b.id = `evt_${randomUUID().replaceAll('-', '')}`)),
    },
  },
  {
    channel: 'webhook',
    area: ['webhooks.*', 'orders.*'],
    fault: { name: 'body changed after signing', delivery: (d) => void (d.body = Buffer.from(`${d.body.toString('utf8')} `)) },
  },
];

/** Benign variants: what the spec lets a deployment do and a tolerant client must accept. */
const BENIGN: CatalogueEntry[] = [
  {
    benign: true,
    channel: 'http',
    area: ['*'],
    fault: json(
      'unknown fields on every JSON object answer',
      (_q, r) => r.status < 500,
      (b) => {
        if (b && typeof b === 'object' && !Array.isArray(b)) b.x_vendor_extension = { note: 'ignore me' };
      },
    ),
  },
  {
    benign: true,
    channel: 'http',
    area: ['*'],
    fault: header(
      'unknown response headers',
      () => true,
      (res) => void (res.headers['x-vendor-trace'] = randomUUID()),
    ),
  },
  {
    benign: true,
    channel: 'http',
    area: ['*'],
    fault: header(
      'JSON re-serialised with spaces',
      (_q, r) => /json/.test(String(r.headers['content-type'] ?? '')),
      (res) => {
        try {
          res.body = Buffer.from(JSON.stringify(JSON.parse(res.body.toString('utf8')), null, 2));
        } catch {
          // not JSON after all: leave it
        }
      },
    ),
  },
  {
    benign: true,
    channel: 'ws',
    area: ['ws.*', 'events.*'],
    fault: {
      name: 'unknown WS message types between events',
      wsFromServer: (m) => (isEvent(m) ? [{ type: 'vendor.notice', note: 'ignore me' }, m] : m),
    },
  },
  {
    benign: true,
    channel: 'ws',
    area: ['ws.*', 'events.*'],
    fault: { name: 'unknown fields on WS messages', wsFromServer: (m) => ({ ...m, x_vendor: 1 }) },
  },
  {
    benign: true,
    channel: 'webhook',
    area: ['webhooks.*', 'orders.*'],
    fault: {
      name: 'unknown fields in delivery bodies (re-signed)',
      delivery: (d) => deliveryBody(d, (b) => void (b.x_vendor = { note: 'ignore me' })),
    },
  },
  {
    benign: true,
    channel: 'webhook',
    area: ['webhooks.*', 'orders.*'],
    fault: { name: 'unknown delivery headers', delivery: (d) => void (d.headers['x-vendor-region'] = 'local-1') },
  },
];

export const FAULT_CATALOGUE: readonly CatalogueEntry[] = [...HTTP, ...WS, ...WEBHOOK, ...VALUE_FAULTS, ...BENIGN, ...VALUE_BENIGN];
