import { randomBytes } from 'node:crypto';
import type { CheckContext } from '../../core/context.js';
import type { WireResponse } from '../../wire/http.js';
import { BOTH, check, PHASE } from '../support/define.js';
import { expectError } from '../support/errors.js';
import { isArray, isObject } from '../support/shape.js';
import type { SweepParticipant } from '../support/clock-sweep.js';
import { dayPass } from '../long-sweep.js';

/**
 * A creating POST route to exercise idempotency on, with a list that shows how many resources exist. The spec's
 * `POST /webhooks` comes first; a deployment without it may offer the sandbox key route instead.
 */
interface Creator {
  name: string;
  path: string;
  body(variant: number): unknown;
  /** A body the route rejects before executing (validation). */
  invalidBody?: unknown;
  listPath: string;
  idOf(created: unknown): string | undefined;
  remove?(ctx: CheckContext, id: string): Promise<void>;
}

async function webhookCreator(ctx: CheckContext): Promise<Creator> {
  const receiver = await ctx.receiver();
  const endpoint = receiver.endpoint('idempotency');
  return {
    name: 'POST /api/v1/webhooks',
    path: '/webhooks',
    // A narrow event list: these endpoints exist only to count creations.
    body: (variant) => ({
      url: `${endpoint.url}?v=${variant}`,
      events: ['credit.updated'],
      secret: `whsec_conformance${randomBytes(12).toString('hex')}`,
    }),
    invalidBody: { url: 'not a url', events: 'order.*', secret: 42 },
    listPath: '/webhooks',
    idOf: (created) => (isObject(created) ? ((created.webhookId ?? created.id) as string | undefined) : undefined),
    remove: async (c, id) => {
      await c.api('DELETE', `/webhooks/${id}`, { auth: c.key, label: 'clean up' });
    },
  };
}

const sandboxKeyCreator: Creator = {
  name: 'POST /api/v1/sandbox/keys',
  path: '/sandbox/keys',
  body: (variant) => ({ label: `conformance-${variant}` }),
  listPath: '/sandbox/keys',
  idOf: (created) => (isObject(created) ? (created.id as string | undefined) : undefined),
};

function creator(ctx: CheckContext): Promise<Creator> {
  const key = ctx.key;
  return ctx.fixture('idempotency-creator', async () => {
    const webhooks = await ctx.api('GET', '/webhooks', { auth: key, label: 'is POST /webhooks available?' });
    if (webhooks.status === 200) return webhookCreator(ctx);
    if (ctx.target.capabilities.has('keys')) return sandboxKeyCreator;
    ctx.fail(`no creating route to test idempotency on: GET /webhooks answered ${webhooks.status} and there are no sandbox key routes`);
  });
}

/** Body-derived resource counts differ per list shape: `{data: []}`, `{webhooks: []}` or a bare array. */
function count(list: WireResponse): number | undefined {
  const body = list.json;
  if (isArray(body)) return body.length;
  if (!isObject(body)) return undefined;
  for (const field of ['data', 'webhooks', 'keys']) if (isArray(body[field])) return (body[field] as unknown[]).length;
  return typeof body.total_count === 'number' ? body.total_count : undefined;
}

async function listCount(ctx: CheckContext, c: Creator): Promise<number> {
  const list = await ctx.api('GET', c.listPath, { auth: ctx.key, query: { limit: 100 }, label: `count via ${c.listPath}` });
  const n = count(list);
  if (n === undefined) ctx.fail(`GET ${c.listPath} answered ${list.status} without a countable list`);
  return n;
}

function post(ctx: CheckContext, c: Creator, body: unknown, idempotencyKey: string | undefined, label: string) {
  return ctx.api('POST', c.path, {
    auth: ctx.key,
    body,
    ...(idempotencyKey === undefined ? {} : { headers: { 'Idempotency-Key': idempotencyKey } }),
    label,
  });
}

function track(ctx: CheckContext, c: Creator, response: WireResponse): void {
  const id = c.idOf(response.json);
  if (id !== undefined && c.remove) ctx.state.onFinish(() => c.remove!(ctx, id).catch(() => undefined) as Promise<void>);
}

const newKey = () => `conformance-${randomBytes(12).toString('hex')}`;

export const idempotencyChecks = [
  check({
    id: 'idempotency.replay',
    title: 'The same Idempotency-Key and body replays the first response byte for byte and creates once',
    requirements: ['X-IDM-001', 'X-IDM-006'],
    profiles: BOTH,
    tags: ['platform', 'idempotency'],
    needs: ['apiKey'],
    phase: PHASE.routes,
    async run(ctx: CheckContext) {
      const c = await creator(ctx);
      const before = await listCount(ctx, c);
      const key = newKey();
      const body = c.body(1);
      const first = await post(ctx, c, body, key, 'first request');
      ctx.require('X-IDM-001', first.status >= 200 && first.status < 300, `${c.name} answered ${first.status}`);
      track(ctx, c, first);
      const second = await post(ctx, c, body, key, 'replay');
      ctx.expect('X-IDM-001', second.status === first.status, `the replay answered ${second.status}, the first ${first.status}`);
      ctx.expect('X-IDM-001', second.text === first.text, 'the replay body differs from the first response');
      ctx.expect('X-IDM-001', (await listCount(ctx, c)) === before + 1, 'the replay created a second resource (or the first none)');
      ctx.expect(
        'X-IDM-006',
        second.headers['idempotent-replayed'] === 'true',
        `the replay is not marked Idempotent-Replayed: true (${second.headers['idempotent-replayed']})`,
      );
      ctx.expect('X-IDM-006', first.headers['idempotency-key'] === key, 'the response does not echo the Idempotency-Key');
      ctx.note(`exercised on ${c.name}`);
    },
  }),

  check({
    id: 'idempotency.conflict',
    title: 'The same Idempotency-Key with a different body is a 409 conflict',
    requirements: ['X-IDM-002'],
    profiles: BOTH,
    tags: ['platform', 'idempotency'],
    needs: ['apiKey'],
    phase: PHASE.routes,
    async run(ctx: CheckContext) {
      const c = await creator(ctx);
      const key = newKey();
      const first = await post(ctx, c, c.body(2), key, 'first request');
      ctx.require('X-IDM-002', first.status >= 200 && first.status < 300, `${c.name} answered ${first.status}`);
      track(ctx, c, first);
      const other = await post(ctx, c, c.body(3), key, 'same key, other body');
      expectError(ctx, other, { status: 409, type: 'conflict' }, 'X-IDM-002', 'the same key with another body');
    },
  }),

  check({
    id: 'idempotency.race',
    title: '20 parallel requests with one key create exactly one resource; the rest are replays or 409',
    requirements: ['X-IDM-003'],
    profiles: BOTH,
    tags: ['platform', 'idempotency'],
    needs: ['apiKey'],
    phase: PHASE.routes,
    async run(ctx: CheckContext) {
      const c = await creator(ctx);
      const before = await listCount(ctx, c);
      const key = newKey();
      const body = c.body(4);
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => post(ctx, c, body, key, `racer ${i}`)));
      const created = answers.filter((a) => a.status >= 200 && a.status < 300);
      const conflicts = answers.filter((a) => a.status === 409);
      ctx.note(`${created.length} 2xx, ${conflicts.length} 409, others ${answers.length - created.length - conflicts.length}`);
      ctx.require('X-IDM-003', created.length >= 1, 'no request succeeded');
      track(ctx, c, created[0]!);
      ctx.expect(
        'X-IDM-003',
        created.every((a) => a.text === created[0]!.text && a.status === created[0]!.status),
        'the successful answers are not identical replays',
      );
      ctx.expect(
        'X-IDM-003',
        created.length + conflicts.length === answers.length,
        `some racers got neither 2xx nor 409: ${answers.map((a) => a.status).join(',')}`,
      );
      ctx.expect('X-IDM-003', (await listCount(ctx, c)) === before + 1, 'the race created more (or fewer) than one resource');
    },
  }),

  check({
    id: 'idempotency.key-length',
    title: 'A 255-character key is accepted and a 256-character key is a 400',
    requirements: ['X-IDM-004'],
    profiles: BOTH,
    tags: ['platform', 'idempotency'],
    needs: ['apiKey'],
    phase: PHASE.routes,
    async run(ctx: CheckContext) {
      const c = await creator(ctx);
      const longest = `k${randomBytes(127).toString('hex')}`; // 255 characters
      const ok = await post(ctx, c, c.body(5), longest, '255-character key');
      ctx.expect('X-IDM-004', ok.status >= 200 && ok.status < 300, `a 255-character key answered ${ok.status}`);
      track(ctx, c, ok);
      const tooLong = await post(ctx, c, c.body(6), `${longest}x`, '256-character key');
      expectError(ctx, tooLong, { status: 400, type: 'invalid_request' }, 'X-IDM-004', 'a 256-character key');
    },
  }),

  check({
    id: 'idempotency.rejected-request-not-stored',
    title: 'A request rejected before it executes stores nothing: a corrected retry with the same key runs fresh',
    requirements: ['X-IDM-005'],
    profiles: BOTH,
    tags: ['platform', 'idempotency'],
    needs: ['apiKey'],
    phase: PHASE.routes,
    async run(ctx: CheckContext) {
      const c = await creator(ctx);
      const key = newKey();
      const broken = await ctx.api('POST', c.path, {
        auth: ctx.key,
        raw: '{"truncated": ',
        headers: { 'Content-Type': 'application/json', 'Idempotency-Key': key },
        label: 'malformed body with the key',
      });
      ctx.expect('X-IDM-005', broken.status === 400, `a malformed body answered ${broken.status}`);
      if (c.invalidBody !== undefined) {
        const invalid = await post(ctx, c, c.invalidBody, key, 'invalid body with the key');
        ctx.expect('X-IDM-005', invalid.status >= 400 && invalid.status < 500, `an invalid body answered ${invalid.status}`);
      }
      const fixed = await post(ctx, c, c.body(7), key, 'corrected body, same key');
      ctx.expect(
        'X-IDM-005',
        fixed.status >= 200 && fixed.status < 300,
        `the corrected request answered ${fixed.status}: the rejected one was stored`,
      );
      track(ctx, c, fixed);
    },
  }),

  check({
    id: 'idempotency.window-24h',
    title: 'A replay 23 h 57 m later (by the sandbox clock) still returns the first response',
    requirements: ['X-IDM-007'],
    profiles: BOTH,
    tags: ['platform', 'idempotency', 'timing'],
    needs: ['apiKey', 'clock'],
    phase: PHASE.lateTiming,
    async run(ctx: CheckContext) {
      const day = await dayPass(ctx);
      const { first, replay } = day.idempotency ?? ctx.fail(day.idempotencyProblem ?? 'no idempotent request to replay');
      ctx.require('X-IDM-007', first.status >= 200 && first.status < 300, `the first request answered ${first.status}`);
      ctx.expect(
        'X-IDM-007',
        replay.status === first.status && replay.text === first.text,
        `the replay 23 h 57 m later answered ${replay.status} with another body`,
      );
    },
  }),
];

export interface DayPass {
  idempotency?: { first: WireResponse; replay: WireResponse };
  idempotencyProblem?: string;
  rotation?: {
    old: string;
    successor: string | undefined;
    rightAfter: number;
    almostDay: number;
    afterDay: WireResponse;
    successorAfter: number | undefined;
  };
  rotationProblem?: string;
}

/**
 * The idempotency window and key rotation, set up now and observed a day later: they join the run's one long walk
 * of the sandbox clock (see long-sweep.ts), since a day of clock time is the expensive part of both.
 */
export async function dayParticipant(ctx: CheckContext): Promise<SweepParticipant<DayPass>> {
  const pass: DayPass = {};
  const probe = async (key: string, label: string) => ctx.api('GET', '/sandbox/keys', { auth: key, label });
  // Idempotency: the first response of a creating POST.
  let idempotent: { c: Creator; key: string; body: unknown; first: WireResponse } | undefined;
  try {
    const c = await creator(ctx);
    const key = newKey();
    const body = c.body(8);
    const first = await post(ctx, c, body, key, 'first request');
    track(ctx, c, first);
    idempotent = { c, key, body, first };
  } catch (error) {
    pass.idempotencyProblem = (error as Error).message;
  }
  // Rotation: a fresh key, rotated at once.
  let old: string | undefined;
  let successor: string | undefined;
  let rightAfter = 0;
  let almostDay = 0;
  if (ctx.target.capabilities.has('keys')) {
    const created = await ctx.api('POST', '/sandbox/keys', { auth: ctx.key, label: 'a key to rotate' });
    const issued = isObject(created.json) ? created.json.key : undefined;
    if (typeof issued === 'string') {
      const rotated = await ctx.api('POST', '/sandbox/keys/rotate', { auth: issued, body: {}, label: 'rotate it' });
      if (rotated.status === 201) {
        old = issued;
        successor = isObject(rotated.json) && isObject(rotated.json.key) ? (rotated.json.key.key as string | undefined) : undefined;
        rightAfter = (await probe(old, 'old key right after rotation')).status;
      } else pass.rotationProblem = `rotation answered ${rotated.status}`;
    } else pass.rotationProblem = `creating a sandbox key answered ${created.status}`;
  } else pass.rotationProblem = ctx.target.missing.keys ?? 'no sandbox key routes';
  return {
    steps: [
      {
        at: 24 * 3600 - 180,
        run: async () => {
          if (idempotent)
            pass.idempotency = {
              first: idempotent.first,
              replay: await post(ctx, idempotent.c, idempotent.body, idempotent.key, 'replay 23 h 57 m later'),
            };
          if (old !== undefined) almostDay = (await probe(old, 'old key at 23 h 57 m')).status;
        },
      },
      {
        at: 24 * 3600 + 180,
        run: async () => {
          if (old === undefined) return;
          const afterDay = await probe(old, 'old key at 24 h 3 m');
          const successorAfter = successor === undefined ? undefined : (await probe(successor, 'successor key')).status;
          pass.rotation = { old, successor, rightAfter, almostDay, afterDay, successorAfter };
        },
      },
    ],
    result: () => pass,
  };
}
