import { afterEach, describe, expect, it } from 'vitest';
import { Store } from '../store/store.js';
import { OutboxRepository, outboxMigrations } from '../events/outbox.js';
import { LedgerRepository, ledgerMigrations } from './repository.js';

let store: Store | undefined;
afterEach(() => store?.close());

function open() {
  store = Store.open({ path: ':memory:', migrations: [ledgerMigrations, outboxMigrations] });
  return { store, ledger: new LedgerRepository(store), outbox: new OutboxRepository(store) };
}

describe('ledger repository', () => {
  it('appends a verifiable chain and refuses UPDATE and DELETE', () => {
    const { store, ledger } = open();
    for (let i = 0; i < 5; i++) {
      store.transaction(() =>
        ledger.append({ type: 'order.transition', tradeId: 'ord_a', recordedAt: '2026-01-01T00:00:00.000Z', payload: { i } }),
      );
    }
    expect(ledger.verify()).toMatchObject({ ok: true, entries: 5 });
    expect(() => store.db.prepare('UPDATE ledger_entries SET payload = ? WHERE sequence = 2').run('{"i":9}')).toThrow(/append-only/);
    expect(() => store.db.prepare('DELETE FROM ledger_entries WHERE sequence = 5').run()).toThrow(/append-only/);
    expect(ledger.forTrade('ord_a')).toHaveLength(5);
    if (store.dialect === 'postgres') {
      // TRUNCATE skips row triggers; the ledger's statement trigger refuses it too.
      expect(() => store.db.exec('TRUNCATE ledger_entries')).toThrow(/append-only/);
    }
    expect(ledger.verify()).toMatchObject({ ok: true, entries: 5 });
  });

  it('names the first broken entry after a hand edit around the triggers', () => {
    const { store, ledger } = open();
    for (let i = 0; i < 4; i++) ledger.append({ type: 't', tradeId: 'x', recordedAt: '2026-01-01T00:00:00.000Z', payload: { i } });
    store.db.exec(
      store.dialect === 'postgres'
        ? 'ALTER TABLE ledger_entries DISABLE TRIGGER ledger_entries_no_update'
        : 'DROP TRIGGER ledger_entries_no_update',
    );
    store.db.prepare('UPDATE ledger_entries SET payload = ? WHERE sequence = 3').run('{"i":7}');
    expect(ledger.verify()).toMatchObject({ ok: false, brokenAt: 3 });
  });

  // SQLite stores a type per value, so a file edit can turn one payload into a BLOB; a Postgres column has one type.
  it.runIf(process.env.SANDBOX_TEST_STORE !== 'postgres')(
    'a payload turned from TEXT into a BLOB of the same bytes is a broken entry (found by the tamper campaign)',
    () => {
      const { store, ledger } = open();
      for (let i = 0; i < 3; i++) ledger.append({ type: 't', tradeId: 'x', recordedAt: '2026-01-01T00:00:00.000Z', payload: { i } });
      store.db.exec('DROP TRIGGER ledger_entries_no_update');
      // What flipping the lowest bit of the column's serial type in the file does: same bytes, stored as a BLOB.
      store.db.prepare('UPDATE ledger_entries SET payload = CAST(payload AS BLOB) WHERE sequence = 2').run();
      expect(store.db.prepare('SELECT typeof(payload) AS t FROM ledger_entries WHERE sequence = 2').get()).toEqual({ t: 'blob' });
      expect(ledger.verify()).toMatchObject({ ok: false, brokenAt: 2, reason: 'hash does not match the content' });
      expect(ledger.get(2)?.payload).toEqual({ unparseable: '<stored as blob>' });
    },
  );

  it('rolls back the entry and the event together and publishes only committed events', () => {
    const { ledger, outbox } = open();
    const heard: string[] = [];
    outbox.onCommitted((e) => heard.push(e.envelope.type));
    expect(() =>
      outbox.commit(() => {
        ledger.append({ type: 'order.created', tradeId: 'ord_b', recordedAt: '2026-01-01T00:00:00.000Z', payload: {} });
        outbox.append({
          workspaceId: 'ws_1',
          type: 'order.created',
          generation: 'A',
          orderId: 'ord_b',
          data: { order: { id: 'ord_b' } },
          at: 0,
        });
        throw new Error('relay refused');
      }),
    ).toThrow('relay refused');
    expect(ledger.count()).toBe(0);
    expect(outbox.lastSeq()).toBe(0);
    expect(heard).toEqual([]);

    outbox.commit(() => {
      ledger.append({ type: 'order.created', tradeId: 'ord_b', recordedAt: '2026-01-01T00:00:00.000Z', payload: {} });
      outbox.append({
        workspaceId: 'ws_1',
        type: 'order.created',
        generation: 'A',
        orderId: 'ord_b',
        data: { order: { id: 'ord_b' } },
        at: 0,
      });
    });
    expect(heard).toEqual(['order.created']);
    const [event] = outbox.after(0);
    expect(event!.envelope).toMatchObject({
      type: 'order.created',
      id: expect.stringMatching(/^evt_/),
      timestamp: '1970-01-01T00:00:00.000Z',
      order: { id: 'ord_b' },
    });
  });
});
