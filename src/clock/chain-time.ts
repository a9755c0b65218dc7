import type { ClockStep } from './types.js';
import type { TestClock } from './test-clock.js';

/** What the devnet offers to move every chain's time (anvil time offset plus a mined block). */
export interface ChainTime {
  advance(seconds: number): Promise<void>;
  /** Latest block timestamp (Unix seconds) of the chains, when the devnet can tell. */
  now?(): Promise<number>;
}

/**
 * Keeps the chains in step with a test clock. Chains count whole seconds, the clock milliseconds: the
 * sub-second remainder is carried so that after any series of advances the chains have moved by exactly
 * floor(total advanced ms / 1000) seconds, never more than the service clock.
 */
export class ChainTimeSync {
  private pendingMs = 0;
  private _movedSeconds = 0;
  private readonly _detach: () => void;

  constructor(
    clock: TestClock,
    private readonly chains: ChainTime,
  ) {
    this._detach = clock.onStep((step) => this.onStep(step));
  }

  /** Seconds the chains were moved through this sync so far. */
  get movedSeconds(): number {
    return this._movedSeconds;
  }

  detach(): void {
    this._detach();
  }

  private async onStep(step: ClockStep): Promise<void> {
    this.pendingMs += step.to - step.from;
    const seconds = Math.floor(this.pendingMs / 1_000);
    if (seconds <= 0) return;
    this.pendingMs -= seconds * 1_000;
    await this.chains.advance(seconds);
    this._movedSeconds += seconds;
  }
}
