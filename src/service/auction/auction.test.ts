/** The auction over real solver stream connections: collection, the window, ranking, storage and evidence. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { TestClock } from '../../clock/index.js';
import type { StandardOrderWire } from '../../contracts/standard-order-wire.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { EvidenceModule } from '../evidence/module.js';
import { TEST_EPOCH } from '../../../test/support/service/service.js';
import {
  ALPHA_BETA_USDC,
  AMOUNT,
  outputBelow,
  startAuctionService,
  TOKENS,
  usdcRequest,
  type AuctionTestService,
} from '../../../test/support/auction.js';

const running: AuctionTestService[] = [];
async function start(windowMs = 3_000): Promise<AuctionTestService> {
  const t = await startAuctionService({ auction: { windowMs } });
  running.push(t);
  return t;
}
afterEach(async () => {
  await Promise.all(running.splice(0).map((t) => t.stop()));
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('auction', () => {
  it('broadcasts the rfq.created envelope, collects every quote and ranks by price', async () => {
    const t = await start();
    const a = await t.solver('a', (rfq) => ({ outputAmount: outputBelow(rfq, 5) }));
    const b = await t.solver('b', (rfq) => ({ outputAmount: outputBelow(rfq, 2) }));
    const c = await t.solver('c', (rfq) => ({ outputAmount: outputBelow(rfq, 9) }));
    const began = performance.now();
    const response = await t.request('POST', '/api/v1/quotes', { body: usdcRequest() });
    const elapsed = performance.now() - began;
    expect(response.status, response.text).toBe(200);
    // Every solver answered: no waiting for the 3 s window.
    expect(elapsed).toBeLessThan(1_500);
    const body = response.body;
    expect(body.quotes.map((q: { solverId: string }) => q.solverId)).toEqual([b.solverId, a.solverId, c.solverId]);
    expect(body.quotes.map((q: { feeBps: number }) => q.feeBps)).toEqual([2, 5, 9]);
    expect(body.quotes.map((q: { rank: number }) => q.rank)).toEqual([1, 2, 3]);
    expect(body.uccpBps).toBe(2);
    expect(body).toMatchObject({ corridor: ALPHA_BETA_USDC, preference: 'price', swapType: 'exactInput' });
    expect(body.requestId).toBe(response.headers.get('x-request-id'));
    expect(body.fillDeadline).toBe(TEST_EPOCH / 1000 + 600);
    expect(body.expires).toBe(TEST_EPOCH / 1000 + 900);
    for (const quote of body.quotes) {
      expect(quote).toMatchObject({
        lockType: 'Permit2Escrow',
        settlementPath: 'direct',
        inputAmount: AMOUNT,
        expiresAt: new Date(TEST_EPOCH + 30_000).toISOString(),
      });
      expect(quote.quoteId).toMatch(/^qt_/);
      expect(quote.priceImpactBps).toBe(quote.feeBps);
      expect(quote.standardOrder).toBeUndefined();
    }
    const broadcast = a.rfqs[0]!;
    expect(broadcast).toMatchObject({
      type: 'rfq.created',
      rfq: {
        id: body.rfqId,
        pair: 'USDC/USDC',
        side: 'sell',
        amount: '25000',
        corridor: ALPHA_BETA_USDC,
        complianceAttestation: null,
        originChainId: 31_337,
        destinationChainId: 31_338,
        inputToken: TOKENS.USDC,
        outputToken: TOKENS.USDC,
        inputAmount: AMOUNT,
        swapType: 'exactInput',
        lockTypes: ['Permit2Escrow'],
        settlementPath: 'direct',
        fillDeadline: body.fillDeadline,
        expires: body.expires,
        minOutputAmount: '24500000000',
      },
    });
    expect(broadcast.id).toMatch(/^evt_/);
    expect(broadcast.rfq.deadline).toBe(Math.ceil((TEST_EPOCH + 3_000) / 1000));
    // All three saw the same envelope.
    expect(b.rfqs[0]).toEqual(broadcast);
    expect(c.rfqs[0]).toEqual(broadcast);
  });

  it('closes at the window when a solver stays silent, and rejects its late quote', async () => {
    const t = await start(250);
    const quick = await t.solver('quick', (rfq) => ({ outputAmount: outputBelow(rfq, 3) }));
    const silent = await t.solver('silent');
    const began = performance.now();
    const response = await t.request('POST', '/api/v1/quotes', { body: usdcRequest() });
    const elapsed = performance.now() - began;
    expect(response.status).toBe(200);
    expect(elapsed).toBeGreaterThanOrEqual(240);
    expect(elapsed).toBeLessThan(2_000);
    expect(response.body.quotes.map((q: { solverId: string }) => q.solverId)).toEqual([quick.solverId]);
    expect(silent.rfqs).toHaveLength(1);
    const late = await silent.client.quote({ rfqId: response.body.rfqId, outputAmount: outputBelow(silent.rfqs[0]!, 1) });
    expect(late).toMatchObject({ type: 'quote.rejected', code: 'rfq_expired', rfqId: response.body.rfqId });
    const lateDecline = await silent.client.decline(response.body.rfqId);
    expect(lateDecline).toMatchObject({ type: 'quote.rejected', code: 'rfq_expired' });
    const view = await t.client.getRfq(response.body.rfqId);
    expect(view.status).toBe('quoted');
    expect(view.responses.map((r) => [r.solverId, r.outcome])).toEqual([
      [quick.solverId, 'quoted'],
      [silent.solverId, 'silent'],
    ]);
  });

  it('a decline counts as an answer; all declines give 422 corridor_unavailable', async () => {
    const t = await start(5_000);
    const quoting = await t.solver('quoting', (rfq) => ({ outputAmount: outputBelow(rfq, 4) }));
    const declining = await t.solver('declining', () => ({ decline: true }));
    const began = performance.now();
    const response = await t.request('POST', '/api/v1/quotes', { body: usdcRequest() });
    expect(response.status).toBe(200);
    expect(performance.now() - began).toBeLessThan(2_000);
    const view = await t.client.getRfq(response.body.rfqId);
    expect(view.responses.find((r) => r.solverId === declining.solverId)).toMatchObject({
      outcome: 'declined',
      reason: 'test decline',
      quoteId: null,
    });
    expect(view.responses.find((r) => r.solverId === quoting.solverId)).toMatchObject({
      outcome: 'quoted',
      rank: 1,
      price: '0.9996',
      fillRate: null,
    });

    await quoting.client.close();
    const none = await t.request('POST', '/api/v1/quotes', { body: usdcRequest() });
    expect(none.status).toBe(422);
    expect(none.body.error).toMatchObject({ code: 'corridor_unavailable', param: 'destinationChainId' });
  });

  it('a solver that disconnects mid-auction is not waited for', async () => {
    const t = await start(10_000);
    await t.solver('answers', (rfq) => ({ outputAmount: outputBelow(rfq, 4) }));
    const leaving = await t.solver('leaves');
    leaving.client.onRfq(() => void leaving.client.close());
    const began = performance.now();
    const response = await t.request('POST', '/api/v1/quotes', { body: usdcRequest() });
    expect(response.status).toBe(200);
    expect(performance.now() - began).toBeLessThan(3_000);
  });

  it('ranks by speed from the solvers’ latency history and by reliability from their fill record', async () => {
    const t = await start();
    const slowCheap = await t.solver('slow but cheap', (rfq) => ({ outputAmount: outputBelow(rfq, 1), delayMs: 120 }));
    const fastDear = await t.solver('fast but dear', (rfq) => ({ outputAmount: outputBelow(rfq, 6) }));
    const order = (body: { quotes: Array<{ solverId: string }> }) => body.quotes.map((q) => q.solverId);

    const byPrice = await t.request('POST', '/api/v1/quotes', { body: usdcRequest({ preference: 'price' }) });
    expect(order(byPrice.body)).toEqual([slowCheap.solverId, fastDear.solverId]);
    const bySpeed = await t.request('POST', '/api/v1/quotes', { body: usdcRequest({ preference: 'speed' }) });
    expect(order(bySpeed.body)).toEqual([fastDear.solverId, slowCheap.solverId]);
    expect(bySpeed.body.uccpBps).toBe(1);
    expect(bySpeed.body.quotes[1].latencyMs).toBeGreaterThanOrEqual(100);

    // Give the cheap solver two refunded orders and the dear one a filled order.
    const book = t.auction.quoteBook;
    const notify = t.auction.notifier;
    const outcomes: Array<[string, 'order.attested' | 'order.refunded']> = [
      [slowCheap.solverId, 'order.refunded'],
      [slowCheap.solverId, 'order.refunded'],
      [fastDear.solverId, 'order.attested'],
    ];
    for (const [index, [solverId, type]] of outcomes.entries()) {
      const response = await t.request('POST', '/api/v1/quotes', { body: usdcRequest() });
      const quote = response.body.quotes.find((q: { solverId: string }) => q.solverId === solverId);
      const orderId = `ord_test${index}`;
      expect(book.accept(quote.quoteId, orderId, t.clock.now())).toBe(true);
      const message =
        type === 'order.refunded'
          ? { type, orderId, onchainOrderId: `0x${'11'.repeat(32)}` as const }
          : {
              type,
              orderId,
              onchainOrderId: `0x${'11'.repeat(32)}` as const,
              lockType: 'Permit2Escrow' as const,
              originChainId: 31_337,
              standardOrder: {} as StandardOrderWire,
              solveParams: [],
            };
      expect(notify.notify(solverId, message)).toBe(1);
      // The outcome is recorded once per order, however often the message is sent.
      notify.notify(solverId, message);
    }
    const byReliability = await t.request('POST', '/api/v1/quotes', { body: usdcRequest({ preference: 'reliability' }) });
    expect(order(byReliability.body)).toEqual([fastDear.solverId, slowCheap.solverId]);

    const leaderboard = await t.client.leaderboard();
    expect(leaderboard.map((row) => [row.solverId, row.wins, row.filled, row.failed, row.fillRate, row.volume])).toEqual([
      [slowCheap.solverId, 2, 0, 2, 0, '50000'],
      [fastDear.solverId, 1, 1, 0, 1, '25000'],
    ]);
    expect(leaderboard[0]).toMatchObject({ rank: 1, quotes: 6, rfqsInvited: 6, responseRate: 1, bestQuotes: 6 });
    expect(leaderboard[1]!.medianQuoteLatencyMs).toBeLessThan(leaderboard[0]!.medianQuoteLatencyMs!);
    const view = await t.client.getRfq(byReliability.body.rfqId);
    expect(view.responses.map((r) => r.fillRate)).toEqual([1, 0]);
  });

  it('exactOutput: solvers quote the input, lowest first; B-style price quotes are converted', async () => {
    const t = await start();
    const byAmount = await t.solver('amount', (rfq) => ({ inputAmount: ((BigInt(rfq.rfq.outputAmount!) * 10_004n) / 10_000n).toString() }));
    const byPrice = await t.solver('price', () => ({ price: '0.9998' }));
    const response = await t.request('POST', '/api/v1/quotes', {
      body: usdcRequest({ swapType: 'exactOutput', inputAmount: undefined, outputAmount: AMOUNT }),
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.quotes.map((q: { solverId: string }) => q.solverId)).toEqual([byPrice.solverId, byAmount.solverId]);
    // 25,000 / 0.9998 rounded up to the unit.
    expect(response.body.quotes[0]).toMatchObject({ outputAmount: AMOUNT, inputAmount: '25005001001' });
    expect(response.body.quotes[1]).toMatchObject({ outputAmount: AMOUNT, inputAmount: '25010000000', feeBps: 3.99 });
    expect(byAmount.rfqs[0]!.rfq).toMatchObject({
      side: 'buy',
      swapType: 'exactOutput',
      outputAmount: AMOUNT,
      maxInputAmount: '25510204081',
    });
  });

  it('rejects quotes that break the RFQ’s terms, with a reason and code', async () => {
    const t = await start(400);
    const solver = await t.solver('tester');
    // A silent second invitee keeps the auction open after the tester's quote, so a duplicate can be tried.
    await t.solver('silent');
    const outsider = await t.solver('other corridor', undefined, ['beta:USDC-alpha:USDC']);
    const pending = t.request('POST', '/api/v1/quotes', { body: usdcRequest() });
    while (solver.rfqs.length === 0) await sleep(5);
    const rfqId = solver.rfqs[0]!.rfq.id;
    const answers = [
      await solver.client.quote({ rfqId, outputAmount: '24000000000' }),
      await solver.client.quote({ rfqId }),
      await solver.client.quote({ rfqId, outputAmount: '24990000000', price: '0.9996' }),
      await solver.client.quote({ rfqId, inputAmount: '1', outputAmount: '24990000000' }),
      await solver.client.quote({ rfqId, outputAmount: '24990000000', lockType: 'ResourceLock' }),
      await solver.client.quote({ rfqId, outputAmount: '24990000000', lockTypes: ['EIP3009Escrow'] }),
      await solver.client.quote({ rfqId, outputAmount: '24990000000', settlementPath: 'compliant' }),
      await solver.client.quote({ rfqId: 'rfq_doesnotexist', outputAmount: '24990000000' }),
      await outsider.client.quote({ rfqId, outputAmount: '24999000000' }),
      await solver.client.quote({ rfqId, outputAmount: '0x10' } as never),
      await solver.client.quote({
        rfqId,
        outputAmount: '24990000000',
        lockTypes: ['Permit2Escrow', 'ResourceLock'],
        clientQuoteId: 'mine-1',
      }),
      await solver.client.quote({ rfqId, outputAmount: '24995000000' }),
    ];
    expect(answers.map((a) => (a.type === 'quote.rejected' ? a.code : a.type))).toEqual([
      'below_minimum',
      'malformed',
      'malformed',
      'malformed',
      'lock_type_unsupported',
      'lock_type_unsupported',
      'settlement_path_unsupported',
      'rfq_unknown',
      'not_invited',
      'malformed',
      'quote.ack',
      'duplicate_quote',
    ]);
    expect(answers[10]).toMatchObject({ clientQuoteId: 'mine-1', quoteId: expect.stringMatching(/^qt_/) });
    expect(answers[0]).toMatchObject({ reason: 'outputAmount must be at least 24500000000' });
    const response = await pending;
    expect(response.status).toBe(200);
    expect(response.body.quotes).toHaveLength(1);
    expect(response.body.quotes[0]).toMatchObject({ quoteId: (answers[10] as { quoteId: string }).quoteId, outputAmount: '24990000000' });
  });

  it('records rfq.created and quotes.collected in the ledger and rfq.created / quote.received in the outbox', async () => {
    const t = await start();
    const a = await t.solver('a', (rfq) => ({ outputAmount: outputBelow(rfq, 5) }));
    await t.solver('b', (rfq) => ({ outputAmount: outputBelow(rfq, 3) }));
    const response = await t.request('POST', '/api/v1/quotes', { body: usdcRequest(), headers: { 'X-Service-Attestation': '0xabcd' } });
    expect(response.status).toBe(200);
    const { rfqId } = response.body;
    expect(a.rfqs[0]!.rfq.complianceAttestation).toBe('0xabcd');
    const evidence = t.service.modules.find((m) => m.name === 'evidence') as EvidenceModule;
    const entries = evidence.ledger.forTrade(rfqId);
    expect(entries.map((e) => e.type)).toEqual(['rfq.created', 'quotes.collected']);
    expect(entries[0]!.payload).toMatchObject({ rfqId, workspaceId: t.workspaceId, amount: AMOUNT, invited: expect.any(Array) });
    expect(entries[1]!.payload).toMatchObject({ rfqId, uccpBps: '3', silent: [], declined: [] });
    expect((entries[1]!.payload.quotes as unknown[]).length).toBe(2);
    expect(evidence.ledger.verify()).toMatchObject({ ok: true });
    const events = evidence.outbox.after(0, 100).filter((e) => e.rfqId === rfqId);
    expect(events.map((e) => [e.envelope.type, e.generation, e.audience, e.workspaceId])).toEqual([
      ['rfq.created', 'B', 'workspace', t.workspaceId],
      ['quote.received', 'B', 'taker', t.workspaceId],
      ['quote.received', 'B', 'taker', t.workspaceId],
    ]);
    expect(events[0]!.envelope.id).toBe(a.rfqs[0]!.id);
    expect(events[1]!.envelope).toMatchObject({
      quote: {
        id: response.body.quotes[0].quoteId,
        rfqId,
        price: '0.9997',
        solverId: response.body.quotes[0].solverId,
        ttl: 30,
        confidence: 1,
      },
    });
  });

  it('quotes expire by the clock; the quote book accepts one open quote per RFQ', async () => {
    const t = await start();
    await t.solver('a', (rfq) => ({ outputAmount: outputBelow(rfq, 5) }));
    await t.solver('b', (rfq) => ({ outputAmount: outputBelow(rfq, 3) }));
    const first = (await t.request('POST', '/api/v1/quotes', { body: usdcRequest() })).body;
    const [best, second] = first.quotes;
    const book = t.auction.quoteBook;
    expect(book.get(best.quoteId)).toMatchObject({
      id: best.quoteId,
      rfqId: first.rfqId,
      status: 'open',
      workspaceId: t.workspaceId,
      corridor: ALPHA_BETA_USDC,
      inputAmount: AMOUNT,
      outputAmount: best.outputAmount,
      lockType: 'Permit2Escrow',
      fillDeadline: first.fillDeadline,
      expires: first.expires,
      expiresAt: TEST_EPOCH + 30_000,
    });
    expect(book.get('qt_nothing')).toBeUndefined();
    expect(book.accept(best.quoteId, 'ord_1', t.clock.now())).toBe(true);
    expect(book.accept(best.quoteId, 'ord_2', t.clock.now())).toBe(false);
    expect(book.accept(second.quoteId, 'ord_3', t.clock.now())).toBe(false);
    expect((await t.client.getQuote(best.quoteId)).status).toBe('accepted');
    expect((await t.client.getQuote(best.quoteId)).orderId).toBe('ord_1');

    const later = (await t.request('POST', '/api/v1/quotes', { body: usdcRequest() })).body;
    const quoteId = later.quotes[0].quoteId;
    await t.clock.advance(29_999);
    expect((await t.client.getQuote(quoteId)).status).toBe('open');
    await t.clock.advance(1);
    expect((await t.client.getQuote(quoteId)).status).toBe('expired');
    expect(book.get(quoteId)?.status).toBe('expired');
    expect(book.accept(quoteId, 'ord_4', t.clock.now())).toBe(false);
    // The accepted quote stays accepted after its expiry time.
    expect((await t.client.getQuote(best.quoteId)).status).toBe('accepted');
    expect(t.clock.pendingJobs().filter((job) => job.name === 'quote.expiry')).toHaveLength(0);
  });

  it('anonymous requests are auctioned too; the RFQ belongs to no workspace', async () => {
    const t = await start();
    await t.solver('a', (rfq) => ({ outputAmount: outputBelow(rfq, 5) }));
    const response = await t.request('POST', '/api/v1/quotes', {
      body: { pair: 'USDC/USDC', side: 'sell', amount: '25000', chain: 'alpha' },
      key: null,
    });
    expect(response.status).toBe(200);
    expect(t.auction.quoteBook.get(response.body.quotes[0].quoteId)?.workspaceId).toBeNull();
    expect(response.body.quotes[0].inputAmount).toBe(AMOUNT);
  });

  it('replays an idempotent quote request without running a second auction', async () => {
    const t = await start();
    const solver = await t.solver('a', (rfq) => ({ outputAmount: outputBelow(rfq, 5) }));
    const headers = { 'Idempotency-Key': 'quote-once' };
    const first = await t.request('POST', '/api/v1/quotes', { body: usdcRequest(), headers });
    const second = await t.request('POST', '/api/v1/quotes', { body: usdcRequest(), headers });
    expect(second.text).toBe(first.text);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(solver.rfqs).toHaveLength(1);
  });
});

/** Runs `body` with a store file in a fresh folder (removed afterwards) and a test clock, for services started twice. */
async function withStoreFolder(prefix: string, body: (storePath: string, clock: TestClock) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  try {
    await body(join(dir, 'service.sqlite'), new TestClock({ start: TEST_EPOCH }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('auction across a restart', () => {
  it('counts an outcome recorded after a restart once: the ranking’s fill rate stays the one the API reports', async () => {
    await withStoreFolder('auction-outcome-', async (storePath, clock) => {
      const first = await startAuctionService({ storePath, clock });
      await first.solver('a', (rfq) => ({ outputAmount: outputBelow(rfq, 5) }));
      const quoteIds: string[] = [];
      for (const _ of [1, 2])
        quoteIds.push((await first.request('POST', '/api/v1/quotes', { body: usdcRequest() })).body.quotes[0].quoteId);
      const solverId = first.auction.quoteBook.get(quoteIds[0]!)!.solverId;
      expect(first.auction.quotes.accept(quoteIds[0]!, 'order-filled', clock.now())).toBe(true);
      expect(first.auction.quotes.accept(quoteIds[1]!, 'order-refunded', clock.now())).toBe(true);
      first.auction.quotes.recordOutcome('order-filled', 'filled');
      await first.stop();

      // The refund is the solver's first event in the new process.
      const second = await startAuctionService({ storePath, clock });
      running.push(second);
      second.auction.quotes.recordOutcome('order-refunded', 'failed');
      const stats = (await second.client.getSolver(solverId)).stats;
      expect({ filled: stats.filled, failed: stats.failed, fillRate: stats.fillRate }).toEqual({ filled: 1, failed: 1, fillRate: 0.5 });
      expect(second.auction.fillRate(solverId)).toBe(0.5);
    });
  });

  it('keeps quotes, re-schedules their expiry and serves the quote book from the store', async () => {
    await withStoreFolder('auction-restart-', async (storePath, clock) => {
      const first = await startAuctionService({ storePath, clock });
      await first.solver('a', (rfq) => ({ outputAmount: outputBelow(rfq, 5) }));
      const body = (await first.request('POST', '/api/v1/quotes', { body: usdcRequest() })).body;
      const quoteId = body.quotes[0].quoteId;
      await first.stop();
      expect(clock.pendingJobs().filter((job) => job.name === 'quote.expiry')).toHaveLength(0);

      const second = await startAuctionService({ storePath, clock });
      running.push(second);
      expect(
        clock
          .pendingJobs()
          .filter((job) => job.name === 'quote.expiry')
          .map((job) => job.at),
      ).toEqual([TEST_EPOCH + 30_000]);
      expect(second.auction.quoteBook.get(quoteId)?.status).toBe('open');
      expect((await second.client.getSolver(body.quotes[0].solverId)).stats.quotes).toBe(1);
      await clock.advance(30_000);
      const row = second.service.store.db.prepare('SELECT status FROM quotes WHERE id = ?').get(quoteId) as { status: string };
      expect(row.status).toBe('expired');
      // A late quote for the old RFQ hears that it closed, not that it never existed.
      const late = await second.solver('late');
      expect(await late.client.quote({ rfqId: body.rfqId, outputAmount: AMOUNT })).toMatchObject({ code: 'rfq_expired' });
    });
  });
});
