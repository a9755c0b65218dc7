import { z } from 'zod';
import { parseDuration, type ChainTime, type Clock, type TestClock } from '../../clock/index.js';
import type { ApiRouter } from './api-router.js';
import { ConflictError, InvalidRequestError, MaintenanceError } from '../errors/api-errors.js';
import type { OpenApiRegistry } from '../api/openapi.js';
import { IsoTimestamp, isoTime } from '../api/wire.js';

const MAX_ADVANCE_MS = 366 * 86_400_000;

export const ClockState = z.object({
  now: IsoTimestamp,
  nowMs: z.number().int(),
  kind: z.enum(['test', 'real']),
  ticking: z.boolean().meta({ description: 'Time also flows with the wall clock between advances.' }),
  pendingJobs: z.number().int().nonnegative(),
  nextJobAt: IsoTimestamp.nullable(),
});

export const AdvanceRequest = z
  .strictObject({
    duration: z.string().max(64).optional().meta({ description: 'e.g. `31h`, `1h30m`, `90s`, `500ms`, `2d`.' }),
    seconds: z
      .number()
      .nonnegative()
      .max(MAX_ADVANCE_MS / 1_000)
      .optional(),
  })
  .meta({ description: 'Exactly one of `duration` or `seconds`.' });

export const AdvanceResponse = z.object({
  from: IsoTimestamp,
  to: IsoTimestamp,
  now: IsoTimestamp,
  nowMs: z.number().int(),
  advancedMs: z.number().int().nonnegative(),
  jobsRun: z.number().int().nonnegative(),
  chainTime: z.number().int().nullable().meta({ description: 'Latest block timestamp (Unix s) after the advance, if known.' }),
});

function isTestClock(clock: Clock): clock is TestClock {
  return clock.kind === 'test';
}

/** `GET /sandbox/clock` and `POST /sandbox/clock/advance`: one clock for the service and every chain. */
export function mountSandboxClockRoutes(
  api: ApiRouter,
  openapi: OpenApiRegistry,
  deps: { clock: Clock; chainTime: ChainTime | undefined },
): void {
  openapi.schema('ClockState', ClockState);
  openapi.schema('ClockAdvanceRequest', AdvanceRequest);
  openapi.schema('ClockAdvanceResponse', AdvanceResponse);
  const { clock } = deps;

  api.route({
    method: 'get',
    path: '/sandbox/clock',
    operationId: 'getSandboxClock',
    summary: 'The service clock. Sandbox only.',
    tags: ['Sandbox'],
    auth: 'public',
    responses: { 200: { description: 'Current time and pending jobs.', schema: ClockState } },
    handler: () => {
      const pending = clock.pendingJobs();
      const now = clock.now();
      return {
        status: 200,
        body: {
          now: isoTime(now),
          nowMs: now,
          kind: clock.kind,
          ticking: isTestClock(clock) ? clock.ticking : true,
          pendingJobs: pending.length,
          nextJobAt: pending[0] === undefined ? null : isoTime(pending[0].at),
        },
      };
    },
  });

  api.route({
    method: 'post',
    path: '/sandbox/clock/advance',
    operationId: 'advanceSandboxClock',
    summary: 'Move the service clock and every chain forward, running due jobs in time order. Sandbox only.',
    tags: ['Sandbox'],
    auth: 'required',
    idempotent: false,
    body: AdvanceRequest,
    responses: { 200: { description: 'The clock moved.', schema: AdvanceResponse } },
    handler: async ({ body }) => {
      if ((body.duration === undefined) === (body.seconds === undefined)) {
        throw new InvalidRequestError({
          code: body.duration === undefined ? 'parameter_missing' : 'parameter_invalid',
          param: 'duration',
          message: 'Pass exactly one of `duration` (e.g. "31h") or `seconds`.',
        });
      }
      let ms: number;
      if (body.duration !== undefined) {
        try {
          ms = parseDuration(body.duration);
        } catch (error) {
          throw new InvalidRequestError({ code: 'parameter_invalid', param: 'duration', message: (error as Error).message });
        }
        if (ms > MAX_ADVANCE_MS) {
          throw new InvalidRequestError({ code: 'parameter_invalid', param: 'duration', message: 'Advance at most 366 days at once.' });
        }
      } else {
        ms = Math.round(body.seconds! * 1_000);
      }
      if (!isTestClock(clock)) {
        throw new ConflictError({ code: 'clock_not_adjustable', message: 'This deployment runs on the real clock.' });
      }
      let result: Awaited<ReturnType<typeof clock.advance>>;
      try {
        result = await clock.advance(ms);
      } catch (error) {
        throw new MaintenanceError({
          code: 'chain_unavailable',
          message: `The clock could not move every chain: ${(error as Error).message}`.slice(0, 300),
          cause: error,
        });
      }
      let chainTime: number | null = null;
      if (deps.chainTime?.now !== undefined) {
        try {
          chainTime = await deps.chainTime.now();
        } catch {
          chainTime = null;
        }
      }
      const now = clock.now();
      return {
        status: 200,
        body: {
          from: isoTime(result.from),
          to: isoTime(result.to),
          now: isoTime(now),
          nowMs: now,
          advancedMs: ms,
          jobsRun: result.jobsRun,
          chainTime,
        },
      };
    },
  });
}
