import { randomBytes } from 'node:crypto';
import type { CheckContext } from '../../core/context.js';
import { BOTH, check, PHASE } from '../support/define.js';
import { expectError } from '../support/errors.js';
import { dayPass } from '../long-sweep.js';

import { creator, listCount, newKey, post, track } from './day-pass.js';

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
