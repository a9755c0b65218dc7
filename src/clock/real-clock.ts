import { ScheduledClock } from './scheduled-clock.js';

/** Production time: the machine's wall clock; jobs fire on timers. */
export class RealClock extends ScheduledClock {
  readonly kind = 'real' as const;

  now(): number {
    return Date.now();
  }

  protected timerDelay(at: number): number {
    return at - this.now();
  }
}
