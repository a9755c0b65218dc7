import { createHash, randomBytes } from 'node:crypto';
import type { SolverKeyResolver } from '../auction/types.js';
import type { Store } from '../store/store.js';

/** KYB details a solver registers with (Reference B). */
export interface KybDetails {
  legalName: string;
  /** ISO 3166-1 alpha-2 country of incorporation. */
  jurisdiction: string;
  registrationNumber?: string | undefined;
  registeredAddress?: string | undefined;
  contactEmail?: string | undefined;
  website?: string | undefined;
}

/** The solver's pricing engine as it describes it; kept and shown, the solver prices on its own stream. */
export interface PricingEngineConfig {
  engine: string;
  marginBps?: number | undefined;
  minNotional?: string | undefined;
  maxNotional?: string | undefined;
  quoteTtlMs?: number | undefined;
  maxLatencyMs?: number | undefined;
  parameters?: Record<string, string | number | boolean> | undefined;
}

export interface KybVerification {
  status: 'approved' | 'rejected';
  mocked: boolean;
  kyb: 'approved' | 'rejected';
  sanctions: 'clear' | 'hit';
  travelRule: 'ready' | 'not_ready';
  /** Clock ms. */
  verifiedAt: number;
  reasons: string[];
  /** Hash and sequence of the WORM entry that closes the verification. */
  evidenceHash: string;
  evidenceSequence: number;
}

export interface SolverRegistrationRecord {
  solverId: string;
  workspaceId: string;
  /** First characters of the key, to recognise it in lists without revealing it. */
  keyHint: string;
  kyb: KybDetails;
  pricing: PricingEngineConfig;
  verification: KybVerification;
  createdAt: number;
}

interface Row {
  solver_id: string;
  workspace_id: string;
  key_hint: string;
  kyb: string;
  pricing: string;
  verification: string;
  ledger_sequence: number;
  created_at: number;
}

function hashKey(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

function fromRow(row: Row): SolverRegistrationRecord {
  return {
    solverId: row.solver_id,
    workspaceId: row.workspace_id,
    keyHint: row.key_hint,
    kyb: JSON.parse(row.kyb) as KybDetails,
    pricing: JSON.parse(row.pricing) as PricingEngineConfig,
    verification: JSON.parse(row.verification) as KybVerification,
    createdAt: row.created_at,
  };
}

/**
 * Reference B solver registrations and their solver keys (`sk_test_…` / `sk_live_…`). A key is shown once and kept
 * only as a SHA-256 hash; the solver stream resolves a presented key through `resolver`.
 */
export class SolverRegistrations {
  constructor(private readonly store: Store) {}

  /** `sk_{test|live}_` and 48 hex characters (192 random bits). */
  static newKey(environment: 'test' | 'live'): string {
    return `sk_${environment}_${randomBytes(24).toString('hex')}`;
  }

  /** Call inside the transaction that registers the solver. */
  insert(record: SolverRegistrationRecord, key: string): void {
    this.store.db
      .prepare(
        `INSERT INTO reference_b_solver_registrations (solver_id, workspace_id, key_hash, key_hint, kyb, pricing, verification, ledger_sequence, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        record.solverId,
        record.workspaceId,
        hashKey(key),
        record.keyHint,
        JSON.stringify(record.kyb),
        JSON.stringify(record.pricing),
        JSON.stringify(record.verification),
        record.verification.evidenceSequence,
        record.createdAt,
      );
  }

  get(solverId: string): SolverRegistrationRecord | undefined {
    const row = this.store.db.prepare('SELECT * FROM reference_b_solver_registrations WHERE solver_id = ?').get(solverId) as
      | Row
      | undefined;
    return row === undefined ? undefined : fromRow(row);
  }

  byKey(key: string): SolverRegistrationRecord | undefined {
    const row = this.store.db.prepare('SELECT * FROM reference_b_solver_registrations WHERE key_hash = ?').get(hashKey(key)) as
      | Row
      | undefined;
    return row === undefined ? undefined : fromRow(row);
  }

  /** For the solver stream: which solver a presented `sk_` key speaks for (the stream checks its environment). */
  readonly resolver: SolverKeyResolver = {
    resolve: (key: string) => {
      if (!this.store.open) return undefined;
      const found = this.byKey(key);
      return found === undefined ? undefined : { solverId: found.solverId };
    },
  };
}
