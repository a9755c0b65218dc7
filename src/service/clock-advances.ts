import type { AdvanceResult, TestClock } from '../clock/index.js';
import { newId } from './store/ids.js';

/** How long `POST /sandbox/clock/advance` waits for an advance before it answers 202 with the advance's id. */
export const ADVANCE_ANSWER_WITHIN_MS = 10_000;

/** Finished advances are kept this long (wall time) for their status route; running ones until they end. */
const KEEP_FINISHED_MS = 3_600_000;

export type AdvanceStatus = 'running' | 'completed' | 'cancelled' | 'failed';

export interface AdvanceOperation {
  id: string;
  status: AdvanceStatus;
  requestedMs: number;
  from: number;
  target: number;
  startedAt: number;
  finishedAt: number | null;
  result: AdvanceResult | null;
  error: unknown;
  /** Settles when the advance ends, however it ends (never rejects). */
  readonly done: Promise<void>;
  readonly controller: AbortController;
}

/**
 * Clock advances as operations: each has an id (`adv_…`), a status and can be cancelled between two jumps. A long
 * advance keeps running after its request answered 202; its status route reports where the clock stands.
 */
export class ClockAdvances {
  private readonly operations = new Map<string, AdvanceOperation>();

  constructor(private readonly clock: TestClock) {}

  start(ms: number): AdvanceOperation {
    this.prune();
    const controller = new AbortController();
    const from = this.clock.now();
    const operation = {
      id: newId('adv'),
      status: 'running' as AdvanceStatus,
      requestedMs: ms,
      from,
      target: from + ms,
      startedAt: Date.now(),
      finishedAt: null as number | null,
      result: null as AdvanceResult | null,
      error: undefined as unknown,
      controller,
    };
    const done = this.clock.advance(ms, controller.signal).then(
      (result) => {
        operation.status = 'completed';
        operation.result = result;
      },
      (error: unknown) => {
        operation.status = controller.signal.aborted ? 'cancelled' : 'failed';
        operation.error = error;
      },
    );
    const tracked: AdvanceOperation = Object.assign(operation, {
      done: done.finally(() => {
        operation.finishedAt = Date.now();
      }),
    });
    this.operations.set(tracked.id, tracked);
    return tracked;
  }

  get(id: string): AdvanceOperation | undefined {
    return this.operations.get(id);
  }

  /** Asks a running advance to stop after its current jump; resolves once it stopped. */
  async cancel(operation: AdvanceOperation): Promise<void> {
    operation.controller.abort(new Error(`advance ${operation.id} cancelled`));
    await operation.done;
  }

  /** Stops every running advance (the service is stopping). */
  async stopAll(): Promise<void> {
    await Promise.all([...this.operations.values()].filter((o) => o.status === 'running').map((o) => this.cancel(o)));
  }

  private prune(): void {
    const now = Date.now();
    for (const [id, operation] of this.operations) {
      if (operation.finishedAt !== null && now - operation.finishedAt > KEEP_FINISHED_MS) this.operations.delete(id);
    }
  }
}
