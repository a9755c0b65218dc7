import type { Store } from './store.js';

export type KeyEnvironment = 'test' | 'live';

export interface ApiKeyRecord {
  /** The `key_id` part of `svc_{env}_{key_id}_{random_hex}`; the lookup key. */
  id: string;
  workspaceId: string;
  environment: KeyEnvironment;
  /** SHA-256 of the whole key string; the key itself is never stored. */
  secretHash: Buffer;
  /** Last four characters, to tell keys apart in listings. */
  last4: string;
  createdAt: number;
  /** Set when the key was rotated: it keeps working until then. */
  expiresAt: number | null;
  revokedAt: number | null;
  replacedBy: string | null;
  lastUsedAt: number | null;
}

interface ApiKeyRow {
  id: string;
  workspace_id: string;
  environment: KeyEnvironment;
  secret_hash: Buffer;
  last4: string;
  created_at: number;
  expires_at: number | null;
  revoked_at: number | null;
  replaced_by: string | null;
  last_used_at: number | null;
}

const toRecord = (row: ApiKeyRow): ApiKeyRecord => ({
  id: row.id,
  workspaceId: row.workspace_id,
  environment: row.environment,
  secretHash: row.secret_hash,
  last4: row.last4,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
  revokedAt: row.revoked_at,
  replacedBy: row.replaced_by,
  lastUsedAt: row.last_used_at,
});

export class ApiKeyRepository {
  constructor(private readonly store: Store) {}

  insert(key: ApiKeyRecord): void {
    this.store.db
      .prepare(
        `INSERT INTO api_keys (id, workspace_id, environment, secret_hash, last4, created_at, expires_at, revoked_at, replaced_by, last_used_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        key.id,
        key.workspaceId,
        key.environment,
        key.secretHash,
        key.last4,
        key.createdAt,
        key.expiresAt,
        key.revokedAt,
        key.replacedBy,
        key.lastUsedAt,
      );
  }

  get(id: string): ApiKeyRecord | undefined {
    const row = this.store.db.prepare('SELECT * FROM api_keys WHERE id = ?').get(id) as ApiKeyRow | undefined;
    return row && toRecord(row);
  }

  listByWorkspace(workspaceId: string): ApiKeyRecord[] {
    const rows = this.store.db
      .prepare('SELECT * FROM api_keys WHERE workspace_id = ? ORDER BY created_at, id')
      .all(workspaceId) as ApiKeyRow[];
    return rows.map(toRecord);
  }

  /** Marks a key as replaced; it stays valid until `expiresAt` (the rotation grace). */
  markRotated(id: string, replacedBy: string, expiresAt: number): void {
    this.store.db.prepare('UPDATE api_keys SET replaced_by = ?, expires_at = ? WHERE id = ?').run(replacedBy, expiresAt, id);
  }

  touch(id: string, at: number): void {
    this.store.db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ?').run(at, id);
  }
}
