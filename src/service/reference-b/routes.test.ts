import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SolverStreamClient, SolverStreamError } from '../../clients/solver-stream-client.js';
import type { EvidenceModule } from '../evidence/module.js';
import { verifyChain } from '../../contracts/ledger/chain.js';
import { type ApiResponse, sampleChains, startTestService, type TestService } from '../../../test/support/service/service.js';

/**
 * Reference B routes without chains: Format B on every error, the codes of the spec's table where no chain is
 * needed, solver registration with its sk_ key on the real solver stream, and an RFQ answered by that solver.
 * (The chain-backed flows and the remaining codes are in flows.test.ts.)
 */
let t: TestService;
const CORRIDOR = 'alpha:USDC-beta:USDC';
const SANCTIONED = '0x00000000000000000000000000000000000BAD01';

beforeAll(async () => {
  t = await startTestService({ chains: sampleChains(), compliance: { sanctioned: [SANCTIONED] } });
});

afterAll(async () => {
  await t?.stop();
});

function expectFormatB(response: ApiResponse, status: number, code: string): void {
  expect({ status: response.status, body: response.body }).toMatchObject({ status, body: { error: { code } } });
  // Format B is exactly {error: {code, message}}: no Format A fields leak into it.
  expect(Object.keys(response.body.error).sort()).toEqual(['code', 'message']);
  expect(response.body.error.message.length).toBeGreaterThan(0);
}

const registration = (overrides: Record<string, unknown> = {}) => ({
  name: 'b-solver',
  corridors: [CORRIDOR],
  kyb: { legalName: 'Example Markets Ltd', jurisdiction: 'GB', registrationNumber: '01234567' },
  pricing: { engine: 'static', marginBps: 8, parameters: { inventory: '5000000' } },
  ...overrides,
});

describe('Format B errors', () => {
  it('400 MISSING_FIELD for a missing field, INVALID_REQUEST for wrong types, unknown fields and broken JSON', async () => {
    expectFormatB(await t.request('POST', '/api/v1/rfq', { body: {} }), 400, 'MISSING_FIELD');
    expectFormatB(await t.request('POST', '/api/v1/accept', { body: { rfqId: 'rfq_x', quoteId: 'qt_x', nonce: 1 } }), 400, 'MISSING_FIELD');
    expectFormatB(
      await t.request('POST', '/api/v1/rfq', { body: { pair: 'USDC/USDC', side: 'sideways', amount: '20000' } }),
      400,
      'INVALID_REQUEST',
    );
    expectFormatB(
      await t.request('POST', '/api/v1/rfq', { body: { pair: 'USDC/USDC', side: 'sell', amount: 20000 } }),
      400,
      'INVALID_REQUEST',
    );
    expectFormatB(
      await t.request('POST', '/api/v1/accept', {
        body: { rfqId: 'rfq_x', quoteId: 'qt_x', signature: `0x${'11'.repeat(65)}`, nonce: 1, extra: true },
      }),
      400,
      'INVALID_REQUEST',
    );
    expectFormatB(
      await t.request('POST', '/api/v1/accept', { raw: '{"rfqId":', headers: { 'Content-Type': 'application/json' } }),
      400,
      'INVALID_REQUEST',
    );
    expectFormatB(await t.request('GET', '/api/v1/quotes/rfq_NOT-AN-ID'), 400, 'INVALID_REQUEST');
    expectFormatB(await t.request('GET', '/api/v1/compliance/status?address=0x12'), 400, 'INVALID_REQUEST');
    expectFormatB(await t.request('GET', '/api/v1/compliance/status'), 400, 'MISSING_FIELD');
    expectFormatB(
      await t.request('POST', '/api/v1/solver/register', {
        body: registration({ kyb: { legalName: 'X', jurisdiction: 'Great Britain' } }),
      }),
      400,
      'INVALID_REQUEST',
    );
    expectFormatB(
      await t.request('POST', '/api/v1/solver/register', { body: registration({ corridors: ['nowhere:USDC-beta:USDC'] }) }),
      400,
      'INVALID_REQUEST',
    );
    // URLs outside the documented patterns: plain http to another host, and hosts WHATWG's parser refuses.
    for (const extra of [
      { callbackUrl: 'http://acme.example/hook' },
      { callbackUrl: 'https://t.S7.y.Ltfz.0:56130/' },
      { kyb: { legalName: 'X', jurisdiction: 'GB', website: 'https://acme.0/' } },
    ])
      expectFormatB(await t.request('POST', '/api/v1/solver/register', { body: registration(extra) }), 400, 'INVALID_REQUEST');
  });

  it('401 UNAUTHORIZED without a key where one is required, INVALID_KEY for a bad or wrong-environment key', async () => {
    expectFormatB(await t.request('GET', '/api/v1/settlements/stl_abc', { key: null }), 401, 'UNAUTHORIZED');
    expectFormatB(await t.request('GET', '/api/v1/audit/rfq_abc', { key: null }), 401, 'UNAUTHORIZED');
    expectFormatB(await t.request('POST', '/api/v1/solver/register', { key: null, body: registration() }), 401, 'UNAUTHORIZED');
    const unknown = `svc_test_${'a'.repeat(16)}_${'0'.repeat(32)}`;
    const live = `svc_live_${'a'.repeat(16)}_${'0'.repeat(32)}`;
    for (const key of [unknown, live, 'not-a-key']) {
      expectFormatB(await t.request('POST', '/api/v1/accept', { key, body: {} }), 401, 'INVALID_KEY');
      expectFormatB(await t.request('GET', '/api/v1/settlements/stl_abc', { key }), 401, 'INVALID_KEY');
    }
  });

  it('404 NOT_FOUND for unknown RFQs, settlements and trades, and for a quote named with another RFQ', async () => {
    expectFormatB(await t.request('GET', '/api/v1/quotes/rfq_unknown'), 404, 'NOT_FOUND');
    expectFormatB(await t.request('GET', '/api/v1/settlements/stl_unknown'), 404, 'NOT_FOUND');
    expectFormatB(await t.request('GET', '/api/v1/settlements/ord_unknown'), 404, 'NOT_FOUND');
    for (const id of ['stl_unknown', 'ord_unknown', 'rfq_unknown', 'qt_unknown'])
      expectFormatB(await t.request('GET', `/api/v1/audit/${id}`), 404, 'NOT_FOUND');
    expectFormatB(
      await t.request('POST', '/api/v1/accept', {
        body: { rfqId: 'rfq_unknown', quoteId: 'qt_unknown', signature: `0x${'11'.repeat(65)}`, nonce: 1 },
      }),
      404,
      'NOT_FOUND',
    );
    // Reference A keeps its own format on the same path for quote ids.
    const quote = await t.request('GET', '/api/v1/quotes/qt_unknown');
    expect(quote.status).toBe(404);
    expect(quote.body.error).toMatchObject({ type: 'not_found', code: 'resource_not_found', param: 'quoteId' });
  });

  it('422 VALIDATION_ERROR for a business rule: an RFQ below the minimum trade size or on an unknown chain', async () => {
    expectFormatB(
      await t.request('POST', '/api/v1/rfq', { body: { pair: 'USDC/USDC', side: 'sell', amount: '5', chain: 'alpha' } }),
      422,
      'VALIDATION_ERROR',
    );
    expectFormatB(
      await t.request('POST', '/api/v1/rfq', { body: { pair: 'USDC/USDC', side: 'sell', amount: '20000', chain: 'gamma' } }),
      422,
      'VALIDATION_ERROR',
    );
    // No solver connected for the corridor.
    expectFormatB(
      await t.request('POST', '/api/v1/rfq', { body: { pair: 'USDC/USDC', side: 'sell', amount: '20000', chain: 'alpha' } }),
      422,
      'VALIDATION_ERROR',
    );
  });

  it('403 COMPLIANCE_FAILED when solver verification fails: the ZZ jurisdiction, or a sanctioned address', async () => {
    const evidence = t.service.module<EvidenceModule>('evidence');
    const before = evidence.ledger.count();
    const zz = await t.request('POST', '/api/v1/solver/register', {
      body: registration({ kyb: { legalName: 'Nowhere Trading', jurisdiction: 'ZZ' } }),
    });
    expectFormatB(zz, 403, 'COMPLIANCE_FAILED');
    expect(zz.body.error.message).toMatch(/KYB \(jurisdiction ZZ cannot be verified\)/);
    const refusedId = /as (slv_[0-9a-z]+)/.exec(zz.body.error.message)![1]!;
    // The refusal is evidence: KYB, sanctions and Travel Rule checks under the would-be solver id.
    expect(evidence.ledger.forTrade(refusedId).map((e) => [e.payload.checkType, e.payload.result])).toEqual([
      ['kyc', 'rejected'],
      ['sanctions', 'approved'],
      ['travel_rule', 'rejected'],
    ]);
    const sanctioned = await t.request('POST', '/api/v1/solver/register', { body: registration({ address: SANCTIONED }) });
    expectFormatB(sanctioned, 403, 'COMPLIANCE_FAILED');
    expect(sanctioned.body.error.message).toMatch(/sanctions \(on the sanctioned list\)/);
    expect(evidence.ledger.count()).toBe(before + 6);
    // Nothing was registered.
    const solvers = await t.request('GET', '/api/v1/solvers?owned=true');
    expect(solvers.body.data.filter((s: { name: string }) => s.name === 'b-solver')).toEqual([]);
    expect(evidence.ledger.verify().ok).toBe(true);
  });

  it('random bodies on every B route answer a Format B 4xx, never a 5xx', async () => {
    const value = fc.oneof(
      fc.jsonValue({ maxDepth: 2 }),
      fc.string({ maxLength: 300 }),
      fc.constantFrom(null, -1, 1.5, '', '0x', 'rfq_', 'qt_', 'ZZ'),
    );
    const body = (fields: string[]) =>
      fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.record(Object.fromEntries(fields.map((f) => [f, value])), { requiredKeys: [] }));
    const routes: Array<[string, string[]]> = [
      ['/api/v1/rfq', ['pair', 'side', 'amount', 'chain', 'destinationChain', 'user', 'lockType']],
      ['/api/v1/accept', ['rfqId', 'quoteId', 'signature', 'nonce', 'user']],
      ['/api/v1/solver/register', ['name', 'corridors', 'kyb', 'pricing', 'address', 'callbackUrl']],
    ];
    for (const [index, [path, fields]] of routes.entries()) {
      for (const sample of fc.sample(body(fields), { seed: 8 + index, numRuns: 40 })) {
        const answer = await t.request('POST', path, { body: sample });
        expect(answer.status, `${path} ${JSON.stringify(sample)}`).toBeGreaterThanOrEqual(400);
        expect(answer.status, `${path} ${JSON.stringify(sample)}`).toBeLessThan(500);
        expect(Object.keys(answer.body.error).sort()).toEqual(['code', 'message']);
        expect(answer.body.error.code).toMatch(/^(INVALID_REQUEST|MISSING_FIELD|VALIDATION_ERROR|NOT_FOUND)$/);
      }
    }
  });

  it('429 RATE_LIMITED with Retry-After once the burst is spent', async () => {
    const limited = await startTestService({ chains: sampleChains(), rateLimit: { perSecond: 1, burst: 2 } });
    try {
      const answers = [];
      for (let i = 0; i < 3; i++) answers.push(await limited.request('POST', '/api/v1/rfq', { body: {} }));
      expect(answers.slice(0, 2).map((a) => a.status)).toEqual([400, 400]);
      expectFormatB(answers[2]!, 429, 'RATE_LIMITED');
      expect(Number(answers[2]!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expectFormatB(await limited.request('GET', '/api/v1/settlements/stl_abc'), 429, 'RATE_LIMITED');
    } finally {
      await limited.stop();
    }
  });
});

describe('solver registration and the RFQ on the solver stream', () => {
  let solver: SolverStreamClient | undefined;
  afterAll(async () => {
    await solver?.close();
  });

  it('registers with KYB and pricing, records the verification, and hands out an sk_test_ key the solver stream accepts', async () => {
    const response = await t.request('POST', '/api/v1/solver/register', {
      body: registration({ address: '0x00000000000000000000000000000000000000A5' }),
    });
    expect(response.status).toBe(201);
    const body = response.body;
    expect(body).toMatchObject({
      name: 'b-solver',
      corridors: [CORRIDOR],
      kyb: { legalName: 'Example Markets Ltd', jurisdiction: 'GB', registrationNumber: '01234567' },
      pricing: { engine: 'static', marginBps: 8, parameters: { inventory: '5000000' } },
      address: '0x00000000000000000000000000000000000000A5',
      compliance: { status: 'approved', mocked: true, kyb: 'approved', sanctions: 'clear', travelRule: 'ready' },
      wsUrl: `${t.url.replace('http', 'ws')}/ws/v1/solver/stream`,
    });
    expect(body.solverKey).toMatch(/^sk_test_[0-9a-f]{48}$/);
    const evidence = t.service.module<EvidenceModule>('evidence');
    const checks = evidence.ledger.forTrade(body.solverId);
    expect(checks.map((e) => e.payload.checkType)).toEqual(['kyc', 'sanctions', 'travel_rule']);
    expect(body.compliance.evidenceHash).toBe(checks[2]!.hash);
    // The key is stored only as a hash.
    const raw = t.service.store.db.prepare('SELECT * FROM reference_b_solver_registrations WHERE solver_id = ?').get(body.solverId);
    expect(JSON.stringify(raw)).not.toContain(body.solverKey.slice(8));

    solver = await SolverStreamClient.connect({ url: body.wsUrl, token: body.solverKey });
    expect(solver.solverId).toBe(body.solverId);
    expect(solver.corridors).toEqual([CORRIDOR]);

    // A key of the wrong environment, a well-formed unknown key and a malformed one are refused (close 1008).
    for (const [token, code] of [
      [`sk_live_${'0'.repeat(48)}`, 'wrong_environment'],
      [`sk_test_${'0'.repeat(48)}`, 'invalid_token'],
      ['sk_test_!', 'invalid_token'],
    ] as const) {
      const refused = await SolverStreamClient.connect({ url: body.wsUrl, token }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(SolverStreamError);
      expect(refused).toMatchObject({ code, closeCode: 1008 });
    }
  });

  it('POST /rfq answers the quotes of the window with price and ttl; GET /quotes/{rfqId} lists every response', async () => {
    solver!.onRfq((rfq) => {
      void solver!.quote({
        rfqId: rfq.rfq.id,
        outputAmount: ((BigInt(rfq.rfq.inputAmount!) * 9_990n) / 10_000n).toString(),
        confidence: 0.9,
      });
    });
    const rfq = await t.request('POST', '/api/v1/rfq', { body: { pair: 'USDC/USDC', side: 'sell', amount: '20000.5', chain: 'alpha' } });
    expect(rfq.status).toBe(200);
    expect(rfq.body).toMatchObject({
      rfq: { pair: 'USDC/USDC', side: 'sell', amount: '20000.5', corridor: CORRIDOR },
      corridor: CORRIDOR,
      quotes: [{ solverId: solver!.solverId, inputAmount: '20000500000', outputAmount: '19980499500', price: '0.999', ttl: 30 }],
    });
    expect(rfq.body.rfq.id).toBe(rfq.body.rfqId);
    expect(rfq.body.rfqId).toMatch(/^rfq_/);

    const view = await t.request('GET', `/api/v1/quotes/${rfq.body.rfqId}`);
    expect(view.status).toBe(200);
    expect(view.body.responses).toEqual([
      expect.objectContaining({
        solverId: solver!.solverId,
        outcome: 'quoted',
        quoteId: rfq.body.quotes[0].quoteId,
        price: '0.999',
        fillRate: null,
        quoteStatus: 'open',
      }),
    ]);
    expect(view.body.responses[0].latencyMs).toBeGreaterThanOrEqual(0);

    // Accepting: a quote must belong to the named RFQ; an expired one is 409 QUOTE_EXPIRED; without a settlement
    // engine (no chains here) a valid acceptance is 503 MAINTENANCE.
    const quoteId = rfq.body.quotes[0].quoteId as string;
    const signature = `0x${'11'.repeat(65)}`;
    const user = '0x00000000000000000000000000000000000000C0';
    expectFormatB(
      await t.request('POST', '/api/v1/accept', { body: { rfqId: 'rfq_other', quoteId, signature, nonce: 1, user } }),
      404,
      'NOT_FOUND',
    );
    expectFormatB(
      await t.request('POST', '/api/v1/accept', { body: { rfqId: rfq.body.rfqId, quoteId, signature, nonce: 1, user } }),
      503,
      'MAINTENANCE',
    );
    await t.clock.advance(30_000);
    expectFormatB(
      await t.request('POST', '/api/v1/accept', { body: { rfqId: rfq.body.rfqId, quoteId, signature, nonce: 1, user } }),
      409,
      'QUOTE_EXPIRED',
    );

    // The audit of an RFQ that never became an order: its request and collected quotes.
    const audit = await t.request('GET', `/api/v1/audit/${rfq.body.rfqId}`);
    expect(audit.status).toBe(200);
    expect(audit.body).toMatchObject({ tradeId: rfq.body.rfqId, settlementId: null, orderId: null, quoteIds: [quoteId] });
    expect(audit.body.entries.map((e: { type: string }) => e.type)).toEqual(['rfq.created', 'quotes.collected']);
    const other = t.service.bootstrapWorkspace('Other');
    expectFormatB(await t.request('GET', `/api/v1/audit/${rfq.body.rfqId}`, { key: other.apiKey }), 404, 'NOT_FOUND');
  });

  it('the OpenAPI document names the Reference B routes with Format B errors', async () => {
    const doc = (await t.request('GET', '/api/v1/openapi.json', { key: null })).body;
    for (const [path, method] of [
      ['/api/v1/rfq', 'post'],
      ['/api/v1/accept', 'post'],
      ['/api/v1/settlements/{id}', 'get'],
      ['/api/v1/audit/{tradeId}', 'get'],
      ['/api/v1/solver/register', 'post'],
      ['/api/v1/compliance/status', 'get'],
    ] as const) {
      const operation = doc.paths[path]?.[method];
      expect(operation, `${method} ${path}`).toBeDefined();
      expect(JSON.stringify(operation.responses)).toContain('#/components/schemas/ErrorB');
    }
    // GET /quotes/{id} is one documented operation: its errors are Format A for qt_ ids and Format B for rfq_ ids.
    const getQuote = doc.paths['/api/v1/quotes/{quoteId}'].get;
    expect(doc.paths['/api/v1/quotes/rfq_{rfqIdSuffix}']).toBeUndefined();
    for (const status of ['400', '404']) {
      const ref = getQuote.responses[status].content['application/json'].schema.$ref.replace('#/components/schemas/', '');
      expect(JSON.stringify(doc.components.schemas[ref])).toContain('#/components/schemas/ErrorB');
      expect(JSON.stringify(doc.components.schemas[ref])).toContain('#/components/schemas/Error"');
    }
    expect(verifyChain(t.service.module<EvidenceModule>('evidence').ledger.iterate()).ok).toBe(true);
  });

  it('an rfq_ id on GET /quotes/{id} takes ?user= (documented, no effect) and answers unknown ids 404 in Format B', async () => {
    const unknown = await t.request('GET', `/api/v1/quotes/rfq_unknown?user=${'0x976EA74026E726554dB657fA54763abd0C3a0aa9'}`);
    expectFormatB(unknown, 404, 'NOT_FOUND');
  });
});
