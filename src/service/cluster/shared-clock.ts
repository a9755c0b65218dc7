import type { Logger } from 'pino';
import type { ChainTime, TestClock } from '../../clock/index.js';
import { type AdvanceOperation, type AdvanceStatus, ClockAdvances } from '../clock-advances.js';
import { newId } from '../store/ids.js';
import type { MigrationSet } from '../store/migrations.js';
import type { Store } from '../store/store.js';
import type { ServiceInstance } from './service-instance.js';

/**
 * One test clock for every service instance of a store. Each instance keeps its own `TestClock` (reads stay local and
 * synchronous), and the copies are kept at one time:
 *
 * - Walks (advances) run on the singleton holder only, where the singleton jobs live: an advance requested at another
 *   instance is forwarded over the bus, so jobs run and chains move exactly as with one instance, whichever instance
 *   took the request. Only the walking instance moves the chains (the others' chain moves are gated off).
 * - Every step of a walk is recorded in the store and published; the other instances follow (their own due jobs run on
 *   their copy as they follow). At the end the walker waits, at most `ACK_WAIT_MS`, until every instance it knows has
 *   applied the final time, so the answer comes after every live instance shows it.
 * - A new or restarted instance starts at the time in the store (`sandbox_clock`), and after a bus reconnect reads it
 *   again. Time only moves forward: an instance that is ahead records its time and the others follow it.
 *
 * A ticking clock is shared as (clock time, wall time) pairs: every copy ticks from there with the wall clock.
 */
export const clockMigrations: MigrationSet = {
  module: 'clock',
  migrations: [
    {
      name: '001_sandbox_clock',
      up: (db) =>
        db.exec(`
          CREATE TABLE sandbox_clock (
            id TEXT PRIMARY KEY,
            now_ms INTEGER NOT NULL,
            wall_ms INTEGER NOT NULL,
            ticking INTEGER NOT NULL,
            updated_by TEXT NOT NULL
          );
        `),
    },
  ],
};

/** How long a walker waits for the other instances to confirm the final time before it answers anyway. */
export const ACK_WAIT_MS = 1_000;
/** A forwarded advance nobody took within this fails (no instance holds the singleton work right now). */
const ACCEPT_WITHIN_MS = 2_000;
/** The walker says a forwarded advance is still running this often; silence for `SILENCE_MS` fails it. */
const ALIVE_EVERY_MS = 1_000;
const SILENCE_MS = 5_000;
const KEEP_FINISHED_MS = 3_600_000;

/** A point of shared time: clock time `t` at wall time `w`; a ticking clock (`k`) has moved on by the wall since. */
interface TimePoint {
  t: number;
  w: number;
  k: boolean;
}

interface TimeMessage extends TimePoint {
  /** Set when the sender waits for `clock.applied`. */
  seq?: number;
}

interface EndedMessage extends TimePoint {
  id: string;
  status: AdvanceStatus;
  result: { from: number; to: number; jobsRun: number } | null;
  error: string | null;
}

interface Forwarded {
  operation: AdvanceOperation;
  settle: () => void;
  sentAt: number;
  heardAt: number;
  accepted: boolean;
}

function timeOf(point: TimePoint): number {
  return point.t + (point.k ? Date.now() - point.w : 0);
}

/**
 * The chains as this instance's `ChainTimeSync` sees them: moved only by the walks this instance runs, never while it
 * follows another instance's walk (the walker moved them already).
 */
class GatedChainTime implements ChainTime {
  following = 0;
  readonly now?: () => Promise<number>;

  constructor(private readonly chains: ChainTime) {
    if (chains.now !== undefined) this.now = () => chains.now!();
  }

  async advance(seconds: number): Promise<void> {
    if (this.following > 0) return;
    await this.chains.advance(seconds);
  }
}

export class SharedClock {
  /** Give this to the clock's `ChainTimeSync` instead of the chains themselves. */
  readonly chainTime: ChainTime | undefined;
  private readonly gate: GatedChainTime | undefined;
  private following = 0;

  constructor(
    readonly clock: TestClock,
    chains: ChainTime | undefined,
  ) {
    this.gate = chains === undefined ? undefined : new GatedChainTime(chains);
    this.chainTime = this.gate;
  }

  /**
   * Joins the other instances of the store (a no-op on a store only one process opens) and returns the clock advances
   * the sandbox routes use. Call before modules start, so they schedule from the shared time.
   */
  async join(store: Store, instance: ServiceInstance, logger: Logger): Promise<ClockAdvances> {
    if (!instance.bus.shared) return new ClockAdvances(this.clock);
    const advances = new SharedClockAdvances(this, store, instance, logger);
    await advances.join();
    return advances;
  }

  /** Moves this copy to `point` without moving the chains or publishing; a time behind it changes nothing. */
  async follow(point: TimePoint): Promise<void> {
    this.enter();
    try {
      // Let a job that is running finish first, so a ticking target does not overshoot by the time spent waiting.
      await this.clock.idle();
      await this.clock.advanceTo(timeOf(point));
    } finally {
      this.leave();
    }
  }

  get isFollowing(): boolean {
    return this.following > 0;
  }

  private enter(): void {
    this.following += 1;
    if (this.gate !== undefined) this.gate.following += 1;
  }

  private leave(): void {
    this.following -= 1;
    if (this.gate !== undefined) this.gate.following -= 1;
  }
}

/**
 * The clock advances of one instance among several: walks run here when this instance holds the singleton work, and
 * are forwarded to the holder otherwise. See `SharedClock`.
 */
class SharedClockAdvances extends ClockAdvances {
  private readonly forwarded = new Map<string, Forwarded>();
  /** Advances walked here for another instance, by that instance's id for them. */
  private readonly walkedFor = new Map<string, AdvanceOperation>();
  private readonly peers = new Set<string>();
  private readonly acks = new Map<number, { waiting: Set<string>; resolve: () => void }>();
  private readonly unsubscribe: Array<() => void> = [];
  /** Follows run one after another, in the order the bus delivered them. */
  private follows: Promise<void> = Promise.resolve();
  private seq = 0;
  private watchdog: NodeJS.Timeout | undefined;
  private alive: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly shared: SharedClock,
    private readonly store: Store,
    private readonly instance: ServiceInstance,
    private readonly logger: Logger,
  ) {
    super(shared.clock);
  }

  async join(): Promise<void> {
    const { bus } = this.instance;
    const on = (topic: string, handler: (payload: never, from: string) => void) => {
      this.unsubscribe.push(
        bus.subscribe(topic, (payload, from) => {
          if (this.closed) return;
          if (topic !== 'clock.bye') this.peers.add(from);
          handler(payload as never, from);
        }),
      );
    };
    on('clock.hello', (payload: { reply: boolean }) => {
      if (!payload.reply) bus.publish('clock.hello', { reply: true });
    });
    on('clock.bye', (_payload: unknown, from: string) => this.peers.delete(from));
    on('clock.time', (payload: TimeMessage, from: string) => {
      this.queueFollow(payload).then(() => {
        if (payload.seq !== undefined) bus.publish('clock.applied', { seq: payload.seq, for: from });
      });
    });
    on('clock.applied', (payload: { seq: number; for: string }, from: string) => {
      if (payload.for !== this.instance.id) return;
      const waiter = this.acks.get(payload.seq);
      waiter?.waiting.delete(from);
      if (waiter !== undefined && waiter.waiting.size === 0) waiter.resolve();
    });
    on('clock.advance', (payload: { id: string; ms: number }) => this.walkFor(payload.id, payload.ms));
    on('clock.advance.cancel', (payload: { id: string }) => {
      const operation = this.walkedFor.get(payload.id);
      if (operation?.status === 'running') void this.cancel(operation);
    });
    on('clock.advance.accepted', (payload: { id: string }) => this.heard(payload.id, true));
    on('clock.advance.alive', (payload: { ids: string[] }) => {
      for (const id of payload.ids) this.heard(id, false);
    });
    on('clock.advance.ended', (payload: EndedMessage) => this.ended(payload));
    this.unsubscribe.push(bus.onReconnect(() => void this.catchUp()));
    // After the chains' own step listener: the others hear of a step once the chains are there.
    this.unsubscribe.push(
      this.shared.clock.onStep(() => {
        if (!this.shared.isFollowing) this.publishTime();
      }),
    );
    this.unsubscribe.push(this.instance.onSingleton(() => void this.catchUp()));
    await this.catchUp();
    bus.publish('clock.hello', { reply: false });
  }

  override start(ms: number): AdvanceOperation {
    if (!this.instance.singleton) return this.forward(ms);
    const operation = super.start(ms);
    // The answer waits until the other instances show the new time.
    (operation as { done: Promise<void> }).done = operation.done.then(() => this.confirm());
    return operation;
  }

  override get(id: string): AdvanceOperation | undefined {
    return super.get(id) ?? this.forwarded.get(id)?.operation;
  }

  override async stopAll(): Promise<void> {
    await super.stopAll();
    for (const entry of this.forwarded.values()) {
      if (entry.operation.status === 'running') this.finish(entry, 'failed', null, 'this instance is stopping');
    }
    this.close();
  }

  /** Reads the store's time: follows it when it is ahead, records ours when we are ahead. */
  private async catchUp(): Promise<void> {
    const stored = this.read();
    if (stored !== undefined) await this.queueFollow(stored);
    // Ticking copies differ by a few ms; only a copy clearly ahead moves the others.
    const slack = this.shared.clock.ticking ? 20 : 0;
    if (stored === undefined || this.shared.clock.now() > timeOf(stored) + slack) this.publishTime();
  }

  private queueFollow(point: TimePoint): Promise<void> {
    const run = this.follows.then(() => this.shared.follow(point));
    this.follows = run.catch((error: unknown) => this.logger.warn({ err: error }, 'the clock could not follow another instance'));
    return this.follows;
  }

  private now(): TimePoint {
    return { t: this.shared.clock.now(), w: Date.now(), k: this.shared.clock.ticking };
  }

  /** Records this copy's time in the store (forward only) and tells the others. */
  private publishTime(seq?: number): void {
    if (this.closed) return;
    const point = this.now();
    this.store.transaction(() =>
      this.store.db
        .prepare(
          `INSERT INTO sandbox_clock (id, now_ms, wall_ms, ticking, updated_by) VALUES ('sandbox', ?, ?, ?, ?)
             ON CONFLICT (id) DO UPDATE SET now_ms = excluded.now_ms, wall_ms = excluded.wall_ms, ticking = excluded.ticking,
               updated_by = excluded.updated_by
             WHERE excluded.now_ms >= sandbox_clock.now_ms + sandbox_clock.ticking * (excluded.wall_ms - sandbox_clock.wall_ms)`,
        )
        .run(point.t, point.w, point.k ? 1 : 0, this.instance.id),
    );
    this.instance.bus.publish('clock.time', seq === undefined ? point : { ...point, seq });
  }

  private read(): TimePoint | undefined {
    const row = this.store.db.prepare(`SELECT now_ms, wall_ms, ticking FROM sandbox_clock WHERE id = 'sandbox'`).get() as
      | { now_ms: number; wall_ms: number; ticking: number }
      | undefined;
    return row === undefined ? undefined : { t: Number(row.now_ms), w: Number(row.wall_ms), k: Number(row.ticking) === 1 };
  }

  /** Publishes the time and waits (at most ACK_WAIT_MS) until every known instance applied it. */
  private async confirm(): Promise<void> {
    if (this.closed) return;
    const seq = ++this.seq;
    const waiting = new Set(this.peers);
    const applied = new Promise<void>((resolve) => {
      if (waiting.size === 0) return resolve();
      const timer = setTimeout(() => {
        // Gone or stuck: stop waiting for it (it is asked again once it speaks).
        for (const peer of waiting) this.peers.delete(peer);
        this.logger.warn({ instances: [...waiting] }, 'instances did not confirm the clock time');
        resolve();
      }, ACK_WAIT_MS);
      timer.unref();
      this.acks.set(seq, {
        waiting,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
    this.publishTime(seq);
    await applied;
    this.acks.delete(seq);
  }

  /** The holder walks an advance another instance took. */
  private walkFor(id: string, ms: number): void {
    if (!this.instance.singleton || this.walkedFor.has(id)) return;
    const operation = super.start(ms);
    this.walkedFor.set(id, operation);
    const { bus } = this.instance;
    bus.publish('clock.advance.accepted', { id });
    this.alive ??= setInterval(() => {
      const ids = [...this.walkedFor].filter(([, o]) => o.status === 'running').map(([key]) => key);
      if (ids.length > 0) bus.publish('clock.advance.alive', { ids });
    }, ALIVE_EVERY_MS);
    this.alive.unref();
    void operation.done
      .then(() => this.confirm())
      .then(() => {
        const { result } = operation;
        const error = operation.error === undefined ? null : String((operation.error as Error)?.message ?? operation.error);
        bus.publish('clock.advance.ended', {
          ...this.now(),
          id,
          status: operation.status,
          result: result === null ? null : { from: result.from, to: result.to, jobsRun: result.jobsRun },
          error: error?.slice(0, 1_000) ?? null,
        } satisfies EndedMessage);
        this.walkedFor.delete(id);
      });
  }

  /** An advance this instance took while another holds the singleton work: the holder walks it. */
  private forward(ms: number): AdvanceOperation {
    this.pruneForwarded();
    const from = this.shared.clock.now();
    const controller = new AbortController();
    let settle: () => void = () => undefined;
    const done = new Promise<void>((resolve) => {
      settle = resolve;
    });
    const operation: AdvanceOperation = {
      id: newId('adv'),
      status: 'running',
      requestedMs: ms,
      from,
      target: from + ms,
      startedAt: Date.now(),
      finishedAt: null,
      result: null,
      error: undefined,
      done,
      controller,
    };
    const now = Date.now();
    this.forwarded.set(operation.id, { operation, settle, sentAt: now, heardAt: now, accepted: false });
    controller.signal.addEventListener('abort', () => this.instance.bus.publish('clock.advance.cancel', { id: operation.id }));
    this.instance.bus.publish('clock.advance', { id: operation.id, ms });
    this.watchdog ??= setInterval(() => this.watch(), 250);
    this.watchdog.unref();
    return operation;
  }

  private heard(id: string, accepted: boolean): void {
    const entry = this.forwarded.get(id);
    if (entry === undefined) return;
    entry.heardAt = Date.now();
    if (accepted) entry.accepted = true;
  }

  private ended(message: EndedMessage): void {
    const entry = this.forwarded.get(message.id);
    if (entry === undefined || entry.operation.status !== 'running') return;
    // Answer only once this copy shows the walk's end.
    void this.queueFollow(message).then(() => this.finish(entry, message.status, message.result, message.error));
  }

  private finish(entry: Forwarded, status: AdvanceStatus, result: Forwarded['operation']['result'], error: string | null): void {
    if (entry.operation.status !== 'running') return;
    entry.operation.status = status;
    entry.operation.result = result;
    entry.operation.error = error === null ? undefined : new Error(error);
    entry.operation.finishedAt = Date.now();
    entry.settle();
  }

  private watch(): void {
    const now = Date.now();
    let running = 0;
    for (const entry of this.forwarded.values()) {
      if (entry.operation.status !== 'running') continue;
      if (!entry.accepted && now - entry.sentAt > ACCEPT_WITHIN_MS) {
        this.finish(entry, 'failed', null, 'no instance took the advance: the singleton work is changing hands, retry');
      } else if (entry.accepted && now - entry.heardAt > SILENCE_MS) {
        this.finish(entry, 'failed', null, 'the instance walking the advance stopped answering; the clock stands where it got to');
      } else {
        running += 1;
      }
    }
    if (running === 0 && this.watchdog !== undefined) {
      clearInterval(this.watchdog);
      this.watchdog = undefined;
    }
  }

  private pruneForwarded(): void {
    const now = Date.now();
    for (const [id, entry] of this.forwarded) {
      const finishedAt = entry.operation.finishedAt;
      if (finishedAt !== null && now - finishedAt > KEEP_FINISHED_MS) this.forwarded.delete(id);
    }
  }

  private close(): void {
    if (this.closed) return;
    this.instance.bus.publish('clock.bye', {});
    this.closed = true;
    for (const off of this.unsubscribe.splice(0)) off();
    for (const waiter of this.acks.values()) waiter.resolve();
    if (this.watchdog !== undefined) clearInterval(this.watchdog);
    if (this.alive !== undefined) clearInterval(this.alive);
  }
}
