import type { OpenApiRegistry } from '../api/openapi.js';
import { pageEnvelope, PageQuery, pageSchema, toPageRequest } from '../api/pagination.js';
import type { RouteTable } from '../api/route.js';
import type { AuthContext } from '../api/auth-context.js';
import { NotFoundError } from '../errors/api-errors.js';
import type { PlatformRepositories } from '../store/repositories.js';
import { type Members, memberView } from './members.js';
import { requireRole } from './roles.js';
import * as S from './schemas.js';

const tags = ['Members'];

/** The caller's own workspace; another workspace id is a 404 (its existence is not disclosed). */
function ownWorkspace(auth: AuthContext | undefined, workspaceId: string): AuthContext {
  if (auth === undefined || auth.workspaceId !== workspaceId) {
    throw new NotFoundError({ code: 'resource_not_found', param: 'workspaceId', message: `No workspace ${workspaceId}.` });
  }
  return auth;
}

/** `/api/v1/workspaces/{workspaceId}/members`: list and read for every member, changes for admins. */
export function mountMemberRoutes(api: RouteTable, openapi: OpenApiRegistry, members: Members, repos: PlatformRepositories): void {
  openapi.schema('Member', S.MemberView);
  const base = '/workspaces/:workspaceId/members';

  api.route({
    method: 'get',
    path: base,
    operationId: 'listMembers',
    summary: 'Members of the workspace, oldest first (any member).',
    tags,
    auth: 'required',
    params: S.WorkspaceParams,
    query: PageQuery,
    responses: { 200: { description: 'A page of members.', schema: pageSchema(S.MemberView) } },
    handler: ({ auth, params, query }) => {
      const caller = ownWorkspace(auth, params.workspaceId);
      requireRole(repos, caller, 'viewer');
      return { status: 200, body: pageEnvelope(repos.members.page(caller.workspaceId, toPageRequest(query)), memberView) };
    },
  });

  api.route({
    method: 'post',
    path: base,
    operationId: 'addMember',
    summary: 'Adds a wallet with a role (admin only); a wallet that never signed in joins this workspace at its first sign-in.',
    tags,
    auth: 'required',
    params: S.WorkspaceParams,
    body: S.MemberCreateRequest,
    responses: {
      201: {
        description: 'Added; `member.added` is published.',
        schema: S.MemberView,
        links: {
          Member: {
            operationId: 'getMember',
            parameters: { workspaceId: '$request.path.workspaceId', address: '$response.body#/address' },
          },
          ChangeRole: {
            operationId: 'changeMemberRole',
            parameters: { workspaceId: '$request.path.workspaceId', address: '$response.body#/address' },
          },
          Remove: {
            operationId: 'removeMember',
            parameters: { workspaceId: '$request.path.workspaceId', address: '$response.body#/address' },
          },
        },
      },
      409: { description: 'Already a member (`member_exists`).' },
    },
    handler: ({ auth, params, body }) => {
      const caller = ownWorkspace(auth, params.workspaceId);
      requireRole(repos, caller, 'admin');
      return { status: 201, body: memberView(members.add(caller, body.address, body.role)) };
    },
  });

  api.route({
    method: 'get',
    path: `${base}/:address`,
    operationId: 'getMember',
    summary: 'One member (any member).',
    tags,
    auth: 'required',
    params: S.MemberParams,
    responses: { 200: { description: 'The member.', schema: S.MemberView } },
    handler: ({ auth, params }) => {
      const caller = ownWorkspace(auth, params.workspaceId);
      requireRole(repos, caller, 'viewer');
      return { status: 200, body: memberView(members.get(caller.workspaceId, params.address)) };
    },
  });

  api.route({
    method: 'patch',
    path: `${base}/:address`,
    operationId: 'changeMemberRole',
    summary: 'Changes a role (admin only); the last admin cannot be demoted.',
    tags,
    auth: 'required',
    params: S.MemberParams,
    body: S.MemberUpdateRequest,
    responses: {
      200: { description: 'The member with its new role.', schema: S.MemberView },
      409: { description: 'The last admin (`last_admin`).' },
    },
    handler: ({ auth, params, body }) => {
      const caller = ownWorkspace(auth, params.workspaceId);
      requireRole(repos, caller, 'admin');
      return { status: 200, body: memberView(members.changeRole(caller, params.address, body.role)) };
    },
  });

  api.route({
    method: 'delete',
    path: `${base}/:address`,
    operationId: 'removeMember',
    summary: 'Removes a member (admin only) and ends its sessions in the workspace; the last admin cannot be removed.',
    tags,
    auth: 'required',
    params: S.MemberParams,
    responses: {
      200: { description: 'Removed; `member.removed` is published.', schema: S.MemberDeleted },
      409: { description: 'The last admin (`last_admin`).' },
    },
    handler: ({ auth, params }) => {
      const caller = ownWorkspace(auth, params.workspaceId);
      requireRole(repos, caller, 'admin');
      const { member, sessionsRevoked } = members.remove(caller, params.address);
      return {
        status: 200,
        body: { object: 'member' as const, address: memberView(member).address, deleted: true as const, sessionsRevoked },
      };
    },
  });
}
