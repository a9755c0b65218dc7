import type { MigrationSet } from './migrations.js';
import { keysetPage, type Page, type PageRequest } from './pagination.js';
import type { Store } from './store.js';

/**
 * Workspace members: wallet addresses with a role. A wallet added before it ever signed in joins that workspace at
 * its first sign-in; the wallet that created a workspace is its first admin.
 */
export const memberMigrations: MigrationSet = {
  module: 'members',
  migrations: [
    {
      name: '001_members',
      up: (db) =>
        db.exec(`
          CREATE TABLE workspace_members (
            id TEXT PRIMARY KEY,
            workspace_id TEXT NOT NULL REFERENCES workspaces(id),
            address TEXT NOT NULL,
            role TEXT NOT NULL CHECK (role IN ('admin', 'developer', 'viewer')),
            added_at INTEGER NOT NULL,
            added_by TEXT,
            UNIQUE (workspace_id, address)
          );
          CREATE INDEX workspace_members_by_workspace ON workspace_members (workspace_id, added_at, id);
          CREATE INDEX workspace_members_by_address ON workspace_members (address, added_at);
        `),
    },
  ],
};

export const ROLES = ['admin', 'developer', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export interface Member {
  id: string;
  workspaceId: string;
  /** Lowercase hex. */
  address: string;
  role: Role;
  addedAt: number;
  /** Who added it: a user id, an API key id, or null for the workspace's creator. */
  addedBy: string | null;
}

interface MemberRow {
  id: string;
  workspace_id: string;
  address: string;
  role: Role;
  added_at: number;
  added_by: string | null;
}

const toMember = (row: MemberRow): Member => ({
  id: row.id,
  workspaceId: row.workspace_id,
  address: row.address,
  role: row.role,
  addedAt: row.added_at,
  addedBy: row.added_by,
});

export class MemberRepository {
  constructor(private readonly store: Store) {}

  insert(member: Member): void {
    this.store.db
      .prepare('INSERT INTO workspace_members (id, workspace_id, address, role, added_at, added_by) VALUES (?, ?, ?, ?, ?, ?)')
      .run(member.id, member.workspaceId, member.address.toLowerCase(), member.role, member.addedAt, member.addedBy);
  }

  get(workspaceId: string, address: string): Member | undefined {
    const row = this.store.db
      .prepare('SELECT * FROM workspace_members WHERE workspace_id = ? AND address = ?')
      .get(workspaceId, address.toLowerCase()) as MemberRow | undefined;
    return row && toMember(row);
  }

  setRole(workspaceId: string, address: string, role: Role): void {
    this.store.db
      .prepare('UPDATE workspace_members SET role = ? WHERE workspace_id = ? AND address = ?')
      .run(role, workspaceId, address.toLowerCase());
  }

  remove(workspaceId: string, address: string): void {
    this.store.db.prepare('DELETE FROM workspace_members WHERE workspace_id = ? AND address = ?').run(workspaceId, address.toLowerCase());
  }

  countRole(workspaceId: string, role: Role): number {
    const row = this.store.db
      .prepare('SELECT COUNT(*) AS n FROM workspace_members WHERE workspace_id = ? AND role = ?')
      .get(workspaceId, role) as { n: number };
    return row.n;
  }

  /** The workspace an address was added to first (it joins there at its first sign-in). */
  firstWorkspaceOf(address: string): string | undefined {
    const row = this.store.db
      .prepare('SELECT workspace_id FROM workspace_members WHERE address = ? ORDER BY added_at, id LIMIT 1')
      .get(address.toLowerCase()) as { workspace_id: string } | undefined;
    return row?.workspace_id;
  }

  page(workspaceId: string, request: PageRequest): Page<Member> {
    const page = keysetPage<MemberRow>(this.store.db, {
      from: 'workspace_members',
      where: 'workspace_id = ?',
      params: [workspaceId],
      sortColumn: 'added_at',
      order: 'asc',
      request,
      position: (row) => ({ key: row.added_at, id: row.id }),
    });
    return { ...page, items: page.items.map(toMember) };
  }
}
