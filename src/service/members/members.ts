import { getAddress } from 'viem';
import type { Clock } from '../../clock/index.js';
import { checksummed, isoTime } from '../api/wire.js';
import type { AuthContext } from '../api/auth-context.js';
import { ConflictError, NotFoundError } from '../errors/api-errors.js';
import type { OutboxRepository } from '../events/outbox.js';
import type { LedgerRepository } from '../ledger/repository.js';
import { newId } from '../store/ids.js';
import type { Member, Role } from '../store/members.js';
import type { PlatformRepositories } from '../store/repositories.js';

export interface MembersDeps {
  repos: PlatformRepositories;
  clock: Clock;
  outbox: OutboxRepository;
  ledger: LedgerRepository;
}

export function memberView(member: Member) {
  return {
    object: 'member' as const,
    id: member.id,
    workspaceId: member.workspaceId,
    address: getAddress(member.address),
    role: member.role,
    addedAt: isoTime(member.addedAt),
    addedBy: member.addedBy,
  };
}

function actorOf(auth: AuthContext): string {
  return auth.kind === 'jwt' ? auth.userId : auth.keyId;
}

/**
 * Workspace membership: add, change role, remove, each in one transaction with its ledger entry (every admin action
 * is evidence) and its event (`member.added`, `member.removed`) for webhooks and the taker WebSocket.
 */
export class Members {
  constructor(private readonly deps: MembersDeps) {}

  get(workspaceId: string, address: string): Member {
    const member = this.deps.repos.members.get(workspaceId, address);
    if (member === undefined) {
      throw new NotFoundError({ code: 'resource_not_found', param: 'address', message: `${checksummed(address)} is not a member.` });
    }
    return member;
  }

  add(auth: AuthContext, address: string, role: Role): Member {
    const { repos, clock, outbox } = this.deps;
    const now = clock.now();
    return outbox.commit(() => {
      if (repos.members.get(auth.workspaceId, address) !== undefined) {
        throw new ConflictError({ code: 'member_exists', param: 'address', message: `${checksummed(address)} is already a member.` });
      }
      const member: Member = {
        id: newId('mem'),
        workspaceId: auth.workspaceId,
        address: address.toLowerCase(),
        role,
        addedAt: now,
        addedBy: actorOf(auth),
      };
      repos.members.insert(member);
      this.record('member.added', member, auth, now, {});
      return member;
    });
  }

  changeRole(auth: AuthContext, address: string, role: Role): Member {
    const { repos, clock, outbox } = this.deps;
    const now = clock.now();
    return outbox.commit(() => {
      const member = this.get(auth.workspaceId, address);
      if (member.role === role) return member;
      if (member.role === 'admin') this.keepAnAdmin(auth.workspaceId, member);
      repos.members.setRole(auth.workspaceId, address, role);
      const changed = { ...member, role };
      this.deps.ledger.append({
        type: 'admin.member_role_changed',
        tradeId: member.id,
        recordedAt: new Date(now).toISOString(),
        payload: { workspaceId: auth.workspaceId, address: getAddress(member.address), from: member.role, to: role, actor: actorOf(auth) },
      });
      return changed;
    });
  }

  /** Removes the member and ends its sessions in this workspace (its tokens answer 401 at once). */
  remove(auth: AuthContext, address: string): { member: Member; sessionsRevoked: number } {
    const { repos, clock, outbox } = this.deps;
    const now = clock.now();
    return outbox.commit(() => {
      const member = this.get(auth.workspaceId, address);
      if (member.role === 'admin') this.keepAnAdmin(auth.workspaceId, member);
      repos.members.remove(auth.workspaceId, address);
      const user = repos.users.findByAddress(member.address);
      const sessionsRevoked = user === undefined ? 0 : repos.sessions.revokeAllIn(user.id, auth.workspaceId, now);
      this.record('member.removed', member, auth, now, { sessionsRevoked });
      return { member, sessionsRevoked };
    });
  }

  private keepAnAdmin(workspaceId: string, member: Member): void {
    if (this.deps.repos.members.countRole(workspaceId, 'admin') <= 1) {
      throw new ConflictError({
        code: 'last_admin',
        param: 'address',
        message: `${getAddress(member.address)} is the last admin of ${workspaceId}; make another member admin first.`,
      });
    }
  }

  private record(
    type: 'member.added' | 'member.removed',
    member: Member,
    auth: AuthContext,
    at: number,
    extra: Record<string, number>,
  ): void {
    this.deps.ledger.append({
      type: type === 'member.added' ? 'admin.member_added' : 'admin.member_removed',
      tradeId: member.id,
      recordedAt: new Date(at).toISOString(),
      payload: { workspaceId: member.workspaceId, address: getAddress(member.address), role: member.role, actor: actorOf(auth), ...extra },
    });
    this.deps.outbox.append({
      workspaceId: member.workspaceId,
      type,
      generation: 'A',
      data: { member: memberView(member) },
      at,
    });
  }
}
