import { randomBytes } from 'node:crypto';
import type { CheckContext } from '../../core/context.js';
import { BOTH, check, ONLY_A, PHASE } from '../support/define.js';
import { expectError } from '../support/errors.js';
import { dayPass } from '../long-sweep.js';

/** Routes the spec marks Required (JWT or API key), listed so that one served by the target can be probed. */
const REQUIRED_ROUTES = ['/settlements', '/webhooks', '/auth/sessions'];

/** The required routes the target serves to its own key (2xx): the ones credentials can be tested on. */
export function requiredRoutes(ctx: CheckContext): Promise<string[]> {
  const key = ctx.key;
  return ctx.fixture('required-routes', async () => {
    const served: string[] = [];
    for (const path of REQUIRED_ROUTES) {
      const response = await ctx.api('GET', path, { auth: key, label: `is ${path} served?`, record: false });
      if (response.status >= 200 && response.status < 300) served.push(path);
    }
    return served;
  });
}

async function firstRequiredRoute(ctx: CheckContext): Promise<string> {
  const served = await requiredRoutes(ctx);
  if (served.length === 0) ctx.fail(`none of the Required routes (${REQUIRED_ROUTES.join(', ')}) answers 2xx to the deployment's own key`);
  return served[0]!;
}

function otherEnvironmentKey(key: string): string {
  if (key.startsWith('svc_test_')) return `svc_live_${key.slice('svc_test_'.length)}`;
  if (key.startsWith('svc_live_')) return `svc_test_${key.slice('svc_live_'.length)}`;
  return `svc_live_conformance_${randomBytes(16).toString('hex')}`;
}

export const authChecks = [
  check({
    id: 'auth.credential-required',
    title: 'Required routes answer 401 without Authorization and 2xx with the key',
    requirements: ['X-AUTH-001'],
    profiles: BOTH,
    tags: ['platform', 'auth'],
    needs: ['apiKey'],
    phase: PHASE.platform,
    async run(ctx: CheckContext) {
      const served = await requiredRoutes(ctx);
      ctx.require('X-AUTH-001', served.length > 0, `none of ${REQUIRED_ROUTES.join(', ')} answers 2xx to the deployment's own key`);
      for (const path of served) {
        const response = await ctx.api('GET', path, { label: `${path} without credentials` });
        expectError(ctx, response, { status: 401, type: 'authentication_error' }, 'X-AUTH-001', `GET ${path} without Authorization`);
      }
      ctx.note(`401 without a key on ${served.join(', ')}`);
    },
  }),

  check({
    id: 'auth.invalid-key',
    title: 'Unknown, malformed and non-Bearer credentials are refused with 401',
    requirements: ['X-AUTH-003'],
    profiles: BOTH,
    tags: ['platform', 'auth'],
    needs: ['apiKey'],
    phase: PHASE.platform,
    async run(ctx: CheckContext) {
      const path = await firstRequiredRoute(ctx);
      const prefix = ctx.key.startsWith('svc_live_') ? 'svc_live_' : 'svc_test_';
      const attempts: Array<[string, Record<string, string>]> = [
        ['an unknown key of the right form', { Authorization: `Bearer ${prefix}conformance0_${randomBytes(24).toString('hex')}` }],
        [
          'the real key with one character changed',
          { Authorization: `Bearer ${ctx.key.slice(0, -1)}${ctx.key.endsWith('0') ? '1' : '0'}` },
        ],
        ['a malformed key', { Authorization: 'Bearer not-a-key' }],
        ['an empty Bearer', { Authorization: 'Bearer ' }],
        ['Basic credentials', { Authorization: `Basic ${Buffer.from('user:pass').toString('base64')}` }],
      ];
      for (const [what, headers] of attempts) {
        const response = await ctx.api('GET', path, { headers, label: what });
        expectError(ctx, response, { status: 401, type: 'authentication_error' }, 'X-AUTH-003', `GET ${path} with ${what}`);
      }
    },
  }),

  check({
    id: 'auth.wrong-environment-key',
    title: "A key with the other environment's prefix is an invalid key (401)",
    requirements: ['X-AUTH-004'],
    profiles: BOTH,
    tags: ['platform', 'auth'],
    needs: ['apiKey'],
    phase: PHASE.platform,
    async run(ctx: CheckContext) {
      const path = await firstRequiredRoute(ctx);
      const swapped = otherEnvironmentKey(ctx.key);
      const response = await ctx.api('GET', path, { auth: swapped, label: 'the real key with the other environment prefix' });
      expectError(
        ctx,
        response,
        { status: 401, type: 'authentication_error' },
        'X-AUTH-004',
        `GET ${path} with ${swapped.slice(0, 9)}… instead of ${ctx.key.slice(0, 9)}…`,
      );
      const fresh = `${swapped.slice(0, 9)}conformance1_${randomBytes(24).toString('hex')}`;
      const second = await ctx.api('GET', path, { auth: fresh, label: 'a fresh key of the other environment' });
      expectError(ctx, second, { status: 401, type: 'authentication_error' }, 'X-AUTH-004', `GET ${path} with a ${fresh.slice(0, 9)} key`);
    },
  }),

  check({
    id: 'auth.public-routes',
    title: 'Health, quote creation, quote read, order read, auth challenge and verify need no key',
    requirements: ['A-AUTH-001'],
    profiles: ONLY_A,
    tags: ['platform', 'auth'],
    phase: PHASE.platform,
    async run(ctx: CheckContext) {
      const probes: Array<[string, string, unknown]> = [
        ['GET', '/health', undefined],
        ['POST', '/quotes', {}],
        ['GET', `/quotes/qt_conformance${randomBytes(6).toString('hex')}`, undefined],
        ['GET', `/orders/ord_conformance${randomBytes(6).toString('hex')}`, undefined],
        ['POST', '/auth/challenge', {}],
        ['POST', '/auth/verify', {}],
      ];
      for (const [method, path, body] of probes) {
        const response = await ctx.api(method, path, {
          ...(body === undefined ? {} : { body }),
          label: `${method} ${path} without credentials`,
        });
        ctx.expect(
          'A-AUTH-001',
          response.status !== 401 && response.status !== 403,
          `${method} ${path} without a key answered ${response.status}: it is a public route`,
        );
        ctx.expect('X-ERR-001', response.status < 500, `${method} ${path} answered ${response.status}`);
      }
    },
  }),

  check({
    id: 'auth.me-requires-jwt',
    title: 'GET /api/v1/auth/me accepts only a JWT: an API key or nothing is a 401',
    requirements: ['A-AUTH-002'],
    profiles: ONLY_A,
    tags: ['platform', 'auth'],
    needs: ['apiKey'],
    phase: PHASE.platform,
    async run(ctx: CheckContext) {
      const withKey = await ctx.api('GET', '/auth/me', { auth: ctx.key, label: 'auth/me with an API key' });
      expectError(ctx, withKey, { status: 401, type: 'authentication_error' }, 'A-AUTH-002', 'GET /auth/me with an API key');
      const without = await ctx.api('GET', '/auth/me', { label: 'auth/me without credentials' });
      expectError(ctx, without, { status: 401, type: 'authentication_error' }, 'A-AUTH-002', 'GET /auth/me without credentials');
    },
  }),

  check({
    id: 'auth.rotated-key-grace',
    title: 'A rotated key works for 24 hours (by the clock) and then answers 401',
    requirements: ['X-AUTH-005', 'X-AUTH-003'],
    profiles: BOTH,
    tags: ['platform', 'auth', 'timing'],
    needs: ['apiKey', 'keys', 'clock'],
    phase: PHASE.lateTiming,
    async run(ctx: CheckContext) {
      const day = await dayPass(ctx);
      const rotation = day.rotation ?? ctx.fail(day.rotationProblem ?? 'no key was rotated');
      ctx.expect('X-AUTH-005', rotation.rightAfter === 200, `the old key stopped working at once (${rotation.rightAfter})`);
      ctx.expect(
        'X-AUTH-005',
        rotation.almostDay === 200,
        `the old key stopped working before 24 hours (${rotation.almostDay} at 23 h 57 m)`,
      );
      expectError(
        ctx,
        rotation.afterDay,
        { status: 401, type: 'authentication_error' },
        'X-AUTH-005',
        'the old key 24 h 3 m after rotation',
      );
      if (rotation.successorAfter !== undefined)
        ctx.expect('X-AUTH-005', rotation.successorAfter === 200, `the successor key answered ${rotation.successorAfter}`);
    },
  }),
];
