import type { Address } from 'viem';
import { keysetPage, type Page, type PageRequest } from '../store/pagination.js';
import type { Store } from '../store/store.js';

export interface SolverRecord {
  id: string;
  workspaceId: string;
  name: string;
  corridors: string[];
  callbackUrl: string | null;
  address: Address | null;
  createdAt: number;
}

interface SolverRow {
  id: string;
  workspace_id: string;
  name: string;
  corridors: string;
  callback_url: string | null;
  address: string | null;
  created_at: number;
}

function fromRow(row: SolverRow): SolverRecord {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    name: row.name,
    corridors: JSON.parse(row.corridors) as string[],
    callbackUrl: row.callback_url,
    address: row.address as Address | null,
    createdAt: row.created_at,
  };
}

const COLUMNS = 'id, workspace_id, name, corridors, callback_url, address, created_at';

/** Registered solvers. Their stream credential is kept only as a SHA-256 hash. */
export class SolverRepository {
  private readonly _insert;
  private readonly _get;
  private readonly _byTokenHash;
  private readonly _byWorkspace;
  private readonly _all;
  private readonly setTokenHash;

  constructor(private readonly store: Store) {
    const db = store.db;
    this._insert = db.prepare(
      'INSERT INTO solvers (id, workspace_id, name, corridors, callback_url, address, token_hash, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    );
    this._get = db.prepare(`SELECT ${COLUMNS} FROM solvers WHERE id = ?`);
    this._byTokenHash = db.prepare(`SELECT ${COLUMNS} FROM solvers WHERE token_hash = ?`);
    this._byWorkspace = db.prepare(`SELECT ${COLUMNS} FROM solvers WHERE workspace_id = ? ORDER BY created_at, id`);
    this._all = db.prepare(`SELECT ${COLUMNS} FROM solvers ORDER BY created_at, id`);
    this.setTokenHash = db.prepare('UPDATE solvers SET token_hash = ? WHERE id = ?');
  }

  insert(solver: SolverRecord, tokenHash: Buffer): void {
    this._insert.run(
      solver.id,
      solver.workspaceId,
      solver.name,
      JSON.stringify(solver.corridors),
      solver.callbackUrl,
      solver.address,
      tokenHash,
      solver.createdAt,
    );
  }

  get(id: string): SolverRecord | undefined {
    const row = this._get.get(id) as SolverRow | undefined;
    return row && fromRow(row);
  }

  byTokenHash(hash: Buffer): SolverRecord | undefined {
    const row = this._byTokenHash.get(hash) as SolverRow | undefined;
    return row && fromRow(row);
  }

  byWorkspace(workspaceId: string): SolverRecord[] {
    return (this._byWorkspace.all(workspaceId) as SolverRow[]).map(fromRow);
  }

  all(): SolverRecord[] {
    return (this._all.all() as SolverRow[]).map(fromRow);
  }

  replaceTokenHash(id: string, hash: Buffer): void {
    this.setTokenHash.run(hash, id);
  }

  /** Newest first; `workspaceId` narrows to one workspace's solvers. */
  page(request: PageRequest, workspaceId?: string): Page<SolverRecord> {
    const page = keysetPage<SolverRow>(this.store.db, {
      from: 'solvers',
      columns: COLUMNS,
      where: workspaceId === undefined ? '1=1' : 'workspace_id = ?',
      params: workspaceId === undefined ? [] : [workspaceId],
      sortColumn: 'created_at',
      order: 'desc',
      request,
      position: (row) => ({ key: row.created_at, id: row.id }),
    });
    return { ...page, items: page.items.map(fromRow) };
  }
}
