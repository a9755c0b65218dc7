import { randomBytes } from 'node:crypto';
import { privateKeyToAccount } from 'viem/accounts';
import type { CheckContext } from '../core/context.js';
import { check, ONLY_A, PHASE } from './support/define.js';
import { expectError } from './support/errors.js';
import { isArray, isObject, type Json } from './support/shape.js';

/**
 * Project-defined routes: the spec lists them with bodies "not shown", and this project designed them
 * (docs/service-platform.md, docs/deferred.md). Their requirements are `P-…` at SHOULD level: a deployment with
 * another design gets a WARNING, never a FAILED, and one that does not declare the route in its OpenAPI document is
 * SKIPPED with that reason.
 */
function offers(ctx: CheckContext, operation: string): void {
  if (!ctx.target.capabilities.has('openapi'))
    ctx.skip(`${ctx.target.missing.openapi}: cannot tell whether the target offers ${operation}`);
  if (!ctx.target.documentedOperations.has(operation))
    ctx.skip(`the target does not offer ${operation} (a project-defined route; the spec lists it with its body not shown)`);
}

function randomAddress(): `0x${string}` {
  return privateKeyToAccount(`0x${randomBytes(32).toString('hex')}`).address;
}

function isPage(body: unknown): body is Json & { data: Json[] } {
  return isObject(body) && isArray(body.data) && typeof body.has_more === 'boolean';
}

export const projectChecks = [
  check({
    id: 'project.members',
    title: 'Workspace members (project-defined): list, add, read, change role, remove',
    requirements: ['P-MEM-001'],
    profiles: ONLY_A,
    tags: ['project', 'members'],
    needs: ['apiKey', 'workspace'],
    phase: PHASE.routes,
    async run(ctx: CheckContext) {
      offers(ctx, 'POST /api/v1/workspaces/{workspaceId}/members');
      const base = `/workspaces/${ctx.target.workspaceId}/members`;
      const list = await ctx.api('GET', base, { auth: ctx.key, label: 'members' });
      ctx.expect('P-MEM-001', list.status === 200 && isPage(list.json), `GET ${base} answered ${list.status} without a page`);
      const address = randomAddress();
      const added = await ctx.api('POST', base, { auth: ctx.key, body: { address, role: 'viewer' }, label: 'add a viewer' });
      ctx.require('P-MEM-001', added.status === 201, `adding a member answered ${added.status}`);
      const member = isObject(added.json) ? added.json : {};
      ctx.expect(
        'P-MEM-001',
        member.address === address && member.role === 'viewer',
        `the new member reads ${JSON.stringify(member).slice(0, 160)}`,
      );
      const changed = await ctx.api('PATCH', `${base}/${address}`, { auth: ctx.key, body: { role: 'developer' }, label: 'change role' });
      ctx.expect('P-MEM-001', isObject(changed.json) && changed.json.role === 'developer', `changing the role answered ${changed.status}`);
      const bad = await ctx.api('POST', base, {
        auth: ctx.key,
        body: { address: randomAddress(), role: 'owner' },
        label: 'an unknown role',
      });
      expectError(ctx, bad, { status: 400, param: 'role' }, 'P-MEM-001', 'a member with role "owner"');
      const removed = await ctx.api('DELETE', `${base}/${address}`, { auth: ctx.key, label: 'remove' });
      ctx.expect('P-MEM-001', removed.status === 200, `removing answered ${removed.status}`);
      const gone = await ctx.api('GET', `${base}/${address}`, { auth: ctx.key, label: 'read the removed member' });
      ctx.expect('P-MEM-001', gone.status === 404, `a removed member still answers ${gone.status}`);
    },
  }),

  check({
    id: 'project.counterparties',
    title: 'Counterparties (project-defined): register and screen, read, list; a sanctioned jurisdiction fails',
    requirements: ['P-CPT-001'],
    profiles: ONLY_A,
    tags: ['project', 'compliance'],
    needs: ['apiKey'],
    phase: PHASE.routes,
    async run(ctx: CheckContext) {
      offers(ctx, 'POST /api/v1/counterparties');
      const clean = await ctx.api('POST', '/counterparties', {
        auth: ctx.key,
        body: { name: 'Conformance GmbH', jurisdiction: 'DE', addresses: [randomAddress()] },
        label: 'register a counterparty',
      });
      ctx.require('P-CPT-001', clean.status === 201, `registering answered ${clean.status}`);
      const created = isObject(clean.json) ? clean.json : {};
      ctx.expect(
        'P-CPT-001',
        isObject(created.screening) && created.screening.status === 'approved',
        'a clean counterparty is not approved',
      );
      const sanctioned = await ctx.api('POST', '/counterparties', {
        auth: ctx.key,
        body: { name: 'Conformance KP', jurisdiction: 'KP', addresses: [randomAddress()] },
        label: 'a sanctioned jurisdiction',
      });
      ctx.expect(
        'P-CPT-001',
        isObject(sanctioned.json) && isObject(sanctioned.json.screening) && sanctioned.json.screening.status === 'failed',
        `a KP counterparty screened ${JSON.stringify(isObject(sanctioned.json) ? sanctioned.json.screening : sanctioned.status)}`,
      );
      const read = await ctx.api('GET', `/counterparties/${String(created.id)}`, { auth: ctx.key, label: 'read it' });
      ctx.expect('P-CPT-001', read.status === 200, `reading it answered ${read.status}`);
      const bad = await ctx.api('POST', '/counterparties', {
        auth: ctx.key,
        body: { name: 'X', jurisdiction: 'Germany', addresses: [randomAddress()] },
        label: 'a jurisdiction that is not a country code',
      });
      expectError(ctx, bad, { status: 400, param: 'jurisdiction' }, 'P-CPT-001', 'jurisdiction "Germany"');
    },
  }),

  check({
    id: 'project.deferred-balance',
    title: 'Deferred credit balance (project-defined): per chain and token, available and held as integer strings',
    requirements: ['P-DEF-001'],
    profiles: ONLY_A,
    tags: ['project', 'deferred'],
    needs: ['apiKey'],
    phase: PHASE.routes,
    async run(ctx: CheckContext) {
      offers(ctx, 'GET /api/v1/deferred/balance');
      const balance = await ctx.api('GET', '/deferred/balance', { auth: ctx.key, label: 'deferred balance' });
      ctx.require('P-DEF-001', balance.status === 200, `GET /deferred/balance answered ${balance.status}`);
      const body = isObject(balance.json) ? balance.json : {};
      const rows = isArray(body.balances) ? (body.balances as Json[]) : undefined;
      ctx.expect('P-DEF-001', body.object === 'deferred_balance' && rows !== undefined, 'no deferred_balance with balances');
      const bad = (rows ?? []).filter(
        (r) => typeof r.chainId !== 'number' || !/^\d+$/.test(String(r.available)) || !/^\d+$/.test(String(r.held)),
      );
      ctx.expect('P-DEF-001', bad.length === 0, `${bad.length} balance row(s) without chainId, available and held integer strings`);
    },
  }),

  check({
    id: 'project.approvals',
    title: 'Admin approvals (project-defined): a cursor page',
    requirements: ['P-ADM-001'],
    profiles: ONLY_A,
    tags: ['project', 'admin'],
    needs: ['apiKey'],
    phase: PHASE.routes,
    async run(ctx: CheckContext) {
      offers(ctx, 'GET /api/v1/admin/approvals');
      const page = await ctx.api('GET', '/admin/approvals', { auth: ctx.key, label: 'approvals' });
      ctx.expect('P-ADM-001', page.status === 200 && isPage(page.json), `GET /admin/approvals answered ${page.status} without a page`);
    },
  }),

  check({
    id: 'project.session-revocation',
    title: 'Session revocation (project-defined): a revoked session token answers 401',
    requirements: ['P-AUTH-001'],
    profiles: ONLY_A,
    tags: ['project', 'auth'],
    needs: [],
    phase: PHASE.routes,
    async run(ctx: CheckContext) {
      offers(ctx, 'DELETE /api/v1/auth/sessions/{sessionId}');
      const account = privateKeyToAccount(`0x${randomBytes(32).toString('hex')}`);
      const challenge = await ctx.api('POST', '/auth/challenge', { body: { address: account.address }, label: 'sign-in challenge' });
      const message = isObject(challenge.json) ? challenge.json.message : undefined;
      if (typeof message !== 'string')
        ctx.skip(`the sign-in challenge has this project's shape only: it answered ${challenge.status} without a message`);
      const verified = await ctx.api('POST', '/auth/verify', {
        body: { message, signature: await account.signMessage({ message }) },
        label: 'sign in',
      });
      const session = isObject(verified.json) ? verified.json : {};
      if (typeof session.token !== 'string' || typeof session.sessionId !== 'string')
        ctx.skip(`sign-in answered ${verified.status} without this project's token and sessionId`);
      const revoked = await ctx.api('DELETE', `/auth/sessions/${session.sessionId}`, { auth: session.token, label: 'end the session' });
      ctx.expect('P-AUTH-001', revoked.status === 200, `ending the session answered ${revoked.status}`);
      const after = await ctx.api('GET', '/auth/me', { auth: session.token, label: 'the ended session' });
      ctx.expect('P-AUTH-001', after.status === 401, `the ended session's token answered ${after.status}`);
    },
  }),
];
