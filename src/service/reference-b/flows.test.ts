import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { TakerStreamClient, type StreamMessage } from '../../clients/ws-client.js';
import { verifyWebhook } from '../../clients/webhook-verifier.js';
import { typedDataFromJson } from '../../contracts/typed-data.js';
import { type ReferenceSolvers, startReferenceSolvers } from '../../solvers/index.js';
import type { EvidenceModule } from '../evidence/module.js';
import { type LedgerEntry, verifyChain, verifyEntries } from '../../contracts/ledger/chain.js';
import type { ServiceConfig } from '../config.js';
import type { RealtimeConfig } from '../realtime-config.js';
import { startSettlementHarness, type SettlementHarness } from '../../../test/support/settlement/harness.js';
import { eventually } from '../../../test/support/settlement/wait.js';
import { TestReceiver } from '../../../test/support/webhooks/receiver.js';

/**
 * Reference B end to end on real chains: two anvil chains with the contracts, the service with webhook profile B,
 * three reference solvers over the real solver stream, a taker on the taker WebSocket (B channels, corridor filter)
 * and a signed-webhook receiver. Sequences are read on both channels; the audit trail is checked against the ledger.
 */
let h: SettlementHarness;
let solvers: ReferenceSolvers;
let stream: TakerStreamClient;
/** Subscribed to the same channels for the reverse corridor only: sees none of the trades below. */
let otherCorridor: TakerStreamClient;
const otherMessages: StreamMessage[] = [];
let receiver: TestReceiver;
let webhookSecret: string;
const messages: StreamMessage[] = [];
const CHANNELS = ['rfq.*', 'quote.*', 'settlement.*', 'audit.recorded'];
const B_TYPES = new Set([
  'rfq.created',
  'quote.received',
  'quote.accepted',
  'settlement.pending',
  'settlement.complete',
  'settlement.failed',
  'audit.recorded',
]);

interface Answer {
  status: number;
  body: any;
}

async function call(
  method: string,
  path: string,
  options: { body?: unknown; key?: string | null; attestation?: string } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {};
  const key = options.key === undefined ? h.apiKey : options.key;
  if (key !== null) headers.Authorization = `Bearer ${key}`;
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  if (options.attestation !== undefined) headers['X-Service-Attestation'] = options.attestation;
  const response = await fetch(`${h.service.url}${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
}

function expectError(answer: Answer, status: number, code: string): void {
  expect({ status: answer.status, error: answer.body?.error }).toEqual({ status, error: { code, message: expect.any(String) } });
}

function corridor(): string {
  const [alpha, beta] = h.manifest.chains;
  return `${alpha!.name}:USDC-${beta!.name}:USDC`;
}

/** The B events of one trade, in arrival order, from the taker stream. */
function streamEvents(ids: readonly string[]): StreamMessage[] {
  return messages.filter((m) => B_TYPES.has(m.type) && ids.some((id) => JSON.stringify(m).includes(id)));
}

function webhookEvents(ids: readonly string[]): Array<{ type: string; id: string; [key: string]: unknown }> {
  return (
    receiver.requests
      // Signed with the sandbox clock's time when sent: judge their age by the clock when they arrived.
      .map(
        (request) =>
          verifyWebhook({
            secret: webhookSecret,
            rawBody: request.body,
            headers: request.headers,
            nowSeconds: Math.floor(request.at / 1000),
          }).event,
      )
      .filter((event) => ids.some((id) => JSON.stringify(event).includes(id)))
  );
}

interface Flow {
  taker: ReturnType<typeof privateKeyToAccount>;
  rfq: any;
  quote: any;
  signature: `0x${string}`;
  acceptBody: Record<string, unknown>;
}

/** RFQ in Reference B's shape, and the taker's signature over the best quote's typed data. */
async function rfqAndSign(takerIndex: number, extra: Record<string, unknown> = {}): Promise<Flow> {
  const taker = privateKeyToAccount(h.manifest.accounts.takers[takerIndex]!.privateKey);
  const rfq = await call('POST', '/api/v1/rfq', {
    body: { pair: 'USDC/USDC', side: 'sell', amount: '20000', chain: h.manifest.chains[0]!.name, user: taker.address, ...extra },
  });
  expect(rfq.status, JSON.stringify(rfq.body)).toBe(200);
  const quote = rfq.body.quotes[0];
  const signature = await taker.signTypedData(typedDataFromJson(quote.typedData) as Parameters<typeof taker.signTypedData>[0]);
  return {
    taker,
    rfq: rfq.body,
    quote,
    signature,
    acceptBody: { rfqId: rfq.body.rfqId, quoteId: quote.quoteId, signature, nonce: Number(quote.nonce), user: taker.address },
  };
}

async function settlementWhen(id: string, status: string): Promise<any> {
  return eventually(
    async () => {
      const answer = await call('GET', `/api/v1/settlements/${id}`);
      return answer.body?.status === status ? answer.body : undefined;
    },
    20_000,
    `settlement ${id} ${status}`,
  );
}

beforeAll(async () => {
  h = await startSettlementHarness({ service: { webhookProfile: 'B' } as Partial<ServiceConfig> & RealtimeConfig });
  solvers = await startReferenceSolvers({
    manifest: { ...h.manifest, api: { url: h.service.url, wsUrl: h.service.wsUrl, workspaceId: h.workspaceId, apiKeys: [h.apiKey] } },
    count: 3,
  });
  receiver = await TestReceiver.start(() => h.clock.now());
  const webhook = await call('POST', '/api/v1/webhooks', {
    body: { url: receiver.url, events: ['rfq.*', 'quote.*', 'settlement.*', 'audit.recorded'] },
  });
  expect(webhook.status).toBe(201);
  webhookSecret = webhook.body.signingKey;
  stream = await TakerStreamClient.connect({ url: h.service.wsUrl, token: h.apiKey });
  const ok = await stream.subscribe({ channels: CHANNELS, corridors: [corridor()] });
  expect(ok.ok).toMatchObject({ type: 'subscribe.ok', channels: CHANNELS });
  stream.on((message) => messages.push(message));
  otherCorridor = await TakerStreamClient.connect({ url: h.service.wsUrl, token: h.apiKey });
  const [alpha, beta] = h.manifest.chains;
  await otherCorridor.subscribe({ channels: CHANNELS, corridors: [`${beta!.name}:USDC-${alpha!.name}:USDC`] });
  otherCorridor.on((message) => otherMessages.push(message));
}, 90_000);

afterAll(async () => {
  await stream?.close();
  await otherCorridor?.close();
  await solvers?.stop();
  await receiver?.stop();
  await h?.stop();
});

describe('Reference B on real chains', () => {
  it('success: rfq.created, quote.received ×3, quote.accepted, settlement.pending, settlement.complete, audit.recorded on the WebSocket and on webhooks', async () => {
    const flow = await rfqAndSign(0);
    expect(flow.rfq.quotes).toHaveLength(3);
    for (const quote of flow.rfq.quotes)
      expect(quote).toMatchObject({ price: expect.stringMatching(/^0\.99\d*$/), ttl: 30, nonce: flow.quote.nonce });

    const responses = await call('GET', `/api/v1/quotes/${flow.rfq.rfqId}`, { key: null });
    expect(responses.body.responses).toHaveLength(3);
    expect(responses.body.responses.map((r: { quoteId: string }) => r.quoteId)).toEqual(
      flow.rfq.quotes.map((q: { quoteId: string }) => q.quoteId),
    );

    const accepted = await call('POST', '/api/v1/accept', { body: flow.acceptBody });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(201);
    const { settlementId, orderId } = accepted.body;
    expect(settlementId).toMatch(/^stl_/);
    expect(accepted.body).toMatchObject({
      rfqId: flow.rfq.rfqId,
      quoteId: flow.quote.quoteId,
      status: 'pending',
      price: flow.quote.price,
      escrow: {
        status: 'locked',
        chainId: h.manifest.chains[0]!.chainId,
        lockType: 'Permit2Escrow',
        depositTxHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      },
    });
    // Accepting twice, or a sibling quote of the same RFQ: the RFQ is taken.
    expectError(await call('POST', '/api/v1/accept', { body: flow.acceptBody }), 409, 'ALREADY_ACCEPTED');
    const sibling = flow.rfq.quotes[1];
    expectError(
      await call('POST', '/api/v1/accept', {
        body: {
          ...flow.acceptBody,
          quoteId: sibling.quoteId,
          signature: await flow.taker.signTypedData(typedDataFromJson(sibling.typedData) as never),
        },
      }),
      409,
      'ALREADY_ACCEPTED',
    );

    const settled = await settlementWhen(settlementId, 'complete');
    const order = await h.rest.getOrder(orderId);
    expect(settled).toMatchObject({
      settlementId,
      orderId,
      orderStatus: 'Claimed',
      escrow: {
        status: 'released',
        depositTxHash: accepted.body.escrow.depositTxHash,
        releaseTxHash: order.claimTxHash,
        refundTxHash: null,
      },
      proof: { status: 'verified', verified: true, fillTxHash: order.destinationTxHash, attestationTxHash: order.oracleAttestationHash },
      settlementHash: order.claimTxHash,
      error: null,
    });
    expect(settled.proof.payloadHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await call('GET', `/api/v1/settlements/${orderId}`)).toMatchObject({ status: 200, body: { settlementId } });

    const ids = [flow.rfq.rfqId, settlementId];
    await eventually(() => streamEvents(ids).some((e) => e.type === 'audit.recorded') || undefined, 10_000, 'audit.recorded on the stream');
    const events = streamEvents(ids);
    expect(events.map((e) => e.type)).toEqual([
      'rfq.created',
      'quote.received',
      'quote.received',
      'quote.received',
      'quote.accepted',
      'settlement.pending',
      'settlement.complete',
      'audit.recorded',
    ]);
    const byType = (type: string) => events.find((e) => e.type === type)! as Record<string, any>;
    expect(byType('rfq.created').rfq).toMatchObject({
      id: flow.rfq.rfqId,
      pair: 'USDC/USDC',
      side: 'sell',
      amount: '20000',
      corridor: corridor(),
    });
    for (const received of events.filter((e) => e.type === 'quote.received'))
      expect(received.quote).toMatchObject({ rfqId: flow.rfq.rfqId, corridor: corridor() });
    expect(
      events
        .filter((e) => e.type === 'quote.received')
        .map((e) => (e.quote as { id: string }).id)
        .sort(),
    ).toEqual(flow.rfq.quotes.map((q: { quoteId: string }) => q.quoteId).sort());
    expect(byType('quote.accepted')).toMatchObject({
      quote: { id: flow.quote.quoteId, price: flow.quote.price, rfqId: flow.rfq.rfqId },
      settlement: { id: settlementId, status: 'pending', corridor: corridor() },
    });
    expect(byType('settlement.pending').settlement).toMatchObject({
      id: settlementId,
      escrowTxHash: accepted.body.escrow.depositTxHash,
      originChainId: h.manifest.chains[0]!.chainId,
      destinationChainId: h.manifest.chains[1]!.chainId,
      fillDeadline: flow.rfq.fillDeadline,
    });
    expect(byType('settlement.complete').settlement).toMatchObject({
      id: settlementId,
      originTxHash: accepted.body.escrow.depositTxHash,
      destinationTxHash: order.destinationTxHash,
      claimTxHash: order.claimTxHash,
      amount: (Number(flow.quote.outputAmount) / 1e6).toString(),
      settledAt: order.settledAt,
    });
    const audit = byType('audit.recorded').audit;
    expect(audit).toMatchObject({ tradeId: orderId, type: 'compliance.check', checkType: 'settlement_audit', settlementId });
    for (const event of events) expect(event.id).toMatch(/^evt_/);

    // Every B event names its corridor: a subscription filtered to another corridor saw none of them.
    expect(otherMessages.filter((m) => B_TYPES.has(m.type))).toEqual([]);
    // The same events, with the same ids, reach the webhook (delivery order is not guaranteed, ids are).
    await eventually(() => webhookEvents(ids).length >= events.length || undefined, 10_000, 'webhook deliveries');
    expect(new Set(webhookEvents(ids).map((e) => e.id))).toEqual(new Set(events.map((e) => e.id)));

    // The audit trail: complete, verifiable from the entries alone, equal to the ledger, closing with the audited entry.
    const trail = await call('GET', `/api/v1/audit/${settlementId}`);
    expect(trail.status).toBe(200);
    expect(trail.body).toMatchObject({ tradeId: orderId, settlementId, orderId, rfqId: flow.rfq.rfqId });
    const entries = trail.body.entries as Array<LedgerEntry & { neighbours: { next: { prevHash: string } | null } }>;
    expect(entries.map((e) => e.type)).toEqual([
      'rfq.created',
      'quotes.collected',
      'order.created',
      'order.transition',
      'order.transition',
      'order.transition',
      'compliance.check',
    ]);
    const bare = entries.map(({ neighbours: _n, ...entry }) => entry as LedgerEntry);
    expect(verifyEntries(bare)).toEqual({ ok: true, invalid: [] });
    const ledger = h.service.module<EvidenceModule>('evidence').ledger;
    for (const entry of bare) expect(entry).toEqual(ledger.get(entry.sequence));
    for (const entry of entries) if (entry.neighbours.next !== null) expect(entry.neighbours.next.prevHash).toBe(entry.hash);
    expect(entries.at(-1)).toMatchObject({ hash: audit.hash, prevHash: audit.prevHash, sequence: audit.sequence });
    expect(trail.body.verification).toMatchObject({ algorithm: 'sha256', selfCheck: { ok: true, invalid: [] } });
    expect(verifyChain(ledger.iterate()).ok).toBe(true);
    // Tampering with any entry is caught by the client's own recomputation.
    const tampered = bare.map((entry, index) =>
      index === 3 ? { ...entry, payload: { ...entry.payload, txHash: `0x${'00'.repeat(32)}` } } : entry,
    );
    expect(verifyEntries(tampered)).toEqual({ ok: false, invalid: [bare[3]!.sequence] });
    // Any id of the trade names the same trail; another workspace sees none of it.
    for (const id of [orderId, flow.rfq.rfqId, flow.quote.quoteId, sibling.quoteId]) {
      expect((await call('GET', `/api/v1/audit/${id}`)).body.entries).toEqual(
        entries.map((e) => ({ ...e, neighbours: expect.anything() })),
      );
    }
    const other = h.service.bootstrapWorkspace('Someone else');
    expectError(await call('GET', `/api/v1/audit/${settlementId}`, { key: other.apiKey }), 404, 'NOT_FOUND');
    expectError(await call('GET', `/api/v1/settlements/${settlementId}`, { key: other.apiKey }), 404, 'NOT_FOUND');
  }, 60_000);

  it('failure: quote.accepted, settlement.pending, settlement.failed, audit.recorded when no solver fills and the escrow refunds', async () => {
    for (const solver of solvers.solvers) solver.setBehaviour({ fill: 'never' });
    try {
      const flow = await rfqAndSign(1);
      const accepted = await call('POST', '/api/v1/accept', { body: flow.acceptBody });
      expect(accepted.status, JSON.stringify(accepted.body)).toBe(201);
      const { settlementId, orderId } = accepted.body;
      expect((await call('GET', `/api/v1/settlements/${settlementId}`)).body).toMatchObject({
        status: 'pending',
        escrow: { status: 'locked' },
        proof: { status: 'awaiting_fill', verified: false },
      });

      await h.clock.advanceTo((accepted.body.expires + 1) * 1_000);
      const failed = await settlementWhen(settlementId, 'failed');
      const order = await h.rest.getOrder(orderId);
      expect(order.refundTxHash).toMatch(/^0x[0-9a-f]{64}$/);
      expect(failed).toMatchObject({
        orderStatus: 'Refunded',
        escrow: { status: 'refunded', refundTxHash: order.refundTxHash },
        settlementHash: order.refundTxHash,
        error: 'fill_deadline_expired',
      });

      const ids = [flow.rfq.rfqId, settlementId];
      await eventually(
        () => streamEvents(ids).some((e) => e.type === 'audit.recorded') || undefined,
        10_000,
        'audit.recorded on the stream',
      );
      const events = streamEvents(ids);
      expect(events.map((e) => e.type)).toEqual([
        'rfq.created',
        'quote.received',
        'quote.received',
        'quote.received',
        'quote.accepted',
        'settlement.pending',
        'settlement.failed',
        'audit.recorded',
      ]);
      expect(events.find((e) => e.type === 'settlement.failed')).toMatchObject({
        settlement: {
          id: settlementId,
          status: 'failed',
          error: 'fill_deadline_expired',
          refundTxHash: order.refundTxHash,
          refundedAt: expect.any(String),
        },
      });
      const audit = events.at(-1)!.audit as { hash: string; tradeId: string };
      expect(audit.tradeId).toBe(orderId);
      await eventually(() => webhookEvents(ids).length >= events.length || undefined, 10_000, 'webhook deliveries');
      expect(new Set(webhookEvents(ids).map((e) => e.id))).toEqual(new Set(events.map((e) => e.id)));

      const trail = await call('GET', `/api/v1/audit/${orderId}`);
      const entries = (trail.body.entries as Array<LedgerEntry & { neighbours: unknown }>).map(
        ({ neighbours: _n, ...entry }) => entry as LedgerEntry,
      );
      expect(entries.map((e) => e.type)).toEqual([
        'rfq.created',
        'quotes.collected',
        'order.created',
        'order.transition',
        'compliance.check',
      ]);
      expect(entries.at(-1)).toMatchObject({ hash: audit.hash, payload: { checkType: 'settlement_audit', result: 'refunded' } });
      expect(verifyEntries(entries).ok).toBe(true);
    } finally {
      for (const solver of solvers.solvers) solver.setBehaviour({});
    }
  }, 60_000);

  it('QUOTE_EXPIRED after the quote lifetime, VALIDATION_ERROR for a signature of another key, nothing on chain', async () => {
    const flow = await rfqAndSign(2);
    const stranger = privateKeyToAccount(generatePrivateKey());
    const forged = await stranger.signTypedData(typedDataFromJson(flow.quote.typedData) as never);
    expectError(await call('POST', '/api/v1/accept', { body: { ...flow.acceptBody, signature: forged } }), 422, 'VALIDATION_ERROR');
    await h.clock.advanceTo(Date.parse(flow.quote.expiresAt));
    expectError(await call('POST', '/api/v1/accept', { body: flow.acceptBody }), 409, 'QUOTE_EXPIRED');
    expect(h.orders().orders.byQuote(flow.quote.quoteId)).toBeUndefined();
  }, 30_000);

  it('webhook profile B: a failing endpoint gets 5 attempts (now, +5 s, +30 s, +5 min, +1 h) and is disabled after the 5th failure', async () => {
    const failing = await TestReceiver.start(() => h.clock.now());
    failing.answer = () => ({ status: 500 });
    try {
      const webhook = await call('POST', '/api/v1/webhooks', { body: { url: failing.url, events: ['quote.accepted'] } });
      expect(webhook.status).toBe(201);
      const flow = await rfqAndSign(4);
      const accepted = await call('POST', '/api/v1/accept', { body: flow.acceptBody });
      expect(accepted.status, JSON.stringify(accepted.body)).toBe(201);
      await settlementWhen(accepted.body.settlementId, 'complete');
      await eventually(() => failing.requests.length === 1 || undefined, 5_000, 'the first attempt');
      const first = failing.requests[0]!.at;
      await h.clock.advanceTo(first + 2 * 3_600_000);
      const offsets = failing.requests.map((r) => Math.round((r.at - first) / 1_000));
      expect(offsets).toEqual([0, 5, 35, 335, 3_935]);
      expect(new Set(failing.requests.map((r) => JSON.parse(r.body).id)).size).toBe(1);
      expect(new Set(failing.requests.map((r) => r.headers['x-service-deliveryid'])).size).toBe(5);
      const after = await call('GET', `/api/v1/webhooks/${webhook.body.webhookId}`);
      expect(after.body).toMatchObject({ status: 'disabled', active: false });
    } finally {
      await failing.stop();
    }
  }, 60_000);

  it('compliant rail: ATTESTATION_EXPIRED without a fresh attestation or with another participant’s; accepted with one', async () => {
    const flow = await rfqAndSign(3, { settlementPath: 'compliant' });
    expect(flow.quote.settlementPath).toBe('compliant');
    expectError(await call('POST', '/api/v1/accept', { body: flow.acceptBody }), 403, 'ATTESTATION_EXPIRED');
    const someoneElse = await call('GET', `/api/v1/compliance/status?address=${h.manifest.accounts.takers[4]!.address}`);
    expectError(
      await call('POST', '/api/v1/accept', { body: flow.acceptBody, attestation: someoneElse.body.attestation.hash }),
      403,
      'ATTESTATION_EXPIRED',
    );
    const status = await call('GET', `/api/v1/compliance/status?address=${flow.taker.address}`);
    expect(status.body).toMatchObject({ kyc: 'approved', sanctions: 'clear', travelRule: 'ready', mocked: true });
    const accepted = await call('POST', '/api/v1/accept', { body: flow.acceptBody, attestation: status.body.attestation.hash });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(201);
    await settlementWhen(accepted.body.settlementId, 'complete');
    const trail = await call('GET', `/api/v1/audit/${accepted.body.settlementId}`);
    const checks = (trail.body.entries as LedgerEntry[]).filter((e) => e.type === 'compliance.check').map((e) => e.payload.checkType);
    expect(checks).toEqual(['attestation', 'kyc', 'sanctions', 'travel_rule', 'settlement_audit']);
  }, 60_000);
});
