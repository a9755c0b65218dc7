import type { Store } from './store.js';

/** A dashboard user, identified by a wallet address (lowercase hex) and belonging to one workspace. */
export interface User {
  id: string;
  address: string;
  workspaceId: string;
  createdAt: number;
}

interface UserRow {
  id: string;
  address: string;
  workspace_id: string;
  created_at: number;
}

const toUser = (row: UserRow): User => ({
  id: row.id,
  address: row.address,
  workspaceId: row.workspace_id,
  createdAt: row.created_at,
});

export class UserRepository {
  constructor(private readonly store: Store) {}

  insert(user: User): void {
    this.store.db
      .prepare('INSERT INTO users (id, address, workspace_id, created_at) VALUES (?, ?, ?, ?)')
      .run(user.id, user.address.toLowerCase(), user.workspaceId, user.createdAt);
  }

  get(id: string): User | undefined {
    const row = this.store.db.prepare('SELECT * FROM users WHERE id = ?').get(id) as UserRow | undefined;
    return row && toUser(row);
  }

  findByAddress(address: string): User | undefined {
    const row = this.store.db.prepare('SELECT * FROM users WHERE address = ?').get(address.toLowerCase()) as UserRow | undefined;
    return row && toUser(row);
  }
}
