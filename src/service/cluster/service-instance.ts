import type { Logger } from 'pino';
import type { Store } from '../store/store.js';
import { type InstanceBus, newInstanceId, PostgresBus, SoloBus } from './instance-bus.js';
import { SingletonLease } from './singleton-lease.js';

/**
 * One service process among those sharing a store. Every instance answers any request; the one holding the
 * singleton lease also runs the work that must happen once (relaying, chain watching, the refund keeper, webhook
 * dispatch, housekeeping). On SQLite there is only ever one instance, and it holds the singletons from the start.
 */
export interface ServiceInstance {
  readonly id: string;
  readonly bus: InstanceBus;
  /** True while this instance runs the singleton work. */
  readonly singleton: boolean;
  /** Runs `listener` when this instance gets the singleton work. */
  onSingleton(listener: () => void): () => void;
}

export interface InstanceOptions {
  logger: Logger;
  /** How often a waiting instance tries the lease; take-over happens within this plus Postgres noticing a dead peer. */
  leasePollMs?: number | undefined;
  /** Called once when a holder loses its lease: its singleton work must stop (a cluster worker exits). */
  onLost: (reason: string) => void;
}

export class SoloInstance implements ServiceInstance {
  readonly id = newInstanceId();
  readonly bus = new SoloBus(this.id);
  readonly singleton = true;
  onSingleton(_listener: () => void): () => void {
    return () => undefined;
  }
  async close(): Promise<void> {}
}

export class SharedInstance implements ServiceInstance {
  private constructor(
    readonly id: string,
    readonly bus: InstanceBus,
    private readonly lease: SingletonLease,
  ) {}

  static async join(store: Store, options: InstanceOptions): Promise<SharedInstance> {
    const location = store.postgres!;
    const id = newInstanceId();
    const bus = await PostgresBus.connect(location, { instanceId: id, logger: options.logger });
    const lease = new SingletonLease(location, {
      instanceId: id,
      logger: options.logger,
      ...(options.leasePollMs === undefined ? {} : { pollMs: options.leasePollMs }),
    });
    lease.onLost(options.onLost);
    try {
      await lease.start();
    } catch (error) {
      await bus.close();
      throw error;
    }
    return new SharedInstance(id, bus, lease);
  }

  get singleton(): boolean {
    return this.lease.held;
  }

  onSingleton(listener: () => void): () => void {
    return this.lease.onAcquired(listener);
  }

  async close(): Promise<void> {
    await this.lease.stop();
    await this.bus.close();
  }
}

export async function joinInstances(store: Store, options: InstanceOptions): Promise<SoloInstance | SharedInstance> {
  return store.postgres === undefined ? new SoloInstance() : SharedInstance.join(store, options);
}
