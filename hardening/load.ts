/**
 * Load campaign (autocannon over loopback, bounded in time): quotes (real auctions with the reference solvers) and
 * order reads at rising rates from several API keys; then one key flooding while another keeps a modest pace, to
 * see the per-key rate limit hold (100/s, burst 1,000) with correct headers and without touching the other key.
 * Memory of the service is read after a full GC before and after, so a leak shows as growth.
 */
import autocannon from 'autocannon';
import type { ServiceChild } from './service-child.js';
import { sleep } from './support/wire.js';

export interface LoadOptions {
  service: ServiceChild;
  /** Fresh API keys of the workspace (a key's bucket is its own: the fuzz campaign's keys are spent). */
  apiKeys: string[];
  /** A quote request body that the reference solvers answer. */
  quoteBody: Record<string, unknown>;
  /** Existing order ids to read. */
  orderIds: string[];
  quick: boolean;
  log?: (line: string) => void;
}

export interface LoadStep {
  route: 'quotes' | 'orders';
  /** null: as fast as the keys' connections go (the throughput ceiling). */
  targetRps: number | null;
  keys: number;
  durationS: number;
  requests: number;
  throughputRps: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** Answers by HTTP status. */
  statuses: Record<string, number>;
}

export interface RateLimitCheck {
  /** Requests of the flooding key, and how many passed / were refused. */
  floodRequests: number;
  floodPassed: number;
  floodLimited: number;
  /** What the bucket allows in the flood's duration: burst + rate × seconds (+1 s of slack). */
  floodAllowance: number;
  /** Refusals of the other key while the first one flooded (must be 0: limits are per key). */
  otherKeyLimited: number;
  otherKeyRequests: number;
  /** Responses without X-RateLimit-Limit/Remaining/Reset, or with values out of shape. */
  badHeaders: number;
  /** 429s without a whole-seconds Retry-After ≥ 1. */
  badRetryAfter: number;
  /** After waiting Retry-After, the flooded key is served again. */
  recoveredAfterRetryAfter: boolean;
  enforced: boolean;
}

export interface LoadFigures {
  steps: LoadStep[];
  rateLimit: RateLimitCheck;
  memory: { heapBeforeMb: number; heapAfterMb: number; heapGrowthMb: number; rssBeforeMb: number; rssAfterMb: number; requests: number };
  serverErrors: number;
  wallMs: number;
}

const MB = 1024 * 1024;

type Result = autocannon.Result;

function run(options: autocannon.Options): Promise<Result> {
  return new Promise((resolve, reject) => {
    autocannon(options, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

export async function runLoadCampaign(options: LoadOptions): Promise<LoadFigures> {
  const started = Date.now();
  const log = options.log ?? (() => undefined);
  const { service } = options;
  const url = service.api.url;
  const keys = options.apiKeys;
  let serverErrors = 0;
  let totalRequests = 0;

  // Warm up (JIT, caches, first auctions), then take the baseline heap.
  await run({
    url: `${url}/api/v1/orders/${options.orderIds[0]}`,
    connections: 2,
    amount: 200,
    headers: { Authorization: `Bearer ${keys[0]}` },
  });
  const before = await service.memory();

  const plan: Array<{ route: LoadStep['route']; rates: Array<number | null> }> = options.quick
    ? [
        { route: 'quotes', rates: [10, 30] },
        { route: 'orders', rates: [100, 300] },
      ]
    : [
        { route: 'quotes', rates: [10, 30, 60, 120, null] },
        { route: 'orders', rates: [100, 200, 400, 800, null] },
      ];
  const durationS = options.quick ? 1 : 3;
  // Twelve keys: their buckets (burst 1,000 + 100/s each) hold the unthrottled steps, so those measure the service.
  const loadKeys = keys.slice(0, options.quick ? 4 : 12);
  const steps: LoadStep[] = [];
  for (const { route, rates } of plan) {
    for (const rate of rates) {
      const perKey = rate === null ? undefined : Math.max(1, Math.floor(rate / loadKeys.length));
      const results = await Promise.all(
        loadKeys.map((key, index) =>
          run({
            url,
            connections: perKey === undefined ? 4 : route === 'quotes' ? Math.min(32, Math.max(2, perKey)) : 4,
            ...(perKey === undefined ? {} : { overallRate: perKey }),
            duration: durationS,
            timeout: 10,
            requests: [
              route === 'quotes'
                ? {
                    method: 'POST',
                    path: '/api/v1/quotes',
                    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
                    body: JSON.stringify(options.quoteBody),
                  }
                : {
                    method: 'GET',
                    path: `/api/v1/orders/${options.orderIds[index % options.orderIds.length]}`,
                    headers: { Authorization: `Bearer ${key}` },
                  },
            ],
          }),
        ),
      );
      const requests = results.reduce((sum, r) => sum + r.requests.total, 0);
      const step: LoadStep = {
        route,
        targetRps: rate,
        keys: loadKeys.length,
        durationS,
        requests,
        throughputRps: Math.round(results.reduce((sum, r) => sum + r.requests.average, 0)),
        p50Ms: Math.max(...results.map((r) => r.latency.p50)),
        p99Ms: Math.max(...results.map((r) => r.latency.p99)),
        non2xx: results.reduce((sum, r) => sum + r.non2xx, 0),
        errors: results.reduce((sum, r) => sum + r.errors, 0),
        timeouts: results.reduce((sum, r) => sum + r.timeouts, 0),
        statuses: {},
      };
      for (const result of results) {
        for (const [status, { count }] of Object.entries(result.statusCodeStats ?? {}))
          step.statuses[status] = (step.statuses[status] ?? 0) + count;
      }
      serverErrors += results.reduce((sum, r) => sum + r['5xx'], 0);
      totalRequests += requests;
      steps.push(step);
      log(
        `  load: ${route} at ${rate === null ? 'full speed' : `${rate}/s`} over ${loadKeys.length} keys: ${step.throughputRps}/s, p50 ${step.p50Ms} ms, p99 ${step.p99Ms} ms, non-2xx ${step.non2xx}${step.non2xx > 0 ? ` ${JSON.stringify(step.statuses)}` : ''}`,
      );
    }
  }

  const rateLimit = await floodOneKey(
    url,
    keys[12] ?? keys[0]!,
    keys[13] ?? keys[1]!,
    options.orderIds[0]!,
    options.quick ? 2 : 4,
    (n) => (serverErrors += n),
  );
  totalRequests += rateLimit.floodRequests + rateLimit.otherKeyRequests;
  log(
    `  load: flood ${rateLimit.floodRequests} requests, ${rateLimit.floodPassed} passed (allowance ${rateLimit.floodAllowance}), ${rateLimit.floodLimited} limited; ` +
      `other key ${rateLimit.otherKeyLimited}/${rateLimit.otherKeyRequests} limited; bad headers ${rateLimit.badHeaders}`,
  );
  const after = await service.memory();
  return {
    steps,
    rateLimit,
    memory: {
      heapBeforeMb: round(before.heapUsed / MB),
      heapAfterMb: round(after.heapUsed / MB),
      heapGrowthMb: round((after.heapUsed - before.heapUsed) / MB),
      rssBeforeMb: round(before.rss / MB),
      rssAfterMb: round(after.rss / MB),
      requests: totalRequests,
    },
    serverErrors,
    wallMs: Date.now() - started,
  };
}

const round = (value: number) => Math.round(value * 10) / 10;

/**
 * One key sends as fast as it can, past what its bucket allows in `seconds`; another sends 20/s meanwhile. The first must be cut off after its
 * burst plus the sustained rate, every answer must carry the rate headers, every 429 a Retry-After; the second
 * must never be limited.
 */
async function floodOneKey(
  url: string,
  hotKey: string,
  coldKey: string,
  orderId: string,
  seconds: number,
  onServerErrors: (n: number) => void,
): Promise<RateLimitCheck> {
  let badHeaders = 0;
  let badRetryAfter = 0;
  let retryAfter = 1;
  let passed = 0;
  let limited = 0;
  let otherLimited = 0;
  const path = `/api/v1/orders/${orderId}`;
  const check = (status: number, headers: Record<string, string>) => {
    const h = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), String(v)]));
    const limit = h['x-ratelimit-limit'];
    const remaining = h['x-ratelimit-remaining'];
    const reset = h['x-ratelimit-reset'];
    const nowS = Date.now() / 1000;
    if (limit !== '1000' || !/^\d+$/.test(remaining ?? '') || !/^\d+$/.test(reset ?? '') || Math.abs(Number(reset) - nowS) > 5)
      badHeaders += 1;
    if (status === 429) {
      const value = h['retry-after'] ?? '';
      if (!/^\d+$/.test(value) || Number(value) < 1) badRetryAfter += 1;
      else retryAfter = Math.max(retryAfter, Number(value));
    }
    if (status === 429 && remaining !== '0') badHeaders += 1;
  };
  // The flood is a number of requests, not a duration: on a loaded machine a timed flood can stay under the bucket
  // (burst + rate × time) and prove nothing. It sends past the allowance of the time it was planned for; the
  // allowance it is judged by is that of the time it really took.
  const floodAmount = 1_000 + 100 * (seconds + 1) + 500;
  const floodStarted = performance.now();
  const [hot, cold] = await Promise.all([
    run({
      url,
      connections: 16,
      amount: floodAmount,
      requests: [
        {
          method: 'GET',
          path,
          headers: { Authorization: `Bearer ${hotKey}` },
          onResponse: (status: number, _body: string, _context: unknown, headers: Record<string, string>) => {
            check(status, headers);
            if (status === 429) limited += 1;
            else if (status < 300) passed += 1;
          },
        } as autocannon.Request,
      ],
    }),
    run({
      url,
      connections: 1,
      overallRate: 20,
      duration: seconds,
      requests: [
        {
          method: 'GET',
          path,
          headers: { Authorization: `Bearer ${coldKey}` },
          onResponse: (status: number, _body: string, _context: unknown, headers: Record<string, string>) => {
            check(status, headers);
            if (status === 429) otherLimited += 1;
          },
        } as autocannon.Request,
      ],
    }),
  ]);
  const floodSeconds = Math.ceil((performance.now() - floodStarted) / 1_000);
  onServerErrors(hot['5xx'] + cold['5xx']);
  // The flood was cut off; after Retry-After the key works again.
  await sleep(retryAfter * 1_000 + 100);
  const again = await fetch(`${url}${path}`, { headers: { Authorization: `Bearer ${hotKey}` } });
  const allowance = 1_000 + 100 * (floodSeconds + 1);
  return {
    floodRequests: hot.requests.total,
    floodPassed: passed,
    floodLimited: limited,
    floodAllowance: allowance,
    otherKeyLimited: otherLimited,
    otherKeyRequests: cold.requests.total,
    badHeaders,
    badRetryAfter,
    recoveredAfterRetryAfter: again.status === 200,
    enforced: limited > 0 && passed <= allowance && otherLimited === 0 && badHeaders === 0 && badRetryAfter === 0 && again.status === 200,
  };
}
