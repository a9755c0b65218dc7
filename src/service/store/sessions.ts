import { keysetPage, type Page, type PageRequest } from './pagination.js';
import type { Store } from './store.js';

/** A dashboard session opened by wallet sign-in; JWTs name it in their `sid` claim. */
export interface Session {
  id: string;
  userId: string;
  workspaceId: string;
  createdAt: number;
  expiresAt: number;
  mfaVerifiedAt: number | null;
  revokedAt: number | null;
  userAgent: string | null;
  ip: string | null;
}

interface SessionRow {
  id: string;
  user_id: string;
  workspace_id: string;
  created_at: number;
  expires_at: number;
  mfa_verified_at: number | null;
  revoked_at: number | null;
  user_agent: string | null;
  ip: string | null;
}

const toSession = (row: SessionRow): Session => ({
  id: row.id,
  userId: row.user_id,
  workspaceId: row.workspace_id,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
  mfaVerifiedAt: row.mfa_verified_at,
  revokedAt: row.revoked_at,
  userAgent: row.user_agent,
  ip: row.ip,
});

export class SessionRepository {
  constructor(private readonly store: Store) {}

  insert(session: Session): void {
    this.store.db
      .prepare(
        `INSERT INTO sessions (id, user_id, workspace_id, created_at, expires_at, mfa_verified_at, revoked_at, user_agent, ip)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        session.id,
        session.userId,
        session.workspaceId,
        session.createdAt,
        session.expiresAt,
        session.mfaVerifiedAt,
        session.revokedAt,
        session.userAgent,
        session.ip,
      );
  }

  get(id: string): Session | undefined {
    const row = this.store.db.prepare('SELECT * FROM sessions WHERE id = ?').get(id) as SessionRow | undefined;
    return row && toSession(row);
  }

  markMfaVerified(id: string, at: number): void {
    this.store.db.prepare('UPDATE sessions SET mfa_verified_at = ? WHERE id = ?').run(at, id);
  }

  /** Ends a session now (kept for the list; its JWTs are refused). A session already ended keeps its first time. */
  revoke(id: string, at: number): void {
    this.store.db.prepare('UPDATE sessions SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(at, id);
  }

  /** Ends every other active session of the user; how many it ended. */
  revokeOthers(userId: string, keepId: string, at: number): number {
    return Number(
      this.store.db
        .prepare('UPDATE sessions SET revoked_at = ? WHERE user_id = ? AND id != ? AND revoked_at IS NULL AND expires_at > ?')
        .run(at, userId, keepId, at).changes,
    );
  }

  /** Ends every active session of the user in one workspace (a member removed from it); how many. */
  revokeAllIn(userId: string, workspaceId: string, at: number): number {
    return Number(
      this.store.db
        .prepare('UPDATE sessions SET revoked_at = ? WHERE user_id = ? AND workspace_id = ? AND revoked_at IS NULL')
        .run(at, userId, workspaceId).changes,
    );
  }

  /** Newest first; scoped to one user, or to a whole workspace when `userId` is omitted. */
  page(scope: { workspaceId: string; userId?: string }, request: PageRequest): Page<Session> {
    const where = scope.userId === undefined ? 'workspace_id = ?' : 'workspace_id = ? AND user_id = ?';
    const params = scope.userId === undefined ? [scope.workspaceId] : [scope.workspaceId, scope.userId];
    const page = keysetPage<SessionRow>(this.store.db, {
      from: 'sessions',
      where,
      params,
      sortColumn: 'created_at',
      order: 'desc',
      request,
      position: (row) => ({ key: row.created_at, id: row.id }),
    });
    return { ...page, items: page.items.map(toSession) };
  }
}
