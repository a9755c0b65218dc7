/**
 * Faults only visible in values and over time (issue 32): every answer keeps its shape, but a value disagrees with
 * what was asked, with another answer, with an event, with the chain, or with itself a moment later. Entries under
 * `profile: 'B'` are judged by a Reference B run. Benign variants at the end: what the spec allows and a correct
 * client tolerates.
 */
import { FAULTS, type Fault, type ProxiedRequest, type ProxiedResponse } from './fault-proxy.js';
import {
  type CatalogueEntry,
  deliveryBody,
  eventId,
  header,
  isEvent,
  isPath,
  json,
  onHealth,
  onOrderCreate,
  onOrderRead,
  onQuoteDetail,
  onQuotes,
  randomHash,
  resign,
} from './fault-helpers.js';

type Message = Record<string, unknown>;
type Body = any;

const onCorridors = (req: ProxiedRequest) => isPath(req, 'GET', /^\/api\/v1\/corridors\/?$/);
const onSettlement = (req: ProxiedRequest) => isPath(req, 'GET', /^\/api\/v1\/workspaces\/[^/]+\/settlements\/[^/]+$/);
const onList = (req: ProxiedRequest, res: ProxiedResponse) =>
  req.method === 'GET' && res.status === 200 && /^\/api\/v1\/(settlements|auth\/sessions)\/?(\?|$)/.test(req.path);
const onBSettlement = (req: ProxiedRequest) => isPath(req, 'GET', /^\/api\/v1\/settlements\/stl_[^/]+$/);
const onAudit = (req: ProxiedRequest) => isPath(req, 'GET', /^\/api\/v1\/audit\/[^/]+$/);

/** Shifts an ISO time by `ms`. */
function shifted(iso: unknown, ms: number): unknown {
  return typeof iso === 'string' ? new Date(Date.parse(iso) + ms).toISOString() : iso;
}

/** Doubles a decimal or integer amount string. */
function doubled(amount: unknown): unknown {
  if (typeof amount !== 'string') return amount;
  const [whole, fraction = ''] = amount.split('.');
  const scaled = BigInt(`${whole}${fraction}`) * 2n;
  const text = scaled.toString().padStart(fraction.length + 1, '0');
  return fraction.length === 0 ? text : `${text.slice(0, -fraction.length)}.${text.slice(-fraction.length)}`;
}

/** A fault that rewrites one payload object of server → client WebSocket events of `type`. */
function wsEvent(name: string, type: string, edit: (m: Body) => void): Fault {
  return {
    name,
    wsFromServer: (m) => {
      if (m.type !== type || !isEvent(m)) return m;
      const copy = structuredClone(m) as Body;
      edit(copy);
      return copy;
    },
  };
}

/** A fault that rewrites the JSON of a response, with state kept for as long as the fault is installed. */
function stateful(name: string, make: () => (req: ProxiedRequest, res: ProxiedResponse) => void): Fault {
  let handler: ((req: ProxiedRequest, res: ProxiedResponse) => void) | undefined;
  return {
    name,
    response: (req, res) => {
      handler ??= make();
      handler(req, res);
    },
  };
}

function rewrite(res: ProxiedResponse, edit: (body: Body) => void): void {
  try {
    const body = JSON.parse(res.body.toString('utf8'));
    edit(body);
    res.body = Buffer.from(JSON.stringify(body));
  } catch {
    // not JSON: leave it
  }
}

function reversedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversedKeys);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value)
        .reverse()
        .map(([k, v]) => [k, reversedKeys(v)]),
    );
  return value;
}

/** The rate-limit checks that do not burst the key: every header, the counters and the observers of all traffic. */
const CHEAP_RATELIMIT = ['ratelimit.headers', 'ratelimit.counters', 'ratelimit.observed-*'];

const HTTP_A: CatalogueEntry[] = [
  // Health over time.
  {
    channel: 'http',
    area: ['health.*'],
    fault: json(
      'uptimeSeconds runs backwards',
      onHealth,
      (b) => void (b && (b.uptimeSeconds = 1e7 - (Math.floor(Date.now() / 1000) % 1e6))),
    ),
  },
  { channel: 'http', area: ['health.*'], fault: json('uptimeSeconds frozen', onHealth, (b) => void (b && (b.uptimeSeconds = 42))) },
  {
    channel: 'http',
    area: ['health.*'],
    fault: stateful('version label changes between reads', () => {
      let reads = 0;
      return (q, r) => void (onHealth(q) && rewrite(r, (b) => void (b.version = `v1.${(reads += 1)}`)));
    }),
  },
  // Corridors.
  {
    channel: 'http',
    area: ['corridors.*'],
    fault: json('minNotional above maxNotional', onCorridors, (b) =>
      b?.corridors?.forEach((c: Body) => void ([c.minNotional, c.maxNotional] = [c.maxNotional, c.minNotional])),
    ),
  },
  {
    channel: 'http',
    area: ['corridors.*'],
    fault: json('a corridor listed twice', onCorridors, (b) => void (b?.corridors?.length && b.corridors.push(b.corridors[0]))),
  },
  {
    channel: 'http',
    area: ['corridors.*'],
    fault: json('corridors without lock types', onCorridors, (b) => b?.corridors?.forEach((c: Body) => void (c.lockTypes = []))),
  },
  // Quotes: ids per request, the detail against the quote, the standardOrder against the request.
  {
    channel: 'http',
    area: ['quotes.*'],
    fault: stateful('one requestId for every request', () => {
      let first: unknown;
      return (q, r) => void (onQuotes(q) && rewrite(r, (b) => void (b.requestId = first ??= b.requestId)));
    }),
  },
  {
    channel: 'http',
    area: ['quotes.*'],
    fault: stateful('quote ids handed out again', () => {
      let first: unknown[] | undefined;
      return (q, r) =>
        void (
          onQuotes(q) &&
          rewrite(r, (b) => {
            if (!Array.isArray(b?.quotes)) return;
            first ??= b.quotes.map((x: Body) => x.quoteId);
            b.quotes.forEach((x: Body, i: number) => void (first![i] !== undefined && (x.quoteId = first![i])));
          })
        );
    }),
  },
  {
    channel: 'http',
    area: ['quotes.*'],
    fault: json('quotes already expired when handed out', onQuotes, (b) =>
      b?.quotes?.forEach((x: Body) => void (x.expiresAt = new Date(Date.now() - 60_000).toISOString())),
    ),
  },
  {
    channel: 'http',
    area: ['quotes.*'],
    fault: json('quote response names the reverse corridor', onQuotes, (b) => {
      const m = typeof b?.corridor === 'string' ? /^([^-]+)-(.+)$/.exec(b.corridor) : null;
      if (m) b.corridor = `${m[2]}-${m[1]}`;
    }),
  },
  {
    channel: 'http',
    area: ['quotes.*'],
    fault: json('quote detail outputAmount differs from the quote', onQuoteDetail, (b) => {
      if (typeof b?.outputAmount === 'string') b.outputAmount = (BigInt(b.outputAmount) + 1n).toString();
    }),
  },
  {
    channel: 'http',
    area: ['quotes.*'],
    fault: json('quote detail names another solver', onQuoteDetail, (b) => void (b && (b.solverId = 'slv_someoneelse00000000'))),
  },
  {
    channel: 'http',
    area: ['quotes.*'],
    fault: json('standardOrder input amount differs from inputAmount', onQuoteDetail, (b) => {
      const input = b?.standardOrder?.inputs?.[0];
      if (Array.isArray(input)) input[1] = (BigInt(input[1]) * 2n).toString();
    }),
  },
  {
    channel: 'http',
    area: ['quotes.*'],
    fault: json('standardOrder output on another chain', onQuoteDetail, (b) => {
      const output = b?.standardOrder?.outputs?.[0];
      if (output && typeof output.chainId === 'number') output.chainId += 1000;
    }),
  },
  {
    channel: 'http',
    area: ['quotes.*'],
    fault: json('standardOrder origin chain differs', onQuoteDetail, (b) => {
      if (typeof b?.standardOrder?.originChainId === 'number') b.standardOrder.originChainId += 1000;
    }),
  },
  // Orders: terminal states, times, deadlines.
  {
    channel: 'http',
    area: ['orders.*'],
    fault: stateful('a Claimed order reads Filled again', () => {
      const claimed = new Map<string, number>();
      return (q, r) =>
        void (
          onOrderRead(q) &&
          rewrite(r, (b) => {
            if (b?.status !== 'Claimed') return;
            const reads = (claimed.get(b.orderId) ?? 0) + 1;
            claimed.set(b.orderId, reads);
            // The flow's own polling reads it first; later reads go backwards.
            if (reads > 2) b.status = 'Filled';
          })
        );
    }),
  },
  {
    channel: 'http',
    area: ['orders.*'],
    fault: json('settledAt is the time of each read', onOrderRead, (b) => void (b?.settledAt && (b.settledAt = new Date().toISOString()))),
  },
  {
    channel: 'http',
    area: ['orders.*'],
    fault: json('settledAt before createdAt', onOrderRead, (b) => void (b?.settledAt && (b.settledAt = shifted(b.createdAt, -3_600_000)))),
  },
  {
    channel: 'http',
    area: ['orders.*'],
    fault: json(
      'order fillDeadline an hour off the signed one',
      onOrderCreate,
      (b) => void (b?.fillDeadline && (b.fillDeadline = shifted(b.fillDeadline, 3_600_000))),
    ),
  },
  {
    channel: 'http',
    area: ['orders.*'],
    fault: json('claimed order names an unknown destination transaction', onOrderRead, (b) => {
      if (b?.status === 'Claimed') b.destinationTxHash = randomHash();
    }),
  },
  {
    channel: 'http',
    area: ['orders.*'],
    fault: json('order detail inputAmount off by one', onOrderRead, (b) => {
      if (typeof b?.inputAmount === 'string') b.inputAmount = (BigInt(b.inputAmount) + 1n).toString();
    }),
  },
  // Settlements: the timeline against the order and the chain.
  {
    channel: 'http',
    area: ['settlements.*'],
    fault: json('timeline filled stage names another transaction', onSettlement, (b) =>
      b?.timeline?.forEach((e: Body) => void (e.stage === 'filled' && (e.txHash = randomHash()))),
    ),
  },
  {
    channel: 'http',
    area: ['settlements.*'],
    fault: json('timeline deposited stage names the fill', onSettlement, (b) => {
      const filled = b?.timeline?.find((e: Body) => e.stage === 'filled');
      b?.timeline?.forEach((e: Body) => void (e.stage === 'deposited' && filled && (e.txHash = filled.txHash)));
    }),
  },
  {
    channel: 'http',
    area: ['settlements.*'],
    fault: json('claimed stage an hour after settledAt', onSettlement, (b) =>
      b?.timeline?.forEach((e: Body) => void (e.stage === 'claimed' && (e.at = shifted(e.at, 3_600_000)))),
    ),
  },
  {
    channel: 'http',
    area: ['settlements.*'],
    fault: json('timeline stages stamped before their blocks', onSettlement, (b) =>
      b?.timeline?.forEach(
        (e: Body) =>
          void (
            e.stage !== 'rfq' &&
            (e.at = shifted(e.at, -86_400_000 + 1_000 * ['deposited', 'filled', 'attested', 'claimed'].indexOf(e.stage)))
          ),
      ),
    ),
  },
  {
    channel: 'http',
    area: ['settlements.*'],
    fault: stateful('a Settled settlement reads Attested later', () => {
      const seen = new Set<string>();
      return (q, r) =>
        void (
          onSettlement(q) &&
          rewrite(r, (b) => {
            if (b?.state !== 'Settled') return;
            if (seen.has(b.orderId)) b.state = 'Attested';
            seen.add(b.orderId);
          })
        );
    }),
  },
  // Page envelopes against the limit asked for.
  {
    channel: 'http',
    area: ['pagination.*', 'orders.*'],
    fault: {
      name: 'limit ignored',
      request: (req) => {
        const url = new URL(req.path, 'http://x');
        if (req.method === 'GET' && /^\/api\/v1\/(settlements|auth\/sessions)\/?$/.test(url.pathname) && url.searchParams.has('limit')) {
          url.searchParams.delete('limit');
          req.path = `${url.pathname}${url.search}`;
        }
      },
    },
  },
  {
    channel: 'http',
    area: ['pagination.*', 'orders.*'],
    fault: json('total_count counts the page', onList, (b) => void (Array.isArray(b?.data) && (b.total_count = b.data.length))),
  },
  {
    channel: 'http',
    area: ['pagination.*', 'orders.*'],
    fault: json('next_cursor on the last page', onList, (b) => void (b && b.has_more === false && (b.next_cursor = 'cur_end'))),
  },
  // Rate-limit counters.
  {
    channel: 'http',
    area: CHEAP_RATELIMIT,
    fault: header(
      'X-RateLimit-Remaining above X-RateLimit-Limit',
      () => true,
      (res) => {
        const limit = Number(res.headers['x-ratelimit-limit']);
        if (Number.isFinite(limit)) res.headers['x-ratelimit-remaining'] = String(limit + 5);
      },
    ),
  },
  {
    channel: 'http',
    area: CHEAP_RATELIMIT,
    fault: header(
      'X-RateLimit-Reset in milliseconds',
      () => true,
      (res) => {
        const reset = Number(res.headers['x-ratelimit-reset']);
        if (Number.isFinite(reset)) res.headers['x-ratelimit-reset'] = String(reset * 1000);
      },
    ),
  },
  {
    channel: 'http',
    area: CHEAP_RATELIMIT,
    fault: header(
      'X-RateLimit-Remaining never falls',
      () => true,
      (res) => {
        if (res.status !== 429 && res.headers['x-ratelimit-limit'] !== undefined)
          res.headers['x-ratelimit-remaining'] = res.headers['x-ratelimit-limit'];
      },
    ),
  },
  // Idempotency replays that are not the first answer.
  {
    channel: 'http',
    area: ['idempotency.*'],
    fault: stateful('idempotent replay answers a new resource id', () => {
      const keys = new Set<string>();
      return (q, r) => {
        const key = q.headers['idempotency-key'];
        if (q.method !== 'POST' || typeof key !== 'string') return;
        if (keys.has(key))
          rewrite(
            r,
            (b) =>
              void (
                b &&
                typeof b === 'object' &&
                ((b.id = `${String(b.id ?? 'x')}_again`), b.webhookId && (b.webhookId = `${b.webhookId}x`))
              ),
          );
        keys.add(key);
      };
    }),
  },
];

const WS_A: CatalogueEntry[] = [
  {
    channel: 'ws',
    area: ['events.*'],
    fault: wsEvent(
      'order.settled names an unknown destination transaction',
      'order.settled',
      (m) => void (m.order.destinationTxHash = randomHash()),
    ),
  },
  {
    channel: 'ws',
    area: ['events.*'],
    fault: wsEvent('order.settled amount doubled', 'order.settled', (m) => void (m.order.amount = doubled(m.order.amount))),
  },
  {
    channel: 'ws',
    area: ['events.*'],
    fault: wsEvent('order.created fillDeadline an hour later', 'order.created', (m) => void (m.order.fillDeadline += 3600)),
  },
  {
    channel: 'ws',
    area: ['events.*'],
    fault: wsEvent(
      'order.settled settledAt an hour later',
      'order.settled',
      (m) => void (m.order.settledAt = shifted(m.order.settledAt, 3_600_000)),
    ),
  },
  {
    channel: 'ws',
    area: ['events.*'],
    fault: wsEvent(
      'order.created amount in 18-decimal units',
      'order.created',
      (m) => void (m.order.amount = `${String(m.order.amount).replace('.', '')}000000000000`),
    ),
  },
  {
    channel: 'ws',
    area: ['events.*'],
    fault: wsEvent('order events stamped a day early', 'order.created', (m) => void (m.timestamp = shifted(m.timestamp, -86_400_000))),
  },
  {
    channel: 'ws',
    area: ['events.*'],
    fault: {
      name: 'one event id reused for the next event',
      wsFromServer: (m, _p, c) => {
        if (!isEvent(m)) return m;
        if (m.type === 'order.created') c.lastCreated = m.id;
        return m.type === 'order.settled' && typeof c.lastCreated === 'string' ? { ...m, id: c.lastCreated } : m;
      },
    },
  },
  {
    channel: 'ws',
    area: ['events.*'],
    fault: {
      name: 'a repeated event id with changed content',
      wsFromServer: (m) => (m.type === 'order.settled' && isEvent(m) ? [m, { ...m, order: { ...(m.order as Message), amount: '1' } }] : m),
    },
  },
  {
    channel: 'ws',
    area: ['events.*'],
    fault: wsEvent(
      'compliance.event names another order',
      'compliance.event',
      (m) => void (m.compliance.orderId = 'ord_someoneelse000000000'),
    ),
  },
  {
    channel: 'ws',
    area: ['ws.*', 'events.*'],
    fault: {
      name: 'replay in reverse order',
      wsFromClient: (m, _p, c) => {
        if (m.type === 'subscribe' && typeof m.cursor === 'string') {
          c.replaying = true;
          c.held = [];
        }
        return m;
      },
      wsFromServer: (m, _p, c) => {
        if (c.replaying !== true) return m;
        if (m.type === 'replay.done') {
          c.replaying = false;
          return [...(c.held as Message[]).reverse(), m];
        }
        if (isEvent(m)) {
          (c.held as Message[]).push(m);
          return undefined;
        }
        return m;
      },
    },
  },
  {
    channel: 'ws',
    area: ['ws.*'],
    fault: {
      name: 'every other ping withheld',
      wsFromServer: (m, _p, c) => {
        if (m.type !== 'ping') return m;
        c.pings = Number(c.pings ?? 0) + 1;
        return Number(c.pings) % 2 === 0 ? undefined : m;
      },
    },
  },
  {
    channel: 'ws',
    area: ['ws.*'],
    fault: { name: 'pongs never reach the server', wsFromClient: (m) => (m.type === 'pong' ? undefined : m) },
  },
  {
    channel: 'ws',
    area: ['ws.*'],
    fault: {
      name: 'subscribe.ok echoes other topics',
      wsFromServer: (m) => (m.type === 'subscribe.ok' ? { ...m, topics: ['orders:none'] } : m),
    },
  },
];

const WEBHOOK_A: CatalogueEntry[] = [
  {
    channel: 'webhook',
    area: ['webhooks.*'],
    fault: {
      name: 'delivery amount differs from the WebSocket event (re-signed)',
      delivery: (d) =>
        deliveryBody(d, (b) => {
          if (b?.order?.amount !== undefined) b.order.amount = doubled(b.order.amount);
          if (b?.data?.order?.amount !== undefined) b.data.order.amount = doubled(b.data.order.amount);
        }),
    },
  },
  {
    channel: 'webhook',
    area: ['webhooks.*'],
    fault: {
      name: 'delivery names another order (re-signed)',
      delivery: (d) => deliveryBody(d, (b) => void (b?.order?.id && (b.order.id = 'ord_someoneelse000000000'))),
    },
  },
  {
    channel: 'webhook',
    area: ['webhooks.*'],
    fault: {
      name: 'X-Service-WebhookId names another webhook',
      delivery: (d) => void (d.headers['x-service-webhookid'] = 'wh_someoneelse0000000000'),
    },
  },
  {
    channel: 'webhook',
    area: ['webhooks.*'],
    fault: {
      name: 'X-Service-Timestamp in milliseconds (re-signed)',
      delivery: (d) => {
        const t = Number(d.headers['x-service-timestamp']);
        if (Number.isFinite(t)) d.headers['x-service-timestamp'] = String(t * 1000);
        resign(d);
      },
    },
  },
  {
    channel: 'webhook',
    area: ['webhooks.*'],
    fault: {
      name: 'delivery settledAt a day early (re-signed)',
      delivery: (d) => deliveryBody(d, (b) => void (b?.order?.settledAt && (b.order.settledAt = shifted(b.order.settledAt, -86_400_000)))),
    },
  },
];

/** Reference B: the same kinds of fault on its routes, events and filters. */
const PROFILE_B: CatalogueEntry[] = [
  {
    profile: 'B',
    channel: 'ws',
    area: ['b.*', 'events.b.*'],
    fault: wsEvent(
      'B settlement.pending names an unknown escrow transaction',
      'settlement.pending',
      (m) => void (m.settlement.escrowTxHash = randomHash()),
    ),
  },
  {
    profile: 'B',
    channel: 'ws',
    area: ['b.*', 'events.b.*'],
    fault: wsEvent(
      'B settlement.complete names an unknown destination transaction',
      'settlement.complete',
      (m) => void (m.settlement.destinationTxHash = randomHash()),
    ),
  },
  {
    profile: 'B',
    channel: 'ws',
    area: ['b.*', 'events.b.*'],
    fault: wsEvent(
      'B settlement.complete names another origin transaction',
      'settlement.complete',
      (m) => void (m.settlement.originTxHash = randomHash()),
    ),
  },
  {
    profile: 'B',
    channel: 'ws',
    area: ['b.*', 'events.b.*'],
    fault: wsEvent(
      'B settlement.complete names another settlement',
      'settlement.complete',
      (m) => void (m.settlement.id = 'stl_someoneelse000000000'),
    ),
  },
  {
    profile: 'B',
    channel: 'ws',
    area: ['b.*', 'events.b.*'],
    fault: wsEvent('B quote.accepted names another quote', 'quote.accepted', (m) => void (m.quote.id = 'qt_someoneelse0000000000')),
  },
  {
    profile: 'B',
    channel: 'ws',
    area: ['b.*', 'events.b.*'],
    fault: wsEvent(
      'B settlement.complete amount doubled',
      'settlement.complete',
      (m) => void (m.settlement.amount = doubled(m.settlement.amount)),
    ),
  },
  {
    profile: 'B',
    channel: 'ws',
    area: ['b.*', 'events.b.*'],
    fault: wsEvent('B rfq.created names another RFQ', 'rfq.created', (m) => void (m.rfq.id = `rfq_x${String(m.rfq.id).slice(5)}`)),
  },
  {
    profile: 'B',
    channel: 'ws',
    area: ['b.*', 'events.b.*'],
    fault: wsEvent('B quote.received names another RFQ', 'quote.received', (m) => void (m.quote.rfqId = 'rfq_someoneelse000000000')),
  },
  {
    profile: 'B',
    channel: 'ws',
    area: ['b.*', 'events.b.*'],
    fault: { name: 'B settlement.complete never sent on WS', wsFromServer: (m) => (m.type === 'settlement.complete' ? undefined : m) },
  },
  {
    profile: 'B',
    channel: 'ws',
    area: ['b.*', 'events.b.*'],
    fault: wsEvent('B audit.recorded chains to itself', 'audit.recorded', (m) => void (m.audit.prevHash = m.audit.hash)),
  },
  {
    profile: 'B',
    channel: 'ws',
    area: ['b.*', 'events.b.*'],
    fault: {
      name: 'B corridor filter ignored',
      wsFromClient: (m) => (m.type === 'subscribe' && Array.isArray(m.corridors) ? { ...m, corridors: undefined } : m),
    },
  },
  {
    profile: 'B',
    channel: 'ws',
    area: ['b.*', 'events.b.*'],
    fault: {
      name: 'B channel filter widened to every channel',
      wsFromClient: (m) =>
        m.type === 'subscribe' && Array.isArray(m.channels)
          ? { ...m, channels: ['rfq.*', 'quote.*', 'settlement.*', 'audit.recorded'] }
          : m,
    },
  },
  {
    profile: 'B',
    channel: 'ws',
    area: ['b.*', 'events.b.*'],
    fault: {
      name: 'B repeated event id with changed content',
      wsFromServer: (m) =>
        m.type === 'settlement.pending' && isEvent(m)
          ? [m, { ...m, settlement: { ...(m.settlement as Message), escrowTxHash: randomHash() } }]
          : m,
    },
  },
  {
    profile: 'B',
    channel: 'http',
    area: ['b.*', 'events.b.*'],
    fault: json('B settlement never reports completion', onBSettlement, (b) => {
      if (b?.status === 'complete') b.status = 'processing';
    }),
  },
  {
    profile: 'B',
    channel: 'http',
    area: ['b.*'],
    fault: json('B settlement without its final hash', onBSettlement, (b) => {
      const strip = (v: Body): Body =>
        typeof v === 'string' && /^0x[0-9a-fA-F]{64}$/.test(v)
          ? null
          : v && typeof v === 'object'
            ? (Object.keys(v).forEach((k) => void (v[k] = strip(v[k]))), v)
            : v;
      strip(b);
    }),
  },
  {
    profile: 'B',
    channel: 'http',
    area: ['b.*'],
    fault: json('B audit entries in reverse', onAudit, (b) => {
      for (const k of ['entries', 'data']) if (Array.isArray(b?.[k])) b[k].reverse();
    }),
  },
  {
    profile: 'B',
    channel: 'http',
    area: ['b.*'],
    fault: json('B audit entry chains to the wrong hash', onAudit, (b) => {
      for (const k of ['entries', 'data'])
        if (Array.isArray(b?.[k])) b[k].forEach((e: Body, i: number) => void (i > 0 && (e.prevHash = randomHash())));
    }),
  },
  {
    profile: 'B',
    channel: 'http',
    area: ['b.*'],
    fault: { ...FAULTS.status(409, 200, /\/api\/v1\/accept/), name: 'B second accept answers 200' },
  },
  {
    profile: 'B',
    channel: 'http',
    area: ['b.*'],
    fault: json(
      'B RFQ responses without latency',
      (q) => isPath(q, 'GET', /^\/api\/v1\/quotes\/rfq_[^/]+$/),
      (b) => {
        for (const k of ['quotes', 'responses', 'data'])
          if (Array.isArray(b?.[k]))
            for (const x of b[k] as Body[]) for (const key of Object.keys(x)) if (/latency/i.test(key)) delete x[key];
      },
    ),
  },
  {
    profile: 'B',
    channel: 'http',
    area: ['b.*'],
    fault: json(
      'B compliance status without sanctions screening',
      (q) => isPath(q, 'GET', /^\/api\/v1\/compliance\/status/),
      (b) => {
        const drop = (v: Body) =>
          v && typeof v === 'object' && Object.keys(v).forEach((k) => void (/sanction/i.test(k) ? delete v[k] : drop(v[k])));
        drop(b);
      },
    ),
  },
];

export const VALUE_FAULTS: readonly CatalogueEntry[] = [...HTTP_A, ...WS_A, ...WEBHOOK_A, ...PROFILE_B];

const JUDGED_BY_VALUES = ['health.*', 'corridors.*', 'quotes.*', 'orders.*', 'settlements.*', 'pagination.*'];

export const VALUE_BENIGN: readonly CatalogueEntry[] = [
  {
    benign: true,
    channel: 'ws',
    area: ['ws.*', 'events.*', 'webhooks.deliveries-match-events'],
    fault: { name: 'WS event delivered twice with the same id', wsFromServer: (m) => (isEvent(m) ? [m, m] : m) },
  },
  {
    benign: true,
    channel: 'ws',
    area: ['ws.*', 'events.*'],
    fault: {
      name: 'WS events of unknown types',
      wsFromServer: (m) => (isEvent(m) ? [{ type: 'vendor.heartbeat', id: eventId(), timestamp: m.timestamp, vendor: {} }, m] : m),
    },
  },
  {
    benign: true,
    channel: 'ws',
    area: ['ws.*', 'events.*'],
    fault: { name: 'WS messages with their keys reordered', wsFromServer: (m) => reversedKeys(m) as Message },
  },
  {
    benign: true,
    channel: 'http',
    area: JUDGED_BY_VALUES,
    fault: header(
      'response header names in upper case',
      () => true,
      (res) => {
        // The proxy sets the framing headers itself afterwards.
        for (const [name, value] of Object.entries(res.headers)) {
          if (/^(content-length|transfer-encoding)$/i.test(name)) continue;
          delete res.headers[name];
          res.headers[name.toUpperCase()] = value;
        }
      },
    ),
  },
  {
    benign: true,
    channel: 'http',
    area: JUDGED_BY_VALUES,
    fault: header(
      'JSON answers with their keys reordered',
      (_q, r) => /json/.test(String(r.headers['content-type'] ?? '')),
      (res) => {
        try {
          res.body = Buffer.from(JSON.stringify(reversedKeys(JSON.parse(res.body.toString('utf8')))));
        } catch {
          // not JSON after all: leave it
        }
      },
    ),
  },
  {
    benign: true,
    channel: 'webhook',
    area: ['webhooks.*'],
    fault: {
      name: 'delivery bodies pretty-printed with keys reordered (re-signed)',
      delivery: (d) => {
        d.body = Buffer.from(JSON.stringify(reversedKeys(JSON.parse(d.body.toString('utf8'))), null, 2));
        resign(d);
      },
    },
  },
  {
    benign: true,
    channel: 'webhook',
    area: ['webhooks.*'],
    fault: {
      name: 'delivery header names in upper case',
      delivery: (d) => {
        for (const [name, value] of Object.entries(d.headers)) {
          if (/^(content-length|transfer-encoding|host)$/i.test(name)) continue;
          delete d.headers[name];
          d.headers[name.toUpperCase()] = value;
        }
      },
    },
  },
  {
    benign: true,
    profile: 'B',
    channel: 'ws',
    area: ['b.*', 'events.b.*'],
    fault: { name: 'B WS events delivered twice with the same id', wsFromServer: (m) => (isEvent(m) ? [m, m] : m) },
  },
  {
    benign: true,
    profile: 'B',
    channel: 'ws',
    area: ['b.*', 'events.b.*'],
    fault: { name: 'B unknown fields on WS messages', wsFromServer: (m) => ({ ...m, x_vendor: { region: 'local' } }) },
  },
];
