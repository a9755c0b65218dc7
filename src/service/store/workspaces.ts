import type { Store } from './store.js';

export interface Workspace {
  id: string;
  name: string;
  createdAt: number;
}

interface WorkspaceRow {
  id: string;
  name: string;
  created_at: number;
}

const toWorkspace = (row: WorkspaceRow): Workspace => ({ id: row.id, name: row.name, createdAt: row.created_at });

/** Workspaces own everything else: keys, users, and (in later modules) orders, webhooks, solvers. */
export class WorkspaceRepository {
  constructor(private readonly store: Store) {}

  insert(workspace: Workspace): void {
    this.store.db
      .prepare('INSERT INTO workspaces (id, name, created_at) VALUES (?, ?, ?)')
      .run(workspace.id, workspace.name, workspace.createdAt);
  }

  get(id: string): Workspace | undefined {
    const row = this.store.db.prepare('SELECT * FROM workspaces WHERE id = ?').get(id) as WorkspaceRow | undefined;
    return row && toWorkspace(row);
  }
}
