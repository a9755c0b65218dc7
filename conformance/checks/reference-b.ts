import type { CheckContext } from '../core/context.js';
import { eventCapture } from '../flows/capture.js';
import { bFilterSessions } from '../flows/b-filters.js';
import { harnessSolver } from '../flows/harness-solver.js';
import { inputAmountFor, signTypedDataJson, taker, usableCorridors } from '../flows/taker.js';
import type { CorridorRecord } from '../deployment/discover.js';
import { chainById } from '../deployment/discover.js';
import type { WireResponse } from '../wire/http.js';
import { isRefusal, WsSession } from '../wire/ws.js';
import { check, ONLY_B, PHASE } from './support/define.js';
import { expectError } from './support/errors.js';
import { hasPrefix, isArray, isObject, type Json } from './support/shape.js';

/**
 * Reference B's routes only name their purpose; their fields are not shown. These checks hold a deployment to
 * what is stated (route exists, answers, carries what its purpose names) and find ids by their prefixes in
 * whatever shape the deployment chose, as documented for its accept body: `{rfqId, quoteId, signature, nonce}`.
 */

const FLOW_NEEDS = ['fundedAccounts', 'solvers', 'apiKey'] as const;
const ID = /\b(rfq|qt|ord|stl)_[0-9A-Za-z]+/g;

/** Every prefixed id found anywhere in a JSON body. */
export function idsIn(value: unknown): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const match of JSON.stringify(value ?? null).matchAll(ID)) {
    const list = found.get(match[1]!) ?? [];
    if (!list.includes(match[0])) list.push(match[0]);
    found.set(match[1]!, list);
  }
  return found;
}

function quotesOf(body: unknown): Json[] {
  if (!isObject(body)) return [];
  for (const field of ['quotes', 'responses', 'data']) {
    const list = body[field];
    if (isArray(list)) return list.filter(isObject);
  }
  return [];
}

export interface BFlow {
  corridor: CorridorRecord;
  rfq: WireResponse;
  rfqId: string;
  quote: Json;
  quoteId: string;
  accept: WireResponse;
  acceptBody: Json;
  /** rfq_, qt_, ord_ and stl_ ids of the flow (events are matched by them). */
  ids: Set<string>;
  settlementId: string | undefined;
  final: Json;
}

function chainName(ctx: CheckContext, corridor: CorridorRecord): string {
  return chainById(ctx.target, corridor.originChainId)?.name ?? corridor.id.split(':')[0]!;
}

async function runBFlow(
  ctx: CheckContext,
  label: string,
  options: { takerIndex: number; solverId?: string; corridor?: CorridorRecord },
): Promise<BFlow> {
  await eventCapture(ctx);
  const account = taker(ctx, options.takerIndex);
  const corridor = options.corridor ?? usableCorridors(ctx, 'Permit2Escrow')[0];
  if (!corridor) ctx.skip(ctx.target.missing.solvers ?? 'no corridor with live solvers');
  const whole = BigInt(inputAmountFor(corridor)) / 10n ** BigInt(corridor.inputToken.decimals);
  const body = {
    pair: `${corridor.inputToken.symbol}/${corridor.outputToken.symbol}`,
    side: 'sell',
    amount: String(whole + 1n),
    chain: chainName(ctx, corridor),
    user: account.address,
  };
  const rfq = await ctx.api('POST', '/rfq', { auth: ctx.key, body, label: `${label}: RFQ` });
  if (rfq.status < 200 || rfq.status >= 300) ctx.fail(`${label}: POST /rfq answered ${rfq.status}: ${rfq.text.slice(0, 200)}`);
  const found = idsIn(rfq.json);
  const rfqId = (isObject(rfq.json) && typeof rfq.json.rfqId === 'string' ? rfq.json.rfqId : found.get('rfq')?.[0]) ?? '';
  const quotes = quotesOf(rfq.json);
  const quote = options.solverId ? quotes.find((q) => q.solverId === options.solverId) : quotes[0];
  const quoteId = String(quote?.quoteId ?? quote?.id ?? '');
  if (!quote || !hasPrefix(quoteId, 'qt_'))
    ctx.fail(`${label}: the RFQ answer holds no usable quote${options.solverId ? ` of ${options.solverId}` : ''}`);
  const detail = await ctx.api('GET', `/quotes/${quoteId}`, { query: { user: account.address }, label: `${label}: quote to sign` });
  const detailBody = isObject(detail.json) ? detail.json : {};
  if (!isObject(detailBody.typedData)) ctx.fail(`${label}: the quote carries no typedData to sign`);
  const nonce = String(detailBody.nonce ?? (isObject(detailBody.standardOrder) ? detailBody.standardOrder.nonce : ''));
  const signature = await signTypedDataJson(account, detailBody.typedData);
  const acceptBody = { rfqId, quoteId, signature, nonce: Number(nonce), user: account.address };
  const accept = await ctx.api('POST', '/accept', { auth: ctx.key, body: acceptBody, label: `${label}: accept`, timeoutMs: 30_000 });
  const ids = new Set<string>([rfqId, quoteId, ...[...idsIn(accept.json).values()].flat()]);
  const settlementId = [...ids].find((id) => id.startsWith('stl_'));
  return { corridor, rfq, rfqId, quote, quoteId, accept, acceptBody, ids, settlementId, final: isObject(accept.json) ? accept.json : {} };
}

/** Polls GET /settlements/{id} until its JSON mentions one of the words (complete, failed…). */
async function followSettlement(ctx: CheckContext, id: string, words: RegExp, timeoutMs: number): Promise<Json> {
  const deadline = Date.now() + timeoutMs;
  let last: Json = {};
  for (;;) {
    const response = await ctx.api('GET', `/settlements/${id}`, { auth: ctx.key, record: false });
    last = isObject(response.json) ? response.json : {};
    if (words.test(JSON.stringify(last)) || Date.now() > deadline) {
      ctx.evidence.push(response.evidence);
      return last;
    }
    await ctx.sleep(80);
  }
}

export function bFlow(ctx: CheckContext): Promise<BFlow> {
  return ctx.fixture('b-flow', async () => {
    // Filtered subscriptions first, so they see the flow's events (or should not).
    await bFilterSessions(ctx);
    const flow = await runBFlow(ctx, 'B success', { takerIndex: 0 });
    if (flow.accept.status >= 200 && flow.accept.status < 300 && flow.settlementId) {
      flow.final = await followSettlement(ctx, flow.settlementId, /"(complete|completed|settled|Settled|Claimed)"/, 30_000);
    }
    return flow;
  });
}

export function bRefundFlow(ctx: CheckContext): Promise<BFlow> {
  return ctx.fixture('b-refund-flow', async () => {
    const solver = await harnessSolver(ctx);
    const flow = await runBFlow(ctx, 'B refund', { takerIndex: 4, solverId: solver.solverId, corridor: solver.corridor });
    if (flow.accept.status < 200 || flow.accept.status >= 300)
      ctx.fail(`POST /accept answered ${flow.accept.status}: ${flow.accept.text.slice(0, 200)}`);
    const detail = await ctx.api('GET', `/quotes/${flow.quoteId}`, { label: 'the accepted quote' });
    const expires = isObject(detail.json)
      ? Number(detail.json.expires ?? (isObject(detail.json.standardOrder) ? detail.json.standardOrder.expires : NaN))
      : NaN;
    if (!Number.isFinite(expires)) ctx.fail('the quote names no expiry');
    const wait = Math.max(1, Math.ceil(expires - (await ctx.clockNow()) / 1_000) + 2);
    if (ctx.target.capabilities.has('clock')) await ctx.advanceClock(wait);
    else await ctx.sleep(wait * 1_000);
    if (flow.settlementId) flow.final = await followSettlement(ctx, flow.settlementId, /"(failed|refunded|Refunded)"/, 20_000);
    return flow;
  });
}

export const referenceBChecks = [
  check({
    id: 'b.rfq',
    title: 'POST /api/v1/rfq (pair, side, amount, chain) answers the quotes collected in the auction window',
    requirements: ['B-RFQ-001', 'X-ID-001'],
    profiles: ONLY_B,
    tags: ['reference-b', 'flow'],
    needs: FLOW_NEEDS,
    phase: PHASE.flows,
    async run(ctx: CheckContext) {
      const flow = await bFlow(ctx);
      ctx.expect('B-RFQ-001', quotesOf(flow.rfq.json).length > 0, 'the RFQ answer holds no quotes');
      ctx.expect('X-ID-001', hasPrefix(flow.rfqId, 'rfq_'), `the RFQ id ${JSON.stringify(flow.rfqId)} lacks the rfq_ prefix`);
    },
  }),

  check({
    id: 'b.rfq-responses',
    title: 'GET /api/v1/quotes/{rfqId} lists every solver response with pricing, fill rate and latency',
    requirements: ['B-RFQ-002'],
    profiles: ONLY_B,
    tags: ['reference-b', 'flow'],
    needs: FLOW_NEEDS,
    phase: PHASE.flows,
    async run(ctx: CheckContext) {
      const flow = await bFlow(ctx);
      const response = await ctx.api('GET', `/quotes/${flow.rfqId}`, { auth: ctx.key });
      ctx.require('B-RFQ-002', response.status === 200, `GET /quotes/${flow.rfqId} answered ${response.status}`);
      const responses = quotesOf(response.json);
      ctx.require('B-RFQ-002', responses.length > 0, 'no solver responses listed');
      const keys = new Set(responses.flatMap((r) => Object.keys(r)));
      ctx.expect(
        'B-RFQ-002',
        [...keys].some((k) => /price|amount/i.test(k)),
        `no pricing in the responses (${[...keys].join(', ')})`,
      );
      ctx.expect(
        'B-RFQ-002',
        [...keys].some((k) => /fill/i.test(k)),
        `no fill rate in the responses (${[...keys].join(', ')})`,
      );
      ctx.expect(
        'B-RFQ-002',
        [...keys].some((k) => /latency/i.test(k)),
        `no latency in the responses (${[...keys].join(', ')})`,
      );
    },
  }),

  check({
    id: 'b.accept',
    title: 'POST /api/v1/accept starts settlement with the escrow deposit; accepting twice is 409 ALREADY_ACCEPTED',
    requirements: ['B-ACC-001', 'B-ERR-003'],
    profiles: ONLY_B,
    tags: ['reference-b', 'flow'],
    needs: FLOW_NEEDS,
    phase: PHASE.flows,
    async run(ctx: CheckContext) {
      const flow = await bFlow(ctx);
      ctx.require(
        'B-ACC-001',
        flow.accept.status >= 200 && flow.accept.status < 300,
        `POST /accept answered ${flow.accept.status}: ${flow.accept.text.slice(0, 200)}`,
      );
      ctx.expect('B-ACC-001', flow.settlementId !== undefined, 'the accept answer names no stl_ settlement');
      ctx.expect(
        'B-ACC-001',
        /0x[0-9a-fA-F]{64}/.test(flow.accept.text) || flow.settlementId !== undefined,
        'the accept answer shows no escrow deposit',
      );
      const again = await ctx.api('POST', '/accept', { auth: ctx.key, body: flow.acceptBody, label: 'accept again' });
      expectError(ctx, again, { status: 409, code: 'ALREADY_ACCEPTED' }, 'B-ERR-003', 'the same quote accepted twice');
    },
  }),

  check({
    id: 'b.accept-expired',
    title: 'Accepting an expired quote is 409 QUOTE_EXPIRED',
    requirements: ['B-ERR-004'],
    profiles: ONLY_B,
    tags: ['reference-b', 'timing', 'negative'],
    needs: [...FLOW_NEEDS, 'clock'],
    phase: PHASE.timing,
    async run(ctx: CheckContext) {
      const corridor = usableCorridors(ctx, 'Permit2Escrow')[0];
      if (!corridor) ctx.skip('no corridor with live solvers');
      const account = taker(ctx, 1);
      const whole = BigInt(inputAmountFor(corridor)) / 10n ** BigInt(corridor.inputToken.decimals);
      const rfq = await ctx.api('POST', '/rfq', {
        auth: ctx.key,
        body: {
          pair: `${corridor.inputToken.symbol}/${corridor.outputToken.symbol}`,
          side: 'sell',
          amount: String(whole + 1n),
          chain: chainName(ctx, corridor),
          user: account.address,
        },
      });
      const quote = quotesOf(rfq.json)[0];
      const quoteId = String(quote?.quoteId ?? quote?.id ?? '');
      if (!hasPrefix(quoteId, 'qt_')) ctx.fail(`POST /rfq answered ${rfq.status} without a quote`);
      const detail = await ctx.api('GET', `/quotes/${quoteId}`, { query: { user: account.address } });
      const body = isObject(detail.json) ? detail.json : {};
      if (!isObject(body.typedData) || typeof body.expiresAt !== 'string') ctx.fail('the quote detail carries no typedData or expiresAt');
      const signature = await signTypedDataJson(account, body.typedData);
      await ctx.advanceClock(Math.max(1, Math.ceil((Date.parse(body.expiresAt) - (await ctx.clockNow())) / 1_000) + 1));
      const rfqId = idsIn(rfq.json).get('rfq')?.[0];
      const late = await ctx.api('POST', '/accept', {
        auth: ctx.key,
        body: { rfqId, quoteId, signature, nonce: Number(body.nonce ?? 0), user: account.address },
        label: 'accept after expiry',
      });
      expectError(ctx, late, { status: 409, code: 'QUOTE_EXPIRED' }, 'B-ERR-004', 'accepting an expired quote');
    },
  }),

  check({
    id: 'b.compliance-status',
    title: 'GET /api/v1/compliance/status reports KYC/KYB, sanctions screening and Travel Rule readiness',
    requirements: ['B-CMP-001'],
    profiles: ONLY_B,
    tags: ['reference-b', 'compliance'],
    phase: PHASE.routes,
    async run(ctx: CheckContext) {
      const address = ctx.target.sandbox?.accounts?.takers?.[0]?.address ?? '0x000000000000000000000000000000000000dEaD';
      const response = await ctx.api('GET', '/compliance/status', {
        query: { address },
        ...(ctx.target.apiKey ? { auth: ctx.target.apiKey } : {}),
      });
      ctx.require('B-CMP-001', response.status === 200, `GET /compliance/status answered ${response.status}`);
      const text = JSON.stringify(response.json ?? {}).toLowerCase();
      ctx.expect('B-CMP-001', /kyc|kyb/.test(text), 'no KYC/KYB state');
      ctx.expect('B-CMP-001', /sanction/.test(text), 'no sanctions screening result');
      ctx.expect('B-CMP-001', /travel/.test(text), 'no Travel Rule readiness');
    },
  }),

  check({
    id: 'b.settlement',
    title: 'GET /api/v1/settlements/{id} reports escrow status, proof verification and the final settlement hash',
    requirements: ['B-STL-001'],
    profiles: ONLY_B,
    tags: ['reference-b', 'flow'],
    needs: FLOW_NEEDS,
    phase: PHASE.flows,
    async run(ctx: CheckContext) {
      const flow = await bFlow(ctx);
      if (!flow.settlementId) ctx.fail('the accept answer named no settlement id');
      const response = await ctx.api('GET', `/settlements/${flow.settlementId}`, { auth: ctx.key });
      ctx.require('B-STL-001', response.status === 200, `GET /settlements/${flow.settlementId} answered ${response.status}`);
      const text = JSON.stringify(response.json ?? {});
      ctx.expect('B-STL-001', /escrow/i.test(text), 'no escrow status');
      ctx.expect('B-STL-001', /proof|attest|verif/i.test(text), 'no cross-chain proof verification');
      ctx.expect('B-STL-001', /0x[0-9a-fA-F]{64}/.test(text), 'no settlement hash');
    },
  }),

  check({
    id: 'b.audit',
    title: "GET /api/v1/audit/{tradeId} returns the trade's WORM entries, hash-chained with sequence numbers",
    requirements: ['B-AUD-001', 'X-LED-001'],
    profiles: ONLY_B,
    tags: ['reference-b', 'flow', 'ledger'],
    needs: FLOW_NEEDS,
    phase: PHASE.afterFlows,
    async run(ctx: CheckContext) {
      const flow = await bFlow(ctx);
      let response: WireResponse | undefined;
      for (const id of [...flow.ids].sort(
        (a, b) => ['stl', 'ord', 'rfq', 'qt'].indexOf(a.split('_')[0]!) - ['stl', 'ord', 'rfq', 'qt'].indexOf(b.split('_')[0]!),
      )) {
        response = await ctx.api('GET', `/audit/${id}`, { auth: ctx.key, label: `audit of ${id}` });
        if (response.status === 200) break;
      }
      ctx.require('B-AUD-001', response?.status === 200, `GET /audit/{tradeId} answered ${response?.status} for every id of the trade`);
      const entries =
        quotesOf(response.json).length > 0
          ? quotesOf(response.json)
          : isObject(response.json) && isArray(response.json.entries)
            ? response.json.entries.filter(isObject)
            : [];
      ctx.require('B-AUD-001', entries.length > 0, 'the audit answer lists no entries');
      const problems: string[] = [];
      entries.forEach((e, i) => {
        if (typeof e.hash !== 'string') problems.push(`entry ${i} has no hash`);
        if (!('prevHash' in e) && !('previousHash' in e)) problems.push(`entry ${i} has no previous hash`);
        if (typeof (e.sequence ?? e.seq) !== 'number') problems.push(`entry ${i} has no sequence`);
      });
      ctx.expect('X-LED-001', problems.length === 0, problems.join('; '));
      const sequences = entries.map((e) => Number(e.sequence ?? e.seq));
      ctx.expect(
        'X-LED-001',
        sequences.every((s, i) => i === 0 || s > sequences[i - 1]!),
        `sequences are not increasing: ${sequences.join(', ')}`,
      );
      entries.forEach((e, i) => {
        if (i > 0 && sequences[i] === sequences[i - 1]! + 1) {
          ctx.expect(
            'X-LED-001',
            (e.prevHash ?? e.previousHash) === entries[i - 1]!.hash,
            `entry ${sequences[i]} does not chain to entry ${sequences[i - 1]}`,
          );
        }
      });
      const text = JSON.stringify(response.json).toLowerCase();
      ctx.expect('B-AUD-001', /compliance/.test(text) && /quote/.test(text), 'the audit lacks compliance checks or quotes');
    },
  }),

  check({
    id: 'b.solver-register',
    title: 'POST /api/v1/solver/register registers a solver whose sk_ key authenticates on the solver stream',
    requirements: ['B-SOL-001', 'B-SOL-002', 'X-SOL-002'],
    profiles: ONLY_B,
    tags: ['reference-b', 'solvers'],
    needs: ['apiKey'],
    phase: PHASE.routes,
    async run(ctx: CheckContext) {
      const corridor = ctx.target.corridors[0];
      if (!corridor) ctx.skip('the target lists no corridors');
      const response = await ctx.api('POST', '/solver/register', {
        auth: ctx.key,
        body: {
          name: `conformance-b-${ctx.seed}`,
          corridors: [corridor.id],
          kyb: { legalName: 'Conformance Harness Ltd', jurisdiction: 'GB' },
          pricing: { engine: 'static', marginBps: 10 },
        },
      });
      ctx.require(
        'B-SOL-001',
        response.status >= 200 && response.status < 300,
        `POST /solver/register answered ${response.status}: ${response.text.slice(0, 200)}`,
      );
      const key = /\bsk_(test|live)_[0-9A-Za-z_]+/.exec(response.text)?.[0];
      ctx.require('B-SOL-002', key !== undefined, 'the registration hands out no sk_test_/sk_live_ solver key');
      const opened = await ctx.ws(ctx.target.solverStreamUrl, { label: 'solver stream with the sk_ key' });
      if (isRefusal(opened)) ctx.fail(`the solver stream refused the connection: ${opened.error}`);
      opened.send({ type: 'auth', token: key });
      ctx.expect('B-SOL-002', (await opened.nextOfType('auth.ok', 5_000)) !== undefined, 'the solver key was not answered auth.ok');
      const alias = await WsSession.open(ctx.target.solverStreamUrl.replace('/ws/v1/', '/ws/'), { label: '/ws/solver/stream' });
      ctx.expect('X-SOL-002', !isRefusal(alias), `/ws/solver/stream is not served: ${isRefusal(alias) ? alias.error : ''}`);
      if (!isRefusal(alias)) await alias.close();
    },
  }),
];
