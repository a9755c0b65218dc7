import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type LedgerEntry, type LedgerRecord, hashEntry, sealEntry } from '../contracts/ledger/chain.js';
import { canonicalJson, entryPreimage, verifyLedgerEntries, webCryptoDigest } from './ledger-verify.js';
import { ledgerEntriesFrom } from './ledger-view.js';

function chainOf(records: LedgerRecord[]): LedgerEntry[] {
  const entries: LedgerEntry[] = [];
  for (const record of records) entries.push(sealEntry(record, entries.at(-1)));
  return entries;
}

const record = (type: string, tradeId: string, payload: LedgerRecord['payload']): LedgerRecord => ({
  type,
  tradeId,
  recordedAt: '2030-01-01T00:00:05.000Z',
  payload,
});

/** The page gets entries as JSON over the wire: what it verifies is the parsed form. */
const overTheWire = (entries: LedgerEntry[]) => JSON.parse(JSON.stringify(entries)) as LedgerEntry[];

describe('verifyLedgerEntries (WebCrypto, the page’s own canonical JSON)', () => {
  const entries = chainOf([
    record('rfq.created', 'rfq_1', { corridor: 'alpha:USDC-beta:USDC', amount: '25000000000', deadline: 1_893_456_000 }),
    record('quotes.collected', 'rfq_1', {
      quotes: [
        { quoteId: 'qt_b', feeBps: 4 },
        { quoteId: 'qt_a', feeBps: 7 },
      ],
    }),
    record('order.created', 'ord_1', {
      Zebra: true,
      apple: null,
      'ünïcödé ✓': 'héllo "quoted"\n',
      nested: { b: [1, -2, { z: 'x', a: '' }], a: {} },
    }),
    record('order.transition', 'ord_1', { from: 'Deposited', to: 'Filled', txHash: `0x${'ab'.repeat(32)}` }),
  ]);

  it('accepts a chain the service sealed, linked entry to entry', async () => {
    const results = await verifyLedgerEntries(overTheWire(entries));
    expect(results).toEqual(entries.map((entry) => ({ sequence: entry.sequence, hashOk: true, linkOk: true })));
  });

  it('computes the service’s preimage byte for byte', () => {
    for (const entry of entries) {
      const { hash: _hash, ...unsealed } = entry;
      expect(hashEntry(unsealed)).toBe(entry.hash);
      expect(entryPreimage(entry)).toBe(
        `{"payload":${canonicalJson(entry.payload)},"prevHash":"${entry.prevHash}","recordedAt":"${entry.recordedAt}","sequence":${entry.sequence},"tradeId":"${entry.tradeId}","type":"${entry.type}"}`,
      );
    }
  });

  it('names a tampered payload, a tampered hash and a broken link', async () => {
    const wire = overTheWire(entries);
    (wire[2]!.payload as { Zebra: boolean }).Zebra = false;
    wire[3]!.prevHash = `0x${'11'.repeat(32)}`;
    wire[1]!.hash = wire[1]!.hash.replace(/.$/, (c) => (c === '0' ? '1' : '0'));
    const results = await verifyLedgerEntries(wire);
    expect(results[0]).toEqual({ sequence: 1, hashOk: true, linkOk: true });
    expect(results[1]).toMatchObject({ sequence: 2, hashOk: false, reason: 'hash does not match the content' });
    // Entry 3's own content is altered, and its link to the (altered) hash of entry 2 breaks too.
    expect(results[2]).toMatchObject({ sequence: 3, hashOk: false, linkOk: false });
    expect(results[3]).toMatchObject({ sequence: 4, hashOk: false, linkOk: false, reason: 'hash does not match the content' });
  });

  it('checks links only where the neighbour is present (one trade’s entries of a shared chain)', async () => {
    const orderOnly = overTheWire(entries).filter((entry) => entry.tradeId === 'ord_1');
    expect(await verifyLedgerEntries(orderOnly)).toEqual([
      { sequence: 3, hashOk: true, linkOk: null },
      { sequence: 4, hashOk: true, linkOk: true },
    ]);
  });

  it('refuses content the canonical form cannot carry (floats) instead of hashing something else', async () => {
    const wire = overTheWire(entries);
    (wire[0]!.payload as { deadline: number }).deadline = 1.5;
    const [first] = await verifyLedgerEntries(wire);
    expect(first).toMatchObject({ hashOk: false });
    expect(first!.reason).toMatch(/only safe integers/);
  });

  it('says entries are unchecked where WebCrypto is missing (not a secure context)', async () => {
    const [first] = await verifyLedgerEntries(overTheWire(entries).slice(0, 1), null);
    expect(first).toMatchObject({ hashOk: null, linkOk: true });
    expect(first!.reason).toMatch(/WebCrypto unavailable/);
    expect(webCryptoDigest()).toBeDefined();
  });

  it('agrees with the service on any JSON payload', async () => {
    const json = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.constant(null),
        fc.boolean(),
        fc.maxSafeInteger(),
        fc.string({ unit: 'binary' }),
        fc.array(tie('value'), { maxLength: 4 }),
        fc.dictionary(fc.string({ unit: 'binary', maxLength: 6 }), tie('value'), { maxKeys: 4 }),
      ),
    })).value;
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fc.string({ maxLength: 8 }), json, { maxKeys: 5 }), fc.string(), async (payload, type) => {
        const entry = sealEntry(record(type, 'ord_x', payload as LedgerRecord['payload']), undefined);
        const [result] = await verifyLedgerEntries(overTheWire([entry]));
        expect(result).toEqual({ sequence: 1, hashOk: true, linkOk: true });
      }),
      { numRuns: 100 },
    );
  });
});

describe('ledgerEntriesFrom', () => {
  it('reads entries under entries/data or as an array, sorted by sequence, skipping incomplete ones', () => {
    const [a, b] = overTheWire(chainOf([record('x', 'ord_1', {}), record('y', 'ord_1', { k: 1 })]));
    expect(ledgerEntriesFrom({ entries: [b, a] }).map((e) => e.sequence)).toEqual([1, 2]);
    expect(ledgerEntriesFrom({ data: [a] })).toEqual([a]);
    expect(ledgerEntriesFrom([b, { sequence: 9, type: 'no hash' }])).toEqual([b]);
    expect(ledgerEntriesFrom({ error: { code: 'NOT_FOUND' } })).toEqual([]);
  });
});
