import { z } from 'zod';
import { type AdvanceResult, parseDuration, type ChainTime, type Clock, type TestClock } from '../../clock/index.js';
import { ADVANCE_ANSWER_WITHIN_MS, type AdvanceOperation, ClockAdvances } from '../clock-advances.js';
import type { RouteTable } from '../api/route.js';
import { ConflictError, InvalidRequestError, MaintenanceError, NotFoundError, ValidationError } from '../errors/api-errors.js';
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

const NUMBER = '[0-9]+([.][0-9]+)?';
const UNIT = '([mM][sS]|[sSmMhHdDwW])';
/** A bare number of seconds, or parts like `1h 30m` (what parseDuration reads). */
const DURATION_PATTERN = new RegExp(`^ *(${NUMBER}|${NUMBER} *${UNIT}( *${NUMBER} *${UNIT})*) *$`);

export const AdvanceRequest = z
  .strictObject({
    duration: z
      .string()
      .max(64)
      // The clock's duration syntax, stated in the document and checked here alike (ASCII digits and spaces only).
      .regex(DURATION_PATTERN, 'must be a duration such as 31h, 1h30m, 90s, 500ms or 2d')
      .optional()
      .meta({ description: 'e.g. `31h`, `1h30m`, `90s`, `500ms`, `2d`; at most 366 days.' }),
    seconds: z
      .number()
      .nonnegative()
      .max(MAX_ADVANCE_MS / 1_000)
      .optional()
      .meta({
        description:
          'Seconds to advance; fractions are accepted and rounded to the nearest millisecond (the service clock counts ms). ' +
          'Chains count whole seconds: they move by the whole seconds advanced so far, the remainder is carried to the next advance.',
      }),
  })
  .meta({
    description: 'Exactly one of `duration` or `seconds`.',
    // The rule the handler applies, stated in the document.
    oneOf: [{ required: ['duration'] }, { required: ['seconds'] }],
  });

export const AdvanceResponse = z.object({
  from: IsoTimestamp,
  to: IsoTimestamp,
  now: IsoTimestamp,
  nowMs: z.number().int(),
  advancedMs: z.number().int().nonnegative(),
  jobsRun: z.number().int().nonnegative(),
  chainTime: z.number().int().nullable().meta({ description: 'Latest block timestamp (Unix s) after the advance, if known.' }),
});

export const AdvanceOperationView = z
  .object({
    id: z.string().meta({ description: '`adv_…`' }),
    status: z.enum(['running', 'completed', 'cancelled', 'failed']),
    requestedMs: z.number().int().nonnegative(),
    from: IsoTimestamp,
    target: IsoTimestamp,
    now: IsoTimestamp.meta({ description: 'Where the service clock stands now (progress of a running advance).' }),
    startedAt: IsoTimestamp.meta({ description: 'Wall-clock time the advance started.' }),
    finishedAt: IsoTimestamp.nullable(),
    result: AdvanceResponse.nullable(),
    error: z.string().nullable(),
  })
  .meta({ description: 'A clock advance that outlived its request (202), or one looked up by id.' });

export const AdvanceIdParams = z.object({ advanceId: z.string().regex(/^adv_[0-9a-z]{1,64}$/, 'must be an advance id (adv_…)') });

function isTestClock(clock: Clock): clock is TestClock {
  return clock.kind === 'test';
}

/** `GET /sandbox/clock` and `POST /sandbox/clock/advance`: one clock for the service and every chain. */
export function mountSandboxClockRoutes(
  api: RouteTable,
  openapi: OpenApiRegistry,
  deps: { clock: Clock; chainTime: ChainTime | undefined; advances?: ClockAdvances; answerWithinMs?: number },
): void {
  openapi.schema('ClockState', ClockState);
  openapi.schema('ClockAdvanceRequest', AdvanceRequest);
  openapi.schema('ClockAdvanceResponse', AdvanceResponse);
  openapi.schema('ClockAdvanceOperation', AdvanceOperationView);
  const { clock } = deps;
  const advances = deps.advances ?? (isTestClock(clock) ? new ClockAdvances(clock) : undefined);
  const answerWithinMs = deps.answerWithinMs ?? ADVANCE_ANSWER_WITHIN_MS;

  async function chainTimeNow(): Promise<number | null> {
    if (deps.chainTime?.now === undefined) return null;
    try {
      return await deps.chainTime.now();
    } catch {
      return null;
    }
  }

  async function view(operation: AdvanceOperation) {
    const now = clock.now();
    return {
      id: operation.id,
      status: operation.status,
      requestedMs: operation.requestedMs,
      from: isoTime(operation.from),
      target: isoTime(operation.target),
      now: isoTime(now),
      startedAt: isoTime(operation.startedAt),
      finishedAt: operation.finishedAt === null ? null : isoTime(operation.finishedAt),
      result: operation.result === null ? null : await resultBody(operation.requestedMs, operation.result),
      error: operation.error === undefined ? null : String((operation.error as Error)?.message ?? operation.error).slice(0, 300),
    };
  }

  async function resultBody(ms: number, result: AdvanceResult) {
    const now = clock.now();
    return {
      from: isoTime(result.from),
      to: isoTime(result.to),
      now: isoTime(now),
      nowMs: now,
      advancedMs: ms,
      jobsRun: result.jobsRun,
      chainTime: await chainTimeNow(),
    };
  }

  function operationOf(advanceId: string): AdvanceOperation {
    const operation = advances?.get(advanceId);
    if (operation === undefined)
      throw new NotFoundError({ code: 'resource_not_found', param: 'advanceId', message: `No clock advance ${advanceId}.` });
    return operation;
  }

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
    responses: {
      200: { description: 'The clock moved.', schema: AdvanceResponse },
      422: { description: 'A `duration` whose parts add up to more than 366 days (`advance_too_long`): advance in several steps.' },
      202: {
        description: `The advance takes longer than ${ADVANCE_ANSWER_WITHIN_MS / 1_000} s: it goes on; \`Location\` names its route (GET for progress, DELETE to cancel).`,
        schema: AdvanceOperationView,
        links: {
          Progress: { operationId: 'getSandboxClockAdvance', parameters: { advanceId: '$response.body#/id' } },
          Cancel: { operationId: 'cancelSandboxClockAdvance', parameters: { advanceId: '$response.body#/id' } },
        },
      },
    },
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
        // The document states the syntax; the sum of the parts is a limit of the sandbox, refused like a trade size.
        if (ms > MAX_ADVANCE_MS) {
          throw new ValidationError({ code: 'advance_too_long', param: 'duration', message: 'Advance at most 366 days at once.' });
        }
      } else {
        ms = Math.round(body.seconds! * 1_000);
      }
      if (!isTestClock(clock) || advances === undefined) {
        throw new ConflictError({ code: 'clock_not_adjustable', message: 'This deployment runs on the real clock.' });
      }
      const operation = advances.start(ms);
      let timer: NodeJS.Timeout | undefined;
      const waited = await Promise.race([
        operation.done.then(() => 'ended' as const),
        new Promise<'waiting'>((resolve) => {
          timer = setTimeout(() => resolve('waiting'), answerWithinMs);
        }),
      ]);
      clearTimeout(timer);
      if (waited === 'waiting') {
        // A long walk (many due jobs): answer now; the advance goes on, and its route tells how far it got.
        return {
          status: 202,
          body: await view(operation),
          headers: { Location: `${api.base}/sandbox/clock/advances/${operation.id}` },
        };
      }
      if (operation.status === 'failed') {
        throw new MaintenanceError({
          code: 'chain_unavailable',
          message: `The clock could not move every chain: ${(operation.error as Error)?.message ?? String(operation.error)}`.slice(0, 300),
          cause: operation.error,
        });
      }
      if (operation.status === 'cancelled') {
        throw new ConflictError({
          code: 'advance_cancelled',
          param: 'advanceId',
          message: `The advance ${operation.id} was cancelled before it ended.`,
        });
      }
      return { status: 200, body: await resultBody(ms, operation.result!) };
    },
  });

  api.route({
    method: 'get',
    path: '/sandbox/clock/advances/:advanceId',
    operationId: 'getSandboxClockAdvance',
    summary: 'A clock advance by id: running (with where the clock stands), completed, cancelled or failed. Sandbox only.',
    tags: ['Sandbox'],
    auth: 'required',
    params: AdvanceIdParams,
    responses: {
      200: { description: 'The advance.', schema: AdvanceOperationView },
      404: { description: 'No advance with this id (advances are kept an hour after they end).' },
    },
    handler: async ({ params }) => ({ status: 200, body: await view(operationOf(params.advanceId)) }),
  });

  api.route({
    method: 'delete',
    path: '/sandbox/clock/advances/:advanceId',
    operationId: 'cancelSandboxClockAdvance',
    summary: 'Cancel a running clock advance: it stops after its current jump (jobs that ran stay done). Sandbox only.',
    tags: ['Sandbox'],
    auth: 'required',
    params: AdvanceIdParams,
    responses: {
      200: { description: 'The advance stopped; `now` is where the clock stands.', schema: AdvanceOperationView },
      404: { description: 'No advance with this id.' },
      409: { description: '`advance_not_running`: the advance already ended.' },
    },
    handler: async ({ params }) => {
      const operation = operationOf(params.advanceId);
      if (operation.status !== 'running') {
        throw new ConflictError({
          code: 'advance_not_running',
          param: 'advanceId',
          message: `The advance ${operation.id} already ended (${operation.status}).`,
        });
      }
      await advances!.cancel(operation);
      return { status: 200, body: await view(operation) };
    },
  });
}
