import type { Address } from 'viem';
import type { Clock } from '../../clock/index.js';
import { checksummed, isoTime } from '../api/wire.js';
import { NotFoundError } from '../errors/api-errors.js';
import type { LedgerRepository } from '../ledger/repository.js';
import { newId } from '../store/ids.js';
import { keysetPage, type Page, type PageRequest } from '../store/pagination.js';
import type { Store } from '../store/store.js';
import type { Screening } from './screening.js';

export type CounterpartyStatus = 'approved' | 'failed';

export interface Counterparty {
  id: string;
  workspaceId: string;
  name: string;
  /** ISO 3166-1 alpha-2, uppercase. */
  jurisdiction: string;
  addresses: Address[];
  status: CounterpartyStatus;
  /** Why it passed or failed, for people and for the evidence entry. */
  reason: string;
  ledgerSequence: number;
  createdAt: number;
}

interface CounterpartyRow {
  id: string;
  workspace_id: string;
  name: string;
  jurisdiction: string;
  addresses: string;
  status: CounterpartyStatus;
  reason: string;
  ledger_sequence: number;
  created_at: number;
}

const toCounterparty = (row: CounterpartyRow): Counterparty => ({
  id: row.id,
  workspaceId: row.workspace_id,
  name: row.name,
  jurisdiction: row.jurisdiction,
  addresses: JSON.parse(row.addresses) as Address[],
  status: row.status,
  reason: row.reason,
  ledgerSequence: row.ledger_sequence,
  createdAt: row.created_at,
});

export function counterpartyView(c: Counterparty) {
  return {
    object: 'counterparty' as const,
    id: c.id,
    workspaceId: c.workspaceId,
    name: c.name,
    jurisdiction: c.jurisdiction,
    addresses: c.addresses,
    screening: { status: c.status, reason: c.reason, ledgerSequence: c.ledgerSequence },
    createdAt: isoTime(c.createdAt),
  };
}

export interface CounterpartiesDeps {
  store: Store;
  clock: Clock;
  ledger: LedgerRepository;
  screening: Screening;
  sanctionedJurisdictions: readonly string[];
}

/**
 * Registered counterparties of a workspace, screened once at registration: a sanctioned jurisdiction or any
 * address failing screening (the sandbox mock is deterministic; production needs the allow list) fails the
 * counterparty. A failed counterparty's addresses are refused on the compliant rail.
 */
export class Counterparties {
  constructor(private readonly deps: CounterpartiesDeps) {}

  register(workspaceId: string, input: { name: string; jurisdiction: string; addresses: string[] }): Counterparty {
    const { store, clock, ledger, screening, sanctionedJurisdictions } = this.deps;
    const now = clock.now();
    const addresses = [...new Set(input.addresses.map((a) => checksummed(a)))];
    const jurisdiction = input.jurisdiction.toUpperCase();
    const failedAddress = addresses
      .map((address) => ({ address, failed: screening.screen(address).filter((r) => r.result === 'rejected') }))
      .find((a) => a.failed.length > 0);
    const verdict: { status: CounterpartyStatus; reason: string } = sanctionedJurisdictions.includes(jurisdiction)
      ? { status: 'failed', reason: `jurisdiction ${jurisdiction} is sanctioned` }
      : failedAddress !== undefined
        ? {
            status: 'failed',
            reason: `${failedAddress.address} failed ${failedAddress.failed.map((f) => `${f.checkType} (${f.reason})`).join(', ')}`,
          }
        : { status: 'approved', reason: screening.mocked ? 'sandbox: screening mocked, no sanctions match' : 'every address approved' };
    return store.transaction(() => {
      const id = newId('cpty');
      const entry = ledger.append({
        type: 'compliance.counterparty_screened',
        tradeId: id,
        recordedAt: new Date(now).toISOString(),
        payload: { workspaceId, name: input.name, jurisdiction, addresses, status: verdict.status, reason: verdict.reason },
      });
      const counterparty: Counterparty = {
        id,
        workspaceId,
        name: input.name,
        jurisdiction,
        addresses,
        ...verdict,
        ledgerSequence: entry.sequence,
        createdAt: now,
      };
      store.db
        .prepare(
          `INSERT INTO counterparties (id, workspace_id, name, jurisdiction, addresses, status, reason, ledger_sequence, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(id, workspaceId, input.name, jurisdiction, JSON.stringify(addresses), verdict.status, verdict.reason, entry.sequence, now);
      const link = store.db.prepare('INSERT OR IGNORE INTO counterparty_addresses (address, counterparty_id) VALUES (?, ?)');
      for (const address of addresses) link.run(address.toLowerCase(), id);
      return counterparty;
    });
  }

  get(workspaceId: string, id: string): Counterparty {
    const row = this.deps.store.db.prepare('SELECT * FROM counterparties WHERE id = ? AND workspace_id = ?').get(id, workspaceId) as
      | CounterpartyRow
      | undefined;
    if (row === undefined)
      throw new NotFoundError({ code: 'resource_not_found', param: 'counterpartyId', message: `No counterparty ${id}.` });
    return toCounterparty(row);
  }

  page(workspaceId: string, request: PageRequest): Page<Counterparty> {
    const page = keysetPage<CounterpartyRow>(this.deps.store.db, {
      from: 'counterparties',
      where: 'workspace_id = ?',
      params: [workspaceId],
      sortColumn: 'created_at',
      order: 'desc',
      request,
      position: (row) => ({ key: row.created_at, id: row.id }),
    });
    return { ...page, items: page.items.map(toCounterparty) };
  }

  /** A failed registered counterparty holding this address (any workspace: a compliance fact, not a preference). */
  failedHolding(address: Address): Counterparty | undefined {
    const row = this.deps.store.db
      .prepare(
        `SELECT c.* FROM counterparties c JOIN counterparty_addresses a ON a.counterparty_id = c.id
         WHERE a.address = ? AND c.status = 'failed' ORDER BY c.created_at LIMIT 1`,
      )
      .get(address.toLowerCase()) as CounterpartyRow | undefined;
    return row && toCounterparty(row);
  }
}
