import { createHash, randomBytes } from 'node:crypto';
import type pg from 'pg';
import { loadPg } from '../store/postgres/pg-driver.js';
import type { Logger } from 'pino';
import type { PostgresLocation } from '../store/store.js';

/**
 * How the service instances that share one store tell each other things that are not rows: "events up to seq N are
 * committed", "the clock moved", "send this RFQ to your solvers", "this solver answered". Postgres carries it
 * (LISTEN/NOTIFY on one channel per store), so there is nothing to run beside the database.
 *
 * A message reaches the *other* instances only: each instance handles its own work directly, and the bus is how the
 * rest hear of it. Delivery is at most once and in order per sender; whoever needs certainty reads the store after
 * a message (and again after `onReconnect`), so a lost message delays but never loses anything.
 */
export interface InstanceBus {
  /** This instance's id, unique per process start. */
  readonly instanceId: string;
  /** True when other instances can exist (a Postgres store). */
  readonly shared: boolean;
  /** Sends `payload` (JSON, at most 7,900 bytes) on `topic` to every other instance. */
  publish(topic: string, payload: unknown): void;
  subscribe(topic: string, handler: BusHandler): () => void;
  /** Runs after the bus lost its connection and got it back: messages sent meanwhile are gone, read the store. */
  onReconnect(listener: () => void): () => void;
  /** Resolves once every message published so far was handed to Postgres (tests, shutdown). */
  flushed(): Promise<void>;
  close(): Promise<void>;
}

export type BusHandler = (payload: unknown, from: string) => void;

/**
 * The bus's session name in `pg_stat_activity`, followed by the instance id: while it is there the instance lives
 * (presence of solvers, WebSocket caps and idempotency claims of other instances are judged by it).
 */
export const BUS_APPLICATION_NAME = 'settlement-sandbox bus ';

/** SQL that holds while the instance named by `instanceIdColumn` lives: its bus session is in `pg_stat_activity`. */
export function instanceAlive(instanceIdColumn: string): string {
  return `EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.application_name = '${BUS_APPLICATION_NAME}' || ${instanceIdColumn})`;
}

/** Postgres's NOTIFY payload limit is 8,000 bytes; the envelope takes the rest. */
export const MAX_BUS_PAYLOAD_BYTES = 7_900;

export function newInstanceId(): string {
  return `ins_${randomBytes(6).toString('hex')}`;
}

/** One channel per store: instances of different stores on one server (the test suite) never hear each other. */
export function busChannel(location: PostgresLocation): string {
  return `sandbox_bus_${createHash('sha256')
    .update(location.schema ?? 'public')
    .digest('hex')
    .slice(0, 20)}`;
}

/** The bus of a store nobody else can open (SQLite): there is no other instance to tell. */
export class SoloBus implements InstanceBus {
  readonly shared = false;
  constructor(readonly instanceId: string = newInstanceId()) {}
  publish(_topic: string, _payload: unknown): void {}
  subscribe(_topic: string, _handler: BusHandler): () => void {
    return () => undefined;
  }
  onReconnect(_listener: () => void): () => void {
    return () => undefined;
  }
  async flushed(): Promise<void> {}
  async close(): Promise<void> {}
}

interface Envelope {
  t: string;
  f: string;
  p: unknown;
}

const RECONNECT_DELAYS_MS = [100, 250, 500, 1_000, 2_000];

export class PostgresBus implements InstanceBus {
  readonly shared = true;
  readonly channel: string;
  private client: pg.Client | undefined;
  private readonly handlers = new Map<string, Set<BusHandler>>();
  private readonly reconnectListeners = new Set<() => void>();
  /** Publishes go out one after another on the one connection, so each sender's messages arrive in order. */
  private sending: Promise<void> = Promise.resolve();
  private closed = false;
  private attempt = 0;

  private constructor(
    private readonly location: PostgresLocation,
    readonly instanceId: string,
    private readonly logger: Logger | undefined,
  ) {
    this.channel = busChannel(location);
  }

  static async connect(location: PostgresLocation, options: { instanceId?: string; logger?: Logger } = {}): Promise<PostgresBus> {
    const bus = new PostgresBus(location, options.instanceId ?? newInstanceId(), options.logger);
    await bus.open();
    return bus;
  }

  publish(topic: string, payload: unknown): void {
    const text = JSON.stringify({ t: topic, f: this.instanceId, p: payload } satisfies Envelope);
    if (Buffer.byteLength(text) > MAX_BUS_PAYLOAD_BYTES + 100) {
      throw new RangeError(`bus message on ${topic} is ${Buffer.byteLength(text)} bytes; send ids and read the store instead`);
    }
    if (this.closed) return;
    this.sending = this.sending.then(async () => {
      const client = this.client;
      if (client === undefined) {
        this.logger?.warn({ topic }, 'instance bus disconnected: message dropped');
        return;
      }
      try {
        await client.query('SELECT pg_notify($1, $2)', [this.channel, text]);
      } catch (error) {
        this.logger?.warn({ err: error, topic }, 'instance bus: message not sent');
      }
    });
  }

  subscribe(topic: string, handler: BusHandler): () => void {
    let set = this.handlers.get(topic);
    if (set === undefined) {
      set = new Set();
      this.handlers.set(topic, set);
    }
    set.add(handler);
    return () => set.delete(handler);
  }

  onReconnect(listener: () => void): () => void {
    this.reconnectListeners.add(listener);
    return () => this.reconnectListeners.delete(listener);
  }

  flushed(): Promise<void> {
    return this.sending;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.sending;
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private async open(): Promise<void> {
    const { Client } = await loadPg();
    const client = new Client({ connectionString: this.location.url, application_name: `${BUS_APPLICATION_NAME}${this.instanceId}` });
    client.on('notification', (message) => {
      if (message.channel === this.channel && message.payload !== undefined) this.deliver(message.payload);
    });
    const lost = () => {
      if (this.client !== client) return;
      this.client = undefined;
      client.end().catch(() => undefined);
      if (!this.closed) this.reconnect();
    };
    client.on('error', (error) => {
      this.logger?.warn({ err: error }, 'instance bus connection failed');
      lost();
    });
    client.on('end', lost);
    await client.connect();
    await client.query(`LISTEN "${this.channel}"`);
    this.client = client;
    this.attempt = 0;
  }

  private reconnect(): void {
    const delay = RECONNECT_DELAYS_MS[Math.min(this.attempt, RECONNECT_DELAYS_MS.length - 1)]!;
    this.attempt += 1;
    setTimeout(() => {
      if (this.closed) return;
      this.open().then(
        () => {
          for (const listener of this.reconnectListeners) listener();
        },
        (error: unknown) => {
          this.logger?.warn({ err: error }, 'instance bus: reconnect failed');
          this.reconnect();
        },
      );
    }, delay).unref();
  }

  private deliver(text: string): void {
    let envelope: Envelope;
    try {
      envelope = JSON.parse(text) as Envelope;
    } catch {
      return;
    }
    if (envelope.f === this.instanceId) return;
    for (const handler of this.handlers.get(envelope.t) ?? []) {
      try {
        handler(envelope.p, envelope.f);
      } catch (error) {
        this.logger?.error({ err: error, topic: envelope.t }, 'instance bus handler failed');
      }
    }
  }
}
