import type { Store } from './store.js';

export interface TotpEnrolment {
  userId: string;
  /** Base32 TOTP secret. Kept readable: verifying a code needs it. */
  secret: string;
  createdAt: number;
  /** Null while the enrolment awaits its first valid code. */
  enabledAt: number | null;
  /** Time step of the last accepted code: a code is accepted once (RFC 6238 section 5.2). */
  lastCounter: number | null;
}

interface TotpRow {
  user_id: string;
  secret: string;
  created_at: number;
  enabled_at: number | null;
  last_counter: number | null;
}

export class MfaRepository {
  constructor(private readonly store: Store) {}

  getTotp(userId: string): TotpEnrolment | undefined {
    const row = this.store.db.prepare('SELECT * FROM mfa_totp WHERE user_id = ?').get(userId) as TotpRow | undefined;
    return (
      row && {
        userId: row.user_id,
        secret: row.secret,
        createdAt: row.created_at,
        enabledAt: row.enabled_at,
        lastCounter: row.last_counter,
      }
    );
  }

  /** Starts (or restarts) an enrolment that is not yet enabled. */
  putPendingTotp(userId: string, secret: string, at: number): void {
    this.store.db
      .prepare(
        `INSERT INTO mfa_totp (user_id, secret, created_at) VALUES (?, ?, ?)
         ON CONFLICT (user_id) DO UPDATE SET secret = excluded.secret, created_at = excluded.created_at,
           enabled_at = NULL, last_counter = NULL`,
      )
      .run(userId, secret, at);
  }

  /**
   * Records `counter` as used if it is newer than the last one used; false means a replayed or older
   * code. Enables the enrolment on its first accepted code.
   */
  acceptCounter(userId: string, counter: number, at: number): boolean {
    const result = this.store.db
      .prepare(
        `UPDATE mfa_totp SET last_counter = ?, enabled_at = COALESCE(enabled_at, ?)
         WHERE user_id = ? AND (last_counter IS NULL OR last_counter < ?)`,
      )
      .run(counter, at, userId, counter);
    return result.changes === 1;
  }

  replaceRecoveryCodes(userId: string, codeHashes: readonly Buffer[], at: number): void {
    const remove = this.store.db.prepare('DELETE FROM mfa_recovery_codes WHERE user_id = ?');
    const insert = this.store.db.prepare('INSERT INTO mfa_recovery_codes (user_id, code_hash, created_at) VALUES (?, ?, ?)');
    this.store.transaction(() => {
      remove.run(userId);
      for (const hash of codeHashes) insert.run(userId, hash, at);
    });
  }

  /** Spends one recovery code; false when unknown or already used. */
  useRecoveryCode(userId: string, codeHash: Buffer, at: number): boolean {
    return (
      this.store.db
        .prepare('UPDATE mfa_recovery_codes SET used_at = ? WHERE user_id = ? AND code_hash = ? AND used_at IS NULL')
        .run(at, userId, codeHash).changes === 1
    );
  }

  remainingRecoveryCodes(userId: string): number {
    return (
      this.store.db.prepare('SELECT COUNT(*) AS n FROM mfa_recovery_codes WHERE user_id = ? AND used_at IS NULL').get(userId) as {
        n: number;
      }
    ).n;
  }
}
