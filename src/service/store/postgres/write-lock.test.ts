import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auctionMigrations } from '../../auction/migrations.js';
import { RfqRepository } from '../../auction/rfq-repository.js';
import { OutboxRepository, outboxMigrations } from '../../events/outbox.js';
import { LedgerRepository, ledgerMigrations } from '../../ledger/repository.js';
import type { MigrationSet } from '../migrations.js';
import { Store } from '../store.js';
import { findPostgresBinaries, type LocalPostgres, startScratchPostgres } from './local-server.js';

/**
 * The store's write lock on Postgres: when a transaction takes it. By default at BEGIN; with `writeLock: 'deferred'`
 * only at the first ledger or outbox append (or a nested transaction that reads to decide), so its own rows are
 * written while another instance holds the lock. Observed from Postgres's own lock table, and from an outside psql
 * session that holds the lock, as another instance would.
 */
const ownRows: MigrationSet = {
  module: 'write-lock-test',
  migrations: [{ name: '001_own_rows', up: (db) => db.exec('CREATE TABLE own_rows (id TEXT PRIMARY KEY)') }],
};

let server: LocalPostgres;
let store: Store;
let ledger: LedgerRepository;
let outbox: OutboxRepository;
let rfqs: RfqRepository;
let rows = 0;

beforeAll(async () => {
  server = await startScratchPostgres({ prefix: 'write-lock-' });
  store = Store.open({
    path: ':memory:',
    databaseUrl: server.url,
    databaseSchema: 'wl',
    migrations: [ledgerMigrations, outboxMigrations, ownRows, auctionMigrations],
  });
  ledger = new LedgerRepository(store);
  outbox = new OutboxRepository(store);
  rfqs = new RfqRepository(store);
}, 60_000);

afterAll(async () => {
  store?.close();
  await server?.stop();
});

/**
 * Whether this connection (`mine`), or another session (`others`), holds the store's write lock: an advisory lock in
 * the two-key form, classid 0x5a4d and objsubid 2.
 */
function writeLockHeld(by: 'mine' | 'others'): boolean {
  const row = store.db
    .prepare(
      `SELECT COUNT(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND classid = 23117 AND objsubid = 2 AND granted
         AND pid ${by === 'mine' ? '=' : '<>'} pg_backend_pid()`,
    )
    .get() as { n: number };
  return row.n > 0;
}
const holdsWriteLock = () => writeLockHeld('mine');
const othersHoldWriteLock = () => writeLockHeld('others');

const insertOwnRow = () => store.db.prepare('INSERT INTO own_rows (id) VALUES (?)').run(`row_${++rows}`);
const appendEntry = (tradeId: string) =>
  ledger.append({ type: 'test.appended', tradeId, recordedAt: new Date(0).toISOString(), payload: {} });

describe('the store write lock on Postgres', () => {
  it('is held from the start of a transaction by default', () => {
    store.transaction(() => {
      expect(holdsWriteLock()).toBe(true);
    });
    expect(holdsWriteLock()).toBe(false);
  });

  it('deferred: not held for own rows; taken by the first ledger append, held to the commit', () => {
    store.transaction(
      () => {
        insertOwnRow();
        expect(holdsWriteLock()).toBe(false);
        appendEntry('deferred-ledger');
        expect(holdsWriteLock()).toBe(true);
        insertOwnRow();
        expect(holdsWriteLock()).toBe(true);
      },
      { writeLock: 'deferred' },
    );
    expect(holdsWriteLock()).toBe(false);
  });

  it("deferred: an auction's own rows are written without it; a solver's running totals (a row every instance updates) take it", () => {
    // Before the fix, a deferred auction close updated the totals without the lock while another instance, holding
    // it, waited to update the same row: a deadlock, and a 500 on POST /orders (the bench's two-instance row).
    const id = `rfq_lock_${++rows}`;
    store.transaction(
      () => {
        rfqs.insertRfq({
          id,
          workspaceId: null,
          requestId: null,
          corridor: 'alpha:USDC-beta:USDC',
          originChainId: 1,
          destinationChainId: 2,
          inputToken: '0x0000000000000000000000000000000000000001',
          outputToken: '0x0000000000000000000000000000000000000002',
          inputDecimals: 6,
          outputDecimals: 6,
          pair: 'USDC/USDC',
          side: 'sell',
          swapType: 'exactInput',
          amount: 1n,
          preference: 'price',
          lockType: 'Permit2Escrow',
          settlementPath: 'direct',
          user: null,
          attestation: null,
          fillDeadline: 1,
          expires: 2,
          status: 'collecting',
          respondBy: 0,
          quoteExpiresAt: 0,
          eventId: `evt_${id}`,
          createdAt: 0,
          closedAt: null,
        });
        expect(holdsWriteLock()).toBe(false);
        // An auction's close: its rows without the lock, the totals they add up written at the end, under it.
        rfqs.addingUpTotals(() => {
          rfqs.insertInvitation({ rfqId: id, solverId: 'sol_lock', outcome: 'silent', reason: null, latencyMs: null });
          rfqs.insertInvitation({ rfqId: id, solverId: 'sol_lock_2', outcome: 'declined', reason: 'no', latencyMs: 1 });
          expect(holdsWriteLock()).toBe(false);
        });
        expect(holdsWriteLock()).toBe(true);
        // Outside an auction's close, a change to the totals takes the lock at once.
        store.transaction(
          () => {
            rfqs.insertInvitation({ rfqId: id, solverId: 'sol_lock_3', outcome: 'silent', reason: null, latencyMs: null });
            expect(holdsWriteLock()).toBe(true);
          },
          { writeLock: 'deferred' },
        );
      },
      { writeLock: 'deferred' },
    );
    expect(holdsWriteLock()).toBe(false);
    const totals = rfqs.totals();
    expect(totals.get('sol_lock')).toMatchObject({ invited: 1, responded: 0 });
    expect(totals.get('sol_lock_2')).toMatchObject({ invited: 1, responded: 1 });
  });

  it('deferred: taken by an outbox append', () => {
    outbox.commit(
      () => {
        expect(holdsWriteLock()).toBe(false);
        outbox.append({ workspaceId: null, type: 'test.event', generation: 'A', data: {}, at: 0 });
        expect(holdsWriteLock()).toBe(true);
      },
      { writeLock: 'deferred' },
    );
  });

  it('deferred: a nested transaction that decides takes it before it runs, and keeps it', () => {
    store.transaction(
      () => {
        store.transaction(() => expect(holdsWriteLock()).toBe(true));
        expect(holdsWriteLock()).toBe(true);
      },
      { writeLock: 'deferred' },
    );
  });

  it('deferred: an append in a savepoint that rolls back releases it with the savepoint; the next append takes it again', () => {
    const before = ledger.head()?.sequence ?? 0;
    store.transaction(
      () => {
        expect(() =>
          store.transaction(
            () => {
              appendEntry('rolled-back');
              expect(holdsWriteLock()).toBe(true);
              throw new Error('undo');
            },
            { writeLock: 'deferred' },
          ),
        ).toThrow('undo');
        expect(holdsWriteLock()).toBe(false);
        appendEntry('kept');
        expect(holdsWriteLock()).toBe(true);
      },
      { writeLock: 'deferred' },
    );
    expect(ledger.forTrade('rolled-back')).toEqual([]);
    expect(ledger.forTrade('kept').map((entry) => entry.sequence)).toEqual([before + 1]);
    expect(ledger.verify().ok).toBe(true);
  });

  it('while another session holds it: own rows commit without waiting; an append waits for its release', async () => {
    // The other session is psql (libpq, another process), computing the key from the documented formula: namespace
    // 0x5a4d (23117), the schema's hashtext xor 1. It releases the lock by ending its transaction 1.5 s later; the lock table says who holds it when.
    const holder = spawn(join(findPostgresBinaries(), 'psql'), [server.url, '-X', '-A', '-t', '-q'], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let output = '';
    holder.stdout.on('data', (chunk) => (output += String(chunk)));
    holder.stdin.write("BEGIN;\nSELECT pg_advisory_xact_lock(23117, hashtext('wl') # 1);\nSELECT 'held';\n");
    try {
      const started = Date.now();
      while (!output.includes('held')) {
        if (Date.now() - started > 10_000) throw new Error('the outside session never took the lock');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      holder.stdin.write('SELECT pg_sleep(1.5);\nCOMMIT;\n');
      store.transaction(() => insertOwnRow(), { writeLock: 'deferred' });
      // Committed while the other session still holds the lock: it did not wait.
      expect(othersHoldWriteLock()).toBe(true);
      store.transaction(() => appendEntry('after-release'), { writeLock: 'deferred' });
      expect(othersHoldWriteLock()).toBe(false);
      expect(ledger.forTrade('after-release')).toHaveLength(1);
      expect(ledger.verify().ok).toBe(true);
    } finally {
      holder.stdin.end();
      holder.kill('SIGKILL');
    }
  });
});
