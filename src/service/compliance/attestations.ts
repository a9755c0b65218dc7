import { type Address, type Hex, encodeAbiParameters, getAddress, keccak256 } from 'viem';
import type { Store } from '../store/store.js';
import { Statements } from '../settlement/statements.js';

export interface Attestation {
  hash: Hex;
  address: Address;
  /** Clock milliseconds. */
  issuedAt: number;
  expiresAt: number;
}

export type AttestationCheck =
  | { valid: true; attestation: Attestation }
  | { valid: false; reason: 'missing' | 'malformed' | 'unknown' | 'expired' | 'other_address' };

interface AttestationRow {
  hash: string;
  address: string;
  issued_at: number;
  expires_at: number;
}

function fromRow(row: AttestationRow): Attestation {
  return { hash: row.hash as Hex, address: row.address as Address, issuedAt: row.issued_at, expiresAt: row.expires_at };
}

/**
 * Compliance attestations: `keccak256(abi.encode("X-Service-Attestation", address, issuedAt, serviceSecret))`, valid
 * for a TTL by the service clock. Only the service can mint one (the secret), and it stores what it issued, so
 * checking a header is a lookup: unknown, expired or issued for another address → `attestation_expired`.
 */
export class AttestationIssuer {
  constructor(
    private readonly store: Store,
    private readonly secret: Hex,
    private readonly ttlMs: number,
  ) {
    this.statements = new Statements(store);
  }

  private readonly statements: Statements;

  private sql(text: string) {
    return this.statements.get(text);
  }

  /**
   * The attestation for `address` at `now`: the current one while more than half its lifetime remains (repeated
   * status reads return the same hash), else a new one.
   */
  issue(address: Address, now: number): Attestation {
    const subject = getAddress(address);
    const current = this.store.db
      .prepare('SELECT * FROM attestations WHERE address = ? AND expires_at > ? ORDER BY expires_at DESC LIMIT 1')
      .get(subject, now + this.ttlMs / 2) as AttestationRow | undefined;
    if (current !== undefined) return fromRow(current);
    const hash = keccak256(
      encodeAbiParameters(
        [{ type: 'string' }, { type: 'address' }, { type: 'uint256' }, { type: 'bytes32' }],
        ['X-Service-Attestation', subject, BigInt(now), this.secret],
      ),
    );
    const attestation: Attestation = { hash, address: subject, issuedAt: now, expiresAt: now + this.ttlMs };
    this.store.db
      .prepare('INSERT INTO attestations (hash, address, issued_at, expires_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING')
      .run(hash, subject, now, attestation.expiresAt);
    return attestation;
  }

  /** Checks a header value against the participant it must cover. */
  check(header: string | undefined, address: Address, now: number): AttestationCheck {
    if (header === undefined || header.trim() === '') return { valid: false, reason: 'missing' };
    const value = header.trim().toLowerCase();
    if (!/^0x[0-9a-f]{64}$/.test(value)) return { valid: false, reason: 'malformed' };
    const row = this.sql('SELECT * FROM attestations WHERE hash = ?').get(value) as AttestationRow | undefined;
    if (row === undefined) return { valid: false, reason: 'unknown' };
    if (row.address !== getAddress(address)) return { valid: false, reason: 'other_address' };
    if (row.expires_at <= now) return { valid: false, reason: 'expired' };
    return { valid: true, attestation: fromRow(row) };
  }
}
