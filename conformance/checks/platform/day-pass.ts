import { randomBytes } from 'node:crypto';
import type { CheckContext } from '../../core/context.js';
import type { WireResponse } from '../../wire/http.js';
import type { SweepParticipant } from '../support/clock-sweep.js';
import { isArray, isObject } from '../support/shape.js';

/**
 * A creating POST route to exercise idempotency on, with a list that shows how many resources exist. The spec's
 * `POST /webhooks` comes first; a deployment without it may offer the sandbox key route instead.
 */
export interface Creator {
  name: string;
  path: string;
  body(variant: number): unknown;
  /** A body the route rejects before executing (validation). */
  invalidBody?: unknown;
  listPath: string;
  idOf(created: unknown): string | undefined;
  remove?(ctx: CheckContext, id: string): Promise<void>;
}

export async function webhookCreator(ctx: CheckContext): Promise<Creator> {
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

export function creator(ctx: CheckContext): Promise<Creator> {
  const key = ctx.key;
  return ctx.fixture('idempotency-creator', async () => {
    const webhooks = await ctx.api('GET', '/webhooks', { auth: key, label: 'is POST /webhooks available?' });
    if (webhooks.status === 200) return webhookCreator(ctx);
    if (ctx.target.capabilities.has('keys')) return sandboxKeyCreator;
    ctx.fail(`no creating route to test idempotency on: GET /webhooks answered ${webhooks.status} and there are no sandbox key routes`);
  });
}

/** Body-derived resource counts differ per list shape: `{data: []}`, `{webhooks: []}` or a bare array. */
export function count(list: WireResponse): number | undefined {
  const body = list.json;
  if (isArray(body)) return body.length;
  if (!isObject(body)) return undefined;
  for (const field of ['data', 'webhooks', 'keys']) if (isArray(body[field])) return (body[field] as unknown[]).length;
  return typeof body.total_count === 'number' ? body.total_count : undefined;
}

export async function listCount(ctx: CheckContext, c: Creator): Promise<number> {
  const list = await ctx.api('GET', c.listPath, { auth: ctx.key, query: { limit: 100 }, label: `count via ${c.listPath}` });
  const n = count(list);
  if (n === undefined) ctx.fail(`GET ${c.listPath} answered ${list.status} without a countable list`);
  return n;
}

export function post(ctx: CheckContext, c: Creator, body: unknown, idempotencyKey: string | undefined, label: string) {
  return ctx.api('POST', c.path, {
    auth: ctx.key,
    body,
    ...(idempotencyKey === undefined ? {} : { headers: { 'Idempotency-Key': idempotencyKey } }),
    label,
  });
}

export function track(ctx: CheckContext, c: Creator, response: WireResponse): void {
  const id = c.idOf(response.json);
  if (id !== undefined && c.remove) ctx.state.onFinish(() => c.remove!(ctx, id).catch(() => undefined) as Promise<void>);
}

export const newKey = () => `conformance-${randomBytes(12).toString('hex')}`;

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
