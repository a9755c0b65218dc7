import { AuthenticationError } from '../errors/api-errors.js';
import type { AuthContext } from '../api/auth-context.js';
import type { PlatformRepositories } from '../store/repositories.js';
import type { Role } from '../store/members.js';

const RANK: Record<Role, number> = { viewer: 0, developer: 1, admin: 2 };

/**
 * The caller's role in its workspace. An API key is the workspace's own credential and acts as `admin` (Stripe's
 * secret keys do likewise); a session acts with its wallet's member role. A workspace with no member rows at all
 * (created before members existed) treats its users as admins.
 */
export function roleOf(repos: PlatformRepositories, auth: AuthContext): Role | undefined {
  if (auth.kind !== 'jwt') return 'admin';
  const member = repos.members.get(auth.workspaceId, auth.address);
  if (member !== undefined) return member.role;
  return repos.members.countRole(auth.workspaceId, 'admin') === 0 ? 'admin' : undefined;
}

/** 403 `insufficient_role` unless the caller's role is at least `minimum`. */
export function requireRole(repos: PlatformRepositories, auth: AuthContext | undefined, minimum: Role): Role {
  const role = auth === undefined ? undefined : roleOf(repos, auth);
  if (role === undefined || RANK[role] < RANK[minimum]) {
    throw new AuthenticationError({
      code: 'insufficient_role',
      status: 403,
      param: 'Authorization',
      message: `This action needs the ${minimum} role; the caller is ${role === undefined ? 'not a member of the workspace' : `a ${role}`}.`,
    });
  }
  return role;
}
