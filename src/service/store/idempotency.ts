import type { Store } from './store.js';

export type IdempotencyState = 'in_flight' | 'completed';

export interface IdempotencyRecord {
  /** Whose key this is: a workspace id, or `ip:<address>` on public routes. */
  owner: string;
  /** SHA-256 of the Idempotency-Key; the key itself is not stored. */
  keyHash: Buffer;
  /** SHA-256 over method, path and raw body of the first request. */
  fingerprint: Buffer;
  state: IdempotencyState;
  status: number | null;
  contentType: string | null;
  /** The first response's body, sealed (see http/idempotency.ts). */
  body: Buffer | null;
  createdAt: number;
  expiresAt: number;
}

interface IdempotencyRow {
  owner: string;
  key_hash: Buffer;
  fingerprint: Buffer;
  state: IdempotencyState;
  status: number | null;
  content_type: string | null;
  body: Buffer | null;
  created_at: number;
  expires_at: number;
}

export class IdempotencyRepository {
  constructor(private readonly store: Store) {}

  /** The live record for (owner, key), ignoring and removing an expired one. */
  get(owner: string, keyHash: Buffer, now: number): IdempotencyRecord | undefined {
    const row = this.store.db.prepare('SELECT * FROM idempotency_records WHERE owner = ? AND key_hash = ?').get(owner, keyHash) as
      | IdempotencyRow
      | undefined;
    if (row === undefined) return undefined;
    if (row.expires_at <= now) {
      this.store.db
        .prepare('DELETE FROM idempotency_records WHERE owner = ? AND key_hash = ? AND expires_at <= ?')
        .run(owner, keyHash, now);
      return undefined;
    }
    return {
      owner: row.owner,
      keyHash: row.key_hash,
      fingerprint: row.fingerprint,
      state: row.state,
      status: row.status,
      contentType: row.content_type,
      body: row.body,
      createdAt: row.created_at,
      expiresAt: row.expires_at,
    };
  }

  /**
   * Claims (owner, key) for a request about to execute; false when someone holds it already. `claimedBy` is the
   * service instance executing it (see releaseAbandoned).
   */
  claim(owner: string, keyHash: Buffer, fingerprint: Buffer, now: number, expiresAt: number, claimedBy: string | null = null): boolean {
    return this.store.transaction(() => {
      this.store.db
        .prepare('DELETE FROM idempotency_records WHERE owner = ? AND key_hash = ? AND expires_at <= ?')
        .run(owner, keyHash, now);
      return (
        this.store.db
          .prepare(
            `INSERT INTO idempotency_records (owner, key_hash, fingerprint, state, created_at, expires_at, claimed_by)
             VALUES (?, ?, ?, 'in_flight', ?, ?, ?) ON CONFLICT DO NOTHING`,
          )
          .run(owner, keyHash, fingerprint, now, expiresAt, claimedBy).changes === 1
      );
    });
  }

  complete(owner: string, keyHash: Buffer, status: number, contentType: string | null, body: Buffer): void {
    this.store.db
      .prepare(
        `UPDATE idempotency_records SET state = 'completed', status = ?, content_type = ?, body = ?
         WHERE owner = ? AND key_hash = ? AND state = 'in_flight'`,
      )
      .run(status, contentType, body, owner, keyHash);
  }

  /** Drops an in-flight claim whose request never produced a response (client gone, crash). */
  release(owner: string, keyHash: Buffer): void {
    this.store.db.prepare(`DELETE FROM idempotency_records WHERE owner = ? AND key_hash = ? AND state = 'in_flight'`).run(owner, keyHash);
  }

  /**
   * Drops the in-flight claims of instances that no longer run. Called once when an instance starts: such a claim
   * belongs to a process that died mid-request (a crash, SIGKILL), which will never complete or release it; left
   * alone, the key would answer 409 `idempotency_key_in_use` until it expires, 24 h later. Completed responses are
   * kept.
   *
   * On SQLite the starting process is the only one, so every claim in flight is abandoned. On Postgres the other
   * instances may be executing requests right now: an instance runs while its bus or lease session is connected
   * (both carry its id in `application_name`), and Postgres ends those sessions when the process dies. A claim
   * without a claimer was written before claims named one.
   */
  releaseAbandoned(): number {
    if (this.store.dialect === 'sqlite') {
      return this.store.db.prepare(`DELETE FROM idempotency_records WHERE state = 'in_flight'`).run().changes;
    }
    return this.store.db
      .prepare(
        `DELETE FROM idempotency_records WHERE state = 'in_flight' AND (claimed_by IS NULL OR NOT EXISTS (
           SELECT 1 FROM pg_stat_activity
           WHERE application_name IN ('settlement-sandbox bus ' || claimed_by, 'settlement-sandbox lease ' || claimed_by)))`,
      )
      .run().changes;
  }

  deleteExpired(now: number): number {
    return this.store.db.prepare('DELETE FROM idempotency_records WHERE expires_at <= ?').run(now).changes;
  }
}
