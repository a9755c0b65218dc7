import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MigrationError, type MigrationSet } from './migrations.js';
import { platformMigrations } from './platform-migrations.js';
import { Store } from './store.js';
import { type SqliteDatabase, WAL_CHECKPOINT_PAGES } from './sqlite.js';

const notes: MigrationSet = {
  module: 'notes',
  migrations: [{ name: '001_notes', up: (db) => db.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL)') }],
};

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'store-test-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The file's own properties (WAL, its mode) are SQLite's; under `npm run test:postgres` a file store is a schema. */
const onSqlite = process.env.SANDBOX_TEST_STORE !== 'postgres';

describe('Store', () => {
  it.runIf(onSqlite)('opens a file database in WAL mode and applies each migration once', () => {
    const path = join(tempDir(), 'state', 'service.sqlite');
    const first = Store.open({ path, migrations: [platformMigrations, notes] });
    expect((first.db as SqliteDatabase).raw.pragma('journal_mode', { simple: true })).toBe('wal');
    const ids = (first.db.prepare('SELECT id FROM schema_migrations ORDER BY rowid').all() as Array<{ id: string }>).map((row) => row.id);
    expect(ids).toEqual([
      'platform/001_workspaces_and_keys',
      'platform/002_wallet_users_and_sessions',
      'platform/003_idempotency_and_secrets',
      'platform/004_idempotency_claimed_by',
      'notes/001_notes',
    ]);
    first.db.prepare('INSERT INTO notes (text) VALUES (?)').run('kept');
    first.close();

    const extended: MigrationSet = {
      module: 'notes',
      migrations: [...notes.migrations, { name: '002_tag', up: (db) => db.exec('ALTER TABLE notes ADD COLUMN tag TEXT') }],
    };
    const second = Store.open({ path, migrations: [platformMigrations, extended] });
    expect(second.db.prepare('SELECT text, tag FROM notes').all()).toEqual([{ text: 'kept', tag: null }]);
    second.close();
  });

  it.runIf(onSqlite)('copies the WAL back into the database as it grows, so the WAL file stays bounded', () => {
    const path = join(tempDir(), 'service.sqlite');
    const store = Store.open({ path, migrations: [platformMigrations, notes] });
    const pageBytes = Number((store.db as SqliteDatabase).raw.pragma('page_size', { simple: true }));
    // Each commit writes about 5 pages: 1,600 commits are twice the checkpoint mark.
    const text = 'x'.repeat(4 * pageBytes);
    for (let i = 0; i < 2 * Math.ceil(WAL_CHECKPOINT_PAGES / 5); i++) {
      store.transaction(() => store.db.prepare('INSERT INTO notes (text) VALUES (?)').run(`${i}${text}`));
    }
    // A frame is the page and a 24-byte header; the file keeps the size of its longest run, one commit past the mark.
    const frame = pageBytes + 24;
    expect(statSync(`${path}-wal`).size).toBeLessThanOrEqual(32 + (WAL_CHECKPOINT_PAGES + 10) * frame);
    expect(statSync(path).size).toBeGreaterThan(WAL_CHECKPOINT_PAGES * pageBytes);
    expect(store.db.prepare('SELECT COUNT(*) AS n FROM notes').get()).toEqual({ n: 2 * Math.ceil(WAL_CHECKPOINT_PAGES / 5) });
    store.close();
  });

  it.runIf(onSqlite)('keeps the database and its WAL files owner-only: it holds signing secrets (security review, hardening/)', () => {
    const path = join(tempDir(), 'service.sqlite');
    const store = Store.open({ path, migrations: [platformMigrations, notes] });
    store.transaction(() => store.db.prepare('INSERT INTO notes (text) VALUES (?)').run('x'));
    for (const file of [path, `${path}-wal`, `${path}-shm`]) expect(statSync(file).mode & 0o777, file).toBe(0o600);
    store.close();

    // A store made by an earlier version with the default mode is tightened when opened.
    const older = join(tempDir(), 'older.sqlite');
    Store.open({ path: older, migrations: [platformMigrations] }).close();
    chmodSync(older, 0o644);
    writeFileSync(`${older}-wal`, '', { mode: 0o644 });
    chmodSync(`${older}-wal`, 0o644);
    Store.open({ path: older, migrations: [platformMigrations] }).close();
    expect(statSync(older).mode & 0o777).toBe(0o600);
  });

  it('refuses a database migrated by a newer version', () => {
    const path = join(tempDir(), 'service.sqlite');
    Store.open({ path, migrations: [platformMigrations, notes] }).close();
    expect(() => Store.open({ path, migrations: [platformMigrations] })).toThrow(/notes\/001_notes/);
  });

  it('refuses duplicate migration ids and bad module names', () => {
    const twice: MigrationSet = { module: 'notes', migrations: [notes.migrations[0]!, notes.migrations[0]!] };
    expect(() => Store.open({ path: ':memory:', migrations: [twice] })).toThrow(MigrationError);
    expect(() => Store.open({ path: ':memory:', migrations: [{ module: 'Bad Name', migrations: [] }] })).toThrow(MigrationError);
  });

  it('rolls a failing migration back entirely and records nothing', () => {
    const path = join(tempDir(), 'service.sqlite');
    const broken: MigrationSet = {
      module: 'broken',
      migrations: [
        {
          name: '001_half',
          up: (db) => {
            db.exec('CREATE TABLE half (id INTEGER)');
            db.exec('THIS IS NOT SQL');
          },
        },
      ],
    };
    expect(() => Store.open({ path, migrations: [broken] })).toThrow();
    const store = Store.open({ path, migrations: [] });
    // The half-made table is gone: reading it fails on either store.
    expect(() => store.db.prepare('SELECT id FROM half').all()).toThrow(/half/);
    expect(store.db.prepare('SELECT COUNT(*) AS n FROM schema_migrations').get()).toEqual({ n: 0 });
    store.close();
  });

  it('commits a transaction as a whole or not at all, with nested savepoints', () => {
    const store = Store.open({ path: ':memory:', migrations: [notes] });
    const insert = store.db.prepare('INSERT INTO notes (text) VALUES (?)');
    const count = () => (store.db.prepare('SELECT COUNT(*) AS n FROM notes').get() as { n: number }).n;

    expect(store.transaction(() => insert.run('a').changes)).toBe(1);
    expect(() =>
      store.transaction(() => {
        insert.run('b');
        throw new Error('abort');
      }),
    ).toThrow('abort');
    expect(count()).toBe(1);

    store.transaction(() => {
      insert.run('c');
      expect(() =>
        store.transaction(() => {
          insert.run('d');
          throw new Error('inner');
        }),
      ).toThrow('inner');
    });
    expect(store.db.prepare('SELECT text FROM notes ORDER BY id').all()).toEqual([{ text: 'a' }, { text: 'c' }]);
    store.close();
  });

  it('refuses an async transaction body and rolls it back', () => {
    const store = Store.open({ path: ':memory:', migrations: [notes] });
    expect(() =>
      store.transaction((async () => {
        store.db.prepare('INSERT INTO notes (text) VALUES (?)').run('x');
      }) as unknown as () => void),
    ).toThrow(/synchronous/);
    expect(store.db.prepare('SELECT COUNT(*) AS n FROM notes').get()).toEqual({ n: 0 });
    store.close();
  });

  it('pings while open and not after close', () => {
    const store = Store.open({ path: ':memory:', migrations: [] });
    expect(store.ping()).toBe(true);
    store.close();
    expect(store.ping()).toBe(false);
  });
});

describe.runIf(!onSqlite)('throwaway schemas of the suite on Postgres', () => {
  const ledgerLike: MigrationSet = {
    module: 'ledgerlike',
    migrations: [
      {
        name: '001_entries',
        up: (db) =>
          db.exec(`CREATE TABLE entries (sequence INTEGER PRIMARY KEY AUTOINCREMENT, text TEXT NOT NULL);
            CREATE TABLE tags (entry INTEGER NOT NULL REFERENCES entries (sequence), tag TEXT NOT NULL)`),
      },
    ],
  };
  const schemaOf = (store: Store) => store.postgres?.schema;

  it('hands a closed store’s schema to the next store of the same migrations empty, its identities restarted', () => {
    const first = Store.open({ path: ':memory:', migrations: [ledgerLike] });
    const insert = (store: Store, text: string) =>
      Number(store.db.prepare('INSERT INTO entries (text) VALUES (?)').run(text).lastInsertRowid);
    expect([insert(first, 'a'), insert(first, 'b')]).toEqual([1, 2]);
    first.db.prepare('INSERT INTO tags (entry, tag) VALUES (?, ?)').run(2, 'x');
    const schema = schemaOf(first);
    first.close();

    const second = Store.open({ path: ':memory:', migrations: [ledgerLike] });
    expect(schemaOf(second)).toBe(schema);
    expect(second.db.prepare('SELECT COUNT(*) AS n FROM entries').get()).toEqual({ n: 0 });
    expect(second.db.prepare('SELECT COUNT(*) AS n FROM tags').get()).toEqual({ n: 0 });
    expect(second.db.prepare('SELECT id FROM schema_migrations').all()).toEqual([{ id: 'ledgerlike/001_entries' }]);
    expect(insert(second, 'c')).toBe(1);
    // The first store is closed for good, though its connection now serves the second.
    expect(() => first.db.prepare('SELECT COUNT(*) AS n FROM entries').get()).toThrow(/closed/);
    second.close();
  });

  it('does not hand on a schema its store changed, or one of other migrations', () => {
    const changed = Store.open({ path: ':memory:', migrations: [ledgerLike] });
    changed.db.exec('CREATE TABLE extra (id INTEGER)');
    const schema = schemaOf(changed);
    changed.close();
    const next = Store.open({ path: ':memory:', migrations: [ledgerLike] });
    expect(schemaOf(next)).not.toBe(schema);
    expect(() => next.db.prepare('SELECT id FROM extra').all()).toThrow(/extra/);
    const nextSchema = schemaOf(next);
    next.close();
    const other = Store.open({ path: ':memory:', migrations: [notes] });
    expect(schemaOf(other)).not.toBe(nextSchema);
    other.close();
  });
});
