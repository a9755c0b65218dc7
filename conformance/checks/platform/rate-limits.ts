import type { CheckContext } from '../../core/context.js';
import type { WireResponse } from '../../wire/http.js';
import { BOTH, check, PHASE } from '../support/define.js';
import { expectError } from '../support/errors.js';
import { isObject } from '../support/shape.js';

const HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'] as const;
/** Above this burst the check would hammer a deployment for too long: it skips with the reason. */
const MAX_BURST_PROBED = 5_000;
const BURST_LABEL = 'rate-limit burst';

/** What is wrong with one response's rate-limit headers. */
export function rateLimitHeaderProblems(headers: Record<string, string>, nowMs = Date.now()): string[] {
  const problems: string[] = [];
  for (const name of HEADERS) {
    const value = headers[name];
    if (value === undefined) problems.push(`${name} is missing`);
    else if (!/^\d+(\.\d+)?$/.test(value.trim())) problems.push(`${name} is ${JSON.stringify(value)}, not a number`);
  }
  const reset = Number(headers['x-ratelimit-reset']);
  if (Number.isFinite(reset)) {
    // Epoch seconds (or ms, which some servers send): within a day of now.
    const resetMs = reset > 1e12 ? reset : reset * 1_000;
    if (Math.abs(resetMs - nowMs) > 86_400_000) problems.push(`x-ratelimit-reset ${reset} is not a UTC epoch near now`);
  }
  const limit = Number(headers['x-ratelimit-limit']);
  const remaining = Number(headers['x-ratelimit-remaining']);
  if (Number.isFinite(limit) && Number.isFinite(remaining) && remaining > limit)
    problems.push(`remaining ${remaining} exceeds limit ${limit}`);
  return problems;
}

interface BurstOutcome {
  key: string;
  dedicated: boolean;
  limit: number;
  okBeforeFirst429: number;
  /** What the key had left when the burst began (the limit for a fresh key; less for the main key, used before). */
  allowance: number;
  first429?: WireResponse;
  /** Status of the run's main key right after the dedicated key hit 429. */
  otherKeyStatus?: number;
  /** Profile B: a Reference B route asked right after the first 429. */
  limitedB?: WireResponse;
  /** Requests the burst sent, over how long. */
  sent: number;
  elapsedMs: number;
  /** The lowest X-RateLimit-Remaining the deployment answered during the burst (undefined: none readable). */
  lowestRemaining?: number;
}

/** A key to spend: a fresh sandbox key when the target hands them out, else the main key (run last). */
async function burstKey(ctx: CheckContext): Promise<{ key: string; dedicated: boolean }> {
  if (ctx.target.capabilities.has('keys')) {
    const created = await ctx.api('POST', '/sandbox/keys', { auth: ctx.key, label: 'a key to spend on the burst' });
    const key = isObject(created.json) ? created.json.key : undefined;
    if (created.status === 201 && typeof key === 'string') return { key, dedicated: true };
  }
  return { key: ctx.key, dedicated: false };
}

/** The cheapest route to spend the burst on (limits are per key, whatever the route). */
function burstPath(_ctx: CheckContext): string {
  return '/corridors';
}

/** A Reference B route, asked while the key is limited: its 429 must be in Format B. */
const B_ROUTE = '/settlements/stl_conformanceratelimit';

function burst(ctx: CheckContext): Promise<BurstOutcome> {
  return ctx.fixture('rate-limit-burst', async () => {
    const { key, dedicated } = await burstKey(ctx);
    const path = burstPath(ctx);
    const probe = await ctx.api('GET', path, { auth: key, label: 'limit probe' });
    const limit = Number(probe.headers['x-ratelimit-limit']);
    if (!Number.isFinite(limit) || limit <= 0)
      ctx.fail(`no usable X-RateLimit-Limit (${probe.headers['x-ratelimit-limit']}) to size the burst`);
    if (limit > MAX_BURST_PROBED)
      ctx.skip(`the burst limit ${limit} is above ${MAX_BURST_PROBED}; the check does not hammer a deployment that long`);
    // The bucket refills while the burst runs (a busy machine sends slower): keep going until the first 429,
    // within five times the burst and half a minute.
    const total = limit * 5;
    const deadline = Date.now() + 30_000;
    const statuses: number[] = [];
    let first429: WireResponse | undefined;
    let otherKeyStatus: number | undefined;
    let limitedB: WireResponse | undefined;
    let sent = 0;
    let lowestRemaining: number | undefined;
    const began = Date.now();
    const worker = async () => {
      while (sent < total && first429 === undefined && Date.now() < deadline) {
        sent += 1;
        const response = await ctx.state.http.request({ method: 'GET', path: `/api/v1${path}`, auth: key, label: BURST_LABEL });
        statuses.push(response.status);
        const remaining = Number(response.headers['x-ratelimit-remaining']);
        if (Number.isFinite(remaining)) lowestRemaining = Math.min(lowestRemaining ?? remaining, remaining);
        if (response.status === 429 && first429 === undefined) {
          first429 = response;
          if (ctx.profile === 'B') limitedB = await ctx.api('GET', B_ROUTE, { auth: key, label: 'a Reference B route while limited' });
          if (dedicated) {
            otherKeyStatus = (await ctx.api('GET', '/corridors', { auth: ctx.key, label: 'the main key while the burst key is limited' }))
              .status;
          }
        }
      }
    };
    await Promise.all(Array.from({ length: 48 }, worker));
    const elapsedMs = Date.now() - began;
    if (ctx.profile === 'B' && first429 !== undefined && limitedB?.status !== 429) {
      // A per-second allowance may have come back between the first 429 and the probe (a loaded machine is slow):
      // spend it again and ask the B route right behind those requests, a few times.
      for (let attempt = 0; attempt < 5 && limitedB?.status !== 429; attempt += 1) {
        const spend = Array.from({ length: 150 }, () =>
          ctx.state.http.request({ method: 'GET', path: `/api/v1${path}`, auth: key, label: BURST_LABEL }),
        );
        const probeB = ctx.api('GET', B_ROUTE, { auth: key, label: 'a Reference B route while limited' });
        await Promise.all(spend);
        limitedB = await probeB;
      }
    }
    const index = statuses.indexOf(429);
    const okBeforeFirst429 = statuses.slice(0, index < 0 ? statuses.length : index).filter((s) => s !== 429).length + 1; // +1: the probe
    // The main key has spent part of its bucket on earlier checks: it owes what it said was left, plus the probe.
    const remaining = Number(probe.headers['x-ratelimit-remaining']);
    const allowance = dedicated || !Number.isFinite(remaining) ? limit : Math.min(limit, remaining + 1);
    ctx.note(`${statuses.length} requests in the burst; ${okBeforeFirst429} passed before the first 429 (limit ${limit})`);
    return {
      key,
      dedicated,
      limit,
      okBeforeFirst429,
      allowance,
      ...(first429 === undefined ? {} : { first429 }),
      ...(otherKeyStatus === undefined ? {} : { otherKeyStatus }),
      ...(limitedB === undefined ? {} : { limitedB }),
      sent: statuses.length,
      elapsedMs,
      ...(lowestRemaining === undefined ? {} : { lowestRemaining }),
    };
  });
}

/**
 * A burst that met no 429. When the deployment's own X-RateLimit-Remaining never fell to 0, its bucket refilled
 * faster than this client could spend it (a loaded machine, a slow link): the limit was not reached, so nothing can
 * be said about enforcing it, and the check is SKIPPED with the rate it managed (the run is then INCOMPLETE, not
 * PASSED). A deployment that let requests through with nothing left, or sent no readable counter, is FAILED.
 */
function unlimited(ctx: CheckContext, outcome: BurstOutcome): never {
  const rate = outcome.sent / Math.max(outcome.elapsedMs / 1_000, 0.001);
  const spent = `${outcome.sent} requests in ${(outcome.elapsedMs / 1_000).toFixed(1)} s (${Math.round(rate)}/s)`;
  if (outcome.lowestRemaining !== undefined && outcome.lowestRemaining > 0)
    ctx.skip(
      `the burst could not empty the bucket: ${spent}, and X-RateLimit-Remaining never fell below ${outcome.lowestRemaining}; the limit was not reached (run from a less loaded machine)`,
    );
  ctx.fail(
    `no 429 within ${spent} (burst ${outcome.limit}), with X-RateLimit-Remaining at ${outcome.lowestRemaining ?? 'unreadable'}: the limit is not enforced`,
  );
}

export const rateLimitChecks = [
  check({
    id: 'ratelimit.headers',
    title: 'Responses carry X-RateLimit-Limit, -Remaining and -Reset (successes and errors)',
    requirements: ['X-LIM-001'],
    profiles: BOTH,
    tags: ['platform', 'rate-limit'],
    phase: PHASE.platform,
    async run(ctx: CheckContext) {
      const probes: Array<[string, string, string | undefined]> = [
        ['GET', '/health', undefined],
        ['GET', '/corridors', ctx.target.apiKey],
        ['GET', '/conformance-unknown-route', undefined],
        ['GET', '/settlements', 'svc_test_conformance_0123456789abcdef'],
      ];
      for (const [method, path, auth] of probes) {
        const response = await ctx.api(method, path, { ...(auth === undefined ? {} : { auth }) });
        const problems = rateLimitHeaderProblems(response.headers);
        ctx.expect('X-LIM-001', problems.length === 0, `${method} ${path} → ${response.status}: ${problems.join(', ')}`);
      }
    },
  }),

  check({
    id: 'ratelimit.counters',
    title: 'X-RateLimit-Limit stays constant and X-RateLimit-Remaining falls as requests are made',
    requirements: ['X-LIM-005'],
    profiles: BOTH,
    tags: ['platform', 'rate-limit'],
    needs: ['apiKey'],
    phase: PHASE.platform,
    async run(ctx: CheckContext) {
      const seen: Array<{ limit: number; remaining: number }> = [];
      for (let i = 0; i < 6; i += 1) {
        const response = await ctx.api('GET', '/corridors', { auth: ctx.key, record: i === 0 });
        seen.push({ limit: Number(response.headers['x-ratelimit-limit']), remaining: Number(response.headers['x-ratelimit-remaining']) });
      }
      ctx.note(`remaining: ${seen.map((s) => s.remaining).join(', ')}`);
      ctx.expect(
        'X-LIM-005',
        new Set(seen.map((s) => s.limit)).size === 1,
        `X-RateLimit-Limit changed: ${seen.map((s) => s.limit).join(', ')}`,
      );
      ctx.expect(
        'X-LIM-005',
        seen.some((s, i) => i > 0 && s.remaining < seen[i - 1]!.remaining),
        `X-RateLimit-Remaining never fell: ${seen.map((s) => s.remaining).join(', ')}`,
      );
    },
  }),

  check({
    id: 'ratelimit.burst-then-429',
    title: 'A burst of X-RateLimit-Limit requests passes; then 429 with Retry-After in format; waiting it out works',
    requirements: ['X-LIM-002', 'X-LIM-003', 'X-LIM-004'],
    profiles: BOTH,
    tags: ['platform', 'rate-limit', 'slow'],
    needs: ['apiKey'],
    phase: PHASE.rateLimit,
    timeoutMs: 120_000,
    async run(ctx: CheckContext) {
      const outcome = await burst(ctx);
      const limited = outcome.first429;
      if (limited === undefined) unlimited(ctx, outcome);
      ctx.evidence.push(limited.evidence);
      ctx.expect(
        'X-LIM-003',
        outcome.okBeforeFirst429 >= outcome.allowance,
        `only ${outcome.okBeforeFirst429} requests passed before the first 429; the key had ${outcome.allowance} left of a burst of ${outcome.limit}`,
      );
      const retryAfter = limited.headers['retry-after'];
      if (retryAfter === undefined) ctx.fail('the 429 carries no Retry-After');
      ctx.expect('X-LIM-002', /^\d+$/.test(retryAfter), `Retry-After ${JSON.stringify(retryAfter)} is not a number of seconds`);
      expectError(ctx, limited, { status: 429, type: 'rate_limit_error' }, 'X-LIM-002', 'the 429');
      if (ctx.profile === 'B') {
        const b = outcome.limitedB;
        ctx.require('X-LIM-002', b !== undefined, 'no Reference B request was made while limited');
        expectError(ctx, b, { status: 429, code: 'RATE_LIMITED' }, 'X-LIM-002', `GET ${B_ROUTE} while the key is limited`);
        ctx.expect('X-LIM-002', b.headers['retry-after'] !== undefined, 'the Reference B 429 carries no Retry-After');
      }
      const seconds = Number(retryAfter);
      ctx.expect('X-LIM-004', seconds >= 1, `Retry-After is ${seconds}, below 1`);
      if (seconds > 30) ctx.skip(`Retry-After is ${seconds} s; the check does not wait that long`);
      await ctx.sleep(Math.max(1, seconds) * 1_000 + 50);
      const after = await ctx.api('GET', burstPath(ctx), { auth: outcome.key, label: 'after waiting Retry-After' });
      ctx.expect('X-LIM-004', after.status !== 429, `after waiting Retry-After (${seconds} s) the request answered ${after.status}`);
    },
  }),

  check({
    id: 'ratelimit.per-key',
    title: 'Rate limits are per API key: another key is not limited while one is',
    requirements: ['X-LIM-006'],
    profiles: BOTH,
    tags: ['platform', 'rate-limit', 'slow'],
    needs: ['apiKey', 'keys'],
    phase: PHASE.rateLimit,
    timeoutMs: 120_000,
    async run(ctx: CheckContext) {
      const outcome = await burst(ctx);
      if (!outcome.dedicated) ctx.skip('no second key could be created to compare');
      if (outcome.first429 === undefined) unlimited(ctx, outcome);
      ctx.expect(
        'X-LIM-006',
        outcome.otherKeyStatus === 200,
        `the main key answered ${outcome.otherKeyStatus} while the burst key was limited`,
      );
    },
  }),

  check({
    id: 'ratelimit.observed-traffic',
    title: 'Every response of the run carried the rate-limit headers',
    requirements: ['X-LIM-001'],
    profiles: BOTH,
    tags: ['platform', 'rate-limit', 'observer'],
    phase: PHASE.observers,
    async run(ctx: CheckContext) {
      const api = ctx.state.observed.filter((o) => o.path.startsWith('/api/v1') || o.path.startsWith('/v1'));
      const missing = api.filter((o) => rateLimitHeaderProblems(o.headers, Date.now()).some((p) => p.endsWith('missing')));
      ctx.note(`${api.length} API responses observed`);
      ctx.expect(
        'X-LIM-001',
        missing.length === 0,
        `${missing.length} responses lack a rate-limit header, e.g. ${missing
          .slice(0, 4)
          .map((o) => `${o.method} ${o.path} → ${o.status}`)
          .join(', ')}`,
      );
    },
  }),
];
