import { TakerStreamClient, type StreamMessage } from '../../src/clients/ws-client.js';
import type { StreamSpec } from '../core/scenario-spec.js';
import { sleep } from '../core/eventually.js';
import { orderIdOf, patternCovers, rfqIdOf, type RecordedEvent, type Subscriber } from '../observe/events.js';

/** Topics of the taker stream that carry order events (Reference A). */
const ORDER_TOPIC_TYPES = ['order.*', 'compliance.event'];

/**
 * A taker-stream subscriber of the scenario's workspace: connects with the workspace's key, subscribes, and keeps
 * every event it receives, distinct by id. When the connection drops (the service restarts) it waits until the
 * service answers again, reconnects and subscribes with the last event id as cursor, so the replay fills the gap.
 *
 * It reconnects itself rather than through the client's own backoff: a connection attempt refused while the service
 * is down leaves an unhandled rejection in `TakerStreamClient` (reported), so it only dials a service that answers.
 */
export class StreamRecorder implements Subscriber {
  readonly channel = 'ws' as const;
  readonly lossy = false;
  private readonly _events: RecordedEvent[] = [];
  private readonly seen = new Set<string>();
  private client: TakerStreamClient | undefined;
  private closed = false;
  private lastEventId: string | undefined;
  reconnects = 0;

  private constructor(
    readonly name: string,
    private readonly url: string,
    private readonly token: string,
    private readonly healthUrl: string,
    private readonly spec: StreamSpec,
  ) {}

  static async open(name: string, url: string, token: string, spec: StreamSpec): Promise<StreamRecorder> {
    const health = `${url.replace(/^ws/, 'http').replace(/\/api\/v1\/ws.*$/, '')}/api/v1/health`;
    const recorder = new StreamRecorder(name, url, token, health, spec);
    await recorder.connect(undefined);
    return recorder;
  }

  private async connect(cursor: string | undefined): Promise<void> {
    const client = await TakerStreamClient.connect({ url: this.url, token: this.token, reconnect: false });
    client.on((message) => this.onMessage(message));
    client.socket?.once('close', () => {
      if (!this.closed) void this.reconnect();
    });
    this.client = client;
    await client.subscribe({
      ...(this.spec.topics === undefined ? {} : { topics: [...this.spec.topics] }),
      ...(this.spec.channels === undefined ? {} : { channels: [...this.spec.channels] }),
      ...(this.spec.corridors === undefined ? {} : { corridors: [...this.spec.corridors] }),
      ...(cursor === undefined ? {} : { cursor }),
    });
  }

  private async reconnect(): Promise<void> {
    while (!this.closed) {
      await sleep(100);
      if (!(await this.serviceAnswers())) continue;
      try {
        await this.connect(this.lastEventId);
        this.reconnects += 1;
        return;
      } catch {
        // Went down again between the health check and the handshake: wait for it once more.
      }
    }
  }

  private async serviceAnswers(): Promise<boolean> {
    try {
      await fetch(this.healthUrl, { signal: AbortSignal.timeout(1_000) });
      return true;
    } catch {
      return false;
    }
  }

  private onMessage(message: StreamMessage): void {
    const id = message.id;
    if (typeof id !== 'string' || !id.startsWith('evt_')) return;
    this.lastEventId = id;
    if (this.seen.has(id)) return;
    this.seen.add(id);
    this._events.push({
      id,
      type: message.type,
      orderId: orderIdOf(message),
      rfqId: rfqIdOf(message),
      body: message,
      receivedAt: Date.now(),
    });
  }

  get connected(): boolean {
    return this.client?.connected ?? false;
  }

  events(): readonly RecordedEvent[] {
    return this._events;
  }

  covers(type: string): boolean {
    const topics = this.spec.topics ?? [];
    const byTopic =
      topics.some((topic) => topic.startsWith('orders:')) && ORDER_TOPIC_TYPES.some((pattern) => patternCovers(pattern, type));
    return byTopic || (this.spec.channels ?? []).some((pattern) => patternCovers(pattern, type));
  }

  close(): void {
    this.closed = true;
    this.client?.close();
  }
}
