import type { MigrationSet } from './migrations.js';

/**
 * Tables of the platform aggregates: workspaces, API keys, wallet users and their sessions, MFA,
 * idempotency records, service secrets. Times are integer milliseconds of the service clock.
 */
export const platformMigrations: MigrationSet = {
  module: 'platform',
  migrations: [
    {
      name: '001_workspaces_and_keys',
      up: (db) =>
        db.exec(`
          CREATE TABLE workspaces (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL,
            created_at INTEGER NOT NULL
          );
          CREATE TABLE api_keys (
            id TEXT PRIMARY KEY,
            workspace_id TEXT NOT NULL REFERENCES workspaces(id),
            environment TEXT NOT NULL CHECK (environment IN ('test', 'live')),
            secret_hash BLOB NOT NULL,
            last4 TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            expires_at INTEGER,
            revoked_at INTEGER,
            replaced_by TEXT,
            last_used_at INTEGER
          );
          CREATE INDEX api_keys_by_workspace ON api_keys (workspace_id, created_at, id);
        `),
    },
    {
      name: '002_wallet_users_and_sessions',
      up: (db) =>
        db.exec(`
          CREATE TABLE users (
            id TEXT PRIMARY KEY,
            address TEXT NOT NULL UNIQUE,
            workspace_id TEXT NOT NULL REFERENCES workspaces(id),
            created_at INTEGER NOT NULL
          );
          CREATE TABLE auth_challenges (
            nonce TEXT PRIMARY KEY,
            address TEXT NOT NULL,
            chain_id INTEGER NOT NULL,
            message TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            expires_at INTEGER NOT NULL,
            used_at INTEGER
          );
          CREATE INDEX auth_challenges_by_expiry ON auth_challenges (expires_at);
          CREATE TABLE sessions (
            id TEXT PRIMARY KEY,
            user_id TEXT NOT NULL REFERENCES users(id),
            workspace_id TEXT NOT NULL REFERENCES workspaces(id),
            created_at INTEGER NOT NULL,
            expires_at INTEGER NOT NULL,
            mfa_verified_at INTEGER,
            revoked_at INTEGER,
            user_agent TEXT,
            ip TEXT
          );
          CREATE INDEX sessions_by_user ON sessions (user_id, created_at, id);
          CREATE INDEX sessions_by_workspace ON sessions (workspace_id, created_at, id);
          CREATE TABLE mfa_totp (
            user_id TEXT PRIMARY KEY REFERENCES users(id),
            secret TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            enabled_at INTEGER,
            last_counter INTEGER
          );
          CREATE TABLE mfa_recovery_codes (
            user_id TEXT NOT NULL REFERENCES users(id),
            code_hash BLOB NOT NULL,
            created_at INTEGER NOT NULL,
            used_at INTEGER,
            PRIMARY KEY (user_id, code_hash)
          );
        `),
    },
    {
      name: '003_idempotency_and_secrets',
      up: (db) =>
        db.exec(`
          CREATE TABLE idempotency_records (
            owner TEXT NOT NULL,
            key_hash BLOB NOT NULL,
            fingerprint BLOB NOT NULL,
            state TEXT NOT NULL CHECK (state IN ('in_flight', 'completed')),
            status INTEGER,
            content_type TEXT,
            body BLOB,
            created_at INTEGER NOT NULL,
            expires_at INTEGER NOT NULL,
            PRIMARY KEY (owner, key_hash)
          );
          CREATE INDEX idempotency_by_expiry ON idempotency_records (expires_at);
          CREATE TABLE service_secrets (
            name TEXT PRIMARY KEY,
            value BLOB NOT NULL,
            created_at INTEGER NOT NULL
          );
        `),
    },
    {
      // Which service instance executes an in-flight request, so that a starting instance releases only the claims
      // of instances that are gone (several instances share a Postgres store).
      name: '004_idempotency_claimed_by',
      up: (db) => db.exec('ALTER TABLE idempotency_records ADD COLUMN claimed_by TEXT;'),
    },
  ],
};
