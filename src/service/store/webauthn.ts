import type { MigrationSet } from './migrations.js';
import { keysetPage, type Page, type PageRequest } from './pagination.js';
import type { Store } from './store.js';

/** FIDO2 / WebAuthn second factors: registered credentials and the one pending challenge per session and ceremony. */
export const webauthnMigrations: MigrationSet = {
  module: 'webauthn',
  migrations: [
    {
      name: '001_credentials_and_challenges',
      up: (db) =>
        db.exec(`
          CREATE TABLE webauthn_credentials (
            id TEXT PRIMARY KEY,
            user_id TEXT NOT NULL REFERENCES users(id),
            credential_id TEXT NOT NULL UNIQUE,
            public_key BLOB NOT NULL,
            sign_count INTEGER NOT NULL,
            transports TEXT NOT NULL,
            device_type TEXT NOT NULL,
            backed_up INTEGER NOT NULL,
            name TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            last_used_at INTEGER
          );
          CREATE INDEX webauthn_credentials_by_user ON webauthn_credentials (user_id, created_at, id);
          CREATE TABLE webauthn_challenges (
            session_id TEXT NOT NULL,
            ceremony TEXT NOT NULL CHECK (ceremony IN ('registration', 'authentication')),
            challenge TEXT NOT NULL,
            expires_at INTEGER NOT NULL,
            PRIMARY KEY (session_id, ceremony)
          );
        `),
    },
  ],
};

export type Ceremony = 'registration' | 'authentication';

export interface WebAuthnCredential {
  /** `wac_…`: the API id. */
  id: string;
  userId: string;
  /** The authenticator's credential id, base64url. */
  credentialId: string;
  publicKey: Uint8Array;
  /** The authenticator's signature counter at its last use; a smaller one later means a cloned authenticator. */
  signCount: number;
  transports: string[];
  deviceType: string;
  backedUp: boolean;
  name: string;
  createdAt: number;
  lastUsedAt: number | null;
}

interface CredentialRow {
  id: string;
  user_id: string;
  credential_id: string;
  public_key: Buffer;
  sign_count: number;
  transports: string;
  device_type: string;
  backed_up: number;
  name: string;
  created_at: number;
  last_used_at: number | null;
}

function toCredential(row: CredentialRow): WebAuthnCredential {
  return {
    id: row.id,
    userId: row.user_id,
    credentialId: row.credential_id,
    publicKey: new Uint8Array(row.public_key),
    signCount: row.sign_count,
    transports: JSON.parse(row.transports) as string[],
    deviceType: row.device_type,
    backedUp: row.backed_up === 1,
    name: row.name,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
  };
}

export class WebAuthnRepository {
  constructor(private readonly store: Store) {}

  insert(credential: WebAuthnCredential): void {
    this.store.db
      .prepare(
        `INSERT INTO webauthn_credentials
           (id, user_id, credential_id, public_key, sign_count, transports, device_type, backed_up, name, created_at, last_used_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        credential.id,
        credential.userId,
        credential.credentialId,
        Buffer.from(credential.publicKey),
        credential.signCount,
        JSON.stringify(credential.transports),
        credential.deviceType,
        credential.backedUp ? 1 : 0,
        credential.name,
        credential.createdAt,
        credential.lastUsedAt,
      );
  }

  get(userId: string, id: string): WebAuthnCredential | undefined {
    const row = this.store.db.prepare('SELECT * FROM webauthn_credentials WHERE user_id = ? AND id = ?').get(userId, id) as
      | CredentialRow
      | undefined;
    return row && toCredential(row);
  }

  byCredentialId(credentialId: string): WebAuthnCredential | undefined {
    const row = this.store.db.prepare('SELECT * FROM webauthn_credentials WHERE credential_id = ?').get(credentialId) as
      | CredentialRow
      | undefined;
    return row && toCredential(row);
  }

  forUser(userId: string): WebAuthnCredential[] {
    const rows = this.store.db
      .prepare('SELECT * FROM webauthn_credentials WHERE user_id = ? ORDER BY created_at, id')
      .all(userId) as CredentialRow[];
    return rows.map(toCredential);
  }

  count(userId: string): number {
    return (this.store.db.prepare('SELECT COUNT(*) AS n FROM webauthn_credentials WHERE user_id = ?').get(userId) as { n: number }).n;
  }

  /** Newest first. */
  page(userId: string, request: PageRequest): Page<WebAuthnCredential> {
    const page = keysetPage<CredentialRow>(this.store.db, {
      from: 'webauthn_credentials',
      where: 'user_id = ?',
      params: [userId],
      sortColumn: 'created_at',
      order: 'desc',
      request,
      position: (row) => ({ key: row.created_at, id: row.id }),
    });
    return { ...page, items: page.items.map(toCredential) };
  }

  /** Records a successful assertion; false when the counter went backwards meanwhile (checked again here). */
  markUsed(id: string, signCount: number, at: number): boolean {
    return (
      this.store.db
        .prepare('UPDATE webauthn_credentials SET sign_count = ?, last_used_at = ? WHERE id = ? AND (sign_count = 0 OR sign_count < ?)')
        .run(signCount, at, id, signCount).changes === 1
    );
  }

  remove(userId: string, id: string): boolean {
    return this.store.db.prepare('DELETE FROM webauthn_credentials WHERE user_id = ? AND id = ?').run(userId, id).changes === 1;
  }

  putChallenge(sessionId: string, ceremony: Ceremony, challenge: string, expiresAt: number): void {
    this.store.db
      .prepare(
        `INSERT INTO webauthn_challenges (session_id, ceremony, challenge, expires_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (session_id, ceremony) DO UPDATE SET challenge = excluded.challenge, expires_at = excluded.expires_at`,
      )
      .run(sessionId, ceremony, challenge, expiresAt);
  }

  /** Removes and returns the pending challenge: each is answered once, right or wrong. */
  takeChallenge(sessionId: string, ceremony: Ceremony): { challenge: string; expiresAt: number } | undefined {
    const row = this.store.db
      .prepare('DELETE FROM webauthn_challenges WHERE session_id = ? AND ceremony = ? RETURNING challenge, expires_at')
      .get(sessionId, ceremony) as { challenge: string; expires_at: number } | undefined;
    return row && { challenge: row.challenge, expiresAt: row.expires_at };
  }
}
