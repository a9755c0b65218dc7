import type { Store } from './store.js';

/** A sign-in challenge: the SIWE message handed out, redeemable once before it expires. */
export interface AuthChallenge {
  nonce: string;
  address: string;
  chainId: number;
  message: string;
  createdAt: number;
  expiresAt: number;
}

interface ChallengeRow {
  nonce: string;
  address: string;
  chain_id: number;
  message: string;
  created_at: number;
  expires_at: number;
}

export class AuthChallengeRepository {
  constructor(private readonly store: Store) {}

  insert(challenge: AuthChallenge): void {
    this.store.db
      .prepare('INSERT INTO auth_challenges (nonce, address, chain_id, message, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(
        challenge.nonce,
        challenge.address.toLowerCase(),
        challenge.chainId,
        challenge.message,
        challenge.createdAt,
        challenge.expiresAt,
      );
  }

  /**
   * Marks the challenge used and returns it, in one statement, so two concurrent verifies of one
   * signature cannot both succeed. Undefined when unknown, already used or expired at `now`.
   */
  redeem(nonce: string, now: number): AuthChallenge | undefined {
    const row = this.store.db
      .prepare(
        `UPDATE auth_challenges SET used_at = ? WHERE nonce = ? AND used_at IS NULL AND expires_at > ?
         RETURNING nonce, address, chain_id, message, created_at, expires_at`,
      )
      .get(now, nonce, now) as ChallengeRow | undefined;
    return (
      row && {
        nonce: row.nonce,
        address: row.address,
        chainId: row.chain_id,
        message: row.message,
        createdAt: row.created_at,
        expiresAt: row.expires_at,
      }
    );
  }

  deleteExpired(now: number): number {
    return this.store.db.prepare('DELETE FROM auth_challenges WHERE expires_at <= ?').run(now).changes;
  }
}
