import type { ScheduledJob } from '../../clock/index.js';
import type { EvidenceModule } from '../evidence/module.js';
import type { RunningContext, ServiceContext, ServiceModule } from '../module.js';
import { DeliveryDispatcher } from './dispatcher.js';
import { RETENTION_MS, WebhookEndpoints } from './endpoints.js';
import { WebhookFanOut } from './fan-out.js';
import { Mailbox } from './mailbox.js';
import { webhookMigrations } from './migrations.js';
import { WebhookEndpointRepository, WebhookMessageRepository } from './repository.js';
import { mountMailboxRoutes, mountWebhookRoutes } from './routes.js';
import { retryProfile, type WebhookProfileName } from './schedule.js';
import { WebhookSender } from './sender.js';
import { WebhookUrlPolicy, type Resolver } from './url-policy.js';

export interface WebhooksModuleOptions {
  evidence: EvidenceModule;
  /** Retry schedule and stop rule of this deployment: A (default, pause) or B (disable). */
  profile?: WebhookProfileName;
  /** Wall-clock time a receiver has to answer one attempt; default 30 s. */
  deliveryTimeoutMs?: number;
  /** Attempts in flight at once; default 64. */
  concurrency?: number;
  /** Host name resolution for the URL policy (tests pass a fixed table). */
  resolver?: Resolver;
}

const SWEEP_INTERVAL_MS = 3_600_000;

/** Bus topic: an instance that does not dispatch queued messages (a replay, an enable); the holder looks. */
const MESSAGES_QUEUED_TOPIC = 'webhooks.queued';

/**
 * Signed webhooks with at-least-once delivery: endpoints and their routes, fan-out from the outbox, the retry
 * schedule on the service clock, pause/disable with a mailbox notification, 7-day replay, and the sandbox mailbox.
 * Delivery state lives in the store; `start()` picks up every pending attempt after a restart.
 */
export class WebhooksModule implements ServiceModule {
  readonly name = 'webhooks';
  readonly migrations = webhookMigrations;
  private _endpoints: WebhookEndpoints | undefined;
  private _dispatcher: DeliveryDispatcher | undefined;
  private fanOut: WebhookFanOut | undefined;
  private _mailbox: Mailbox | undefined;
  private _messages: WebhookMessageRepository | undefined;
  private sweep: ScheduledJob | undefined;
  private readonly unsubscribe: Array<() => void> = [];
  private context: ServiceContext | undefined;
  private apiBase = '';

  constructor(private readonly options: WebhooksModuleOptions) {}

  setup(context: ServiceContext): void {
    this.context = context;
    const { clock, store, logger, config } = context;
    const profile = retryProfile(this.options.profile ?? 'A');
    const endpoints = new WebhookEndpointRepository(store);
    const messages = new WebhookMessageRepository(store);
    const mailbox = new Mailbox(store);
    const policy = new WebhookUrlPolicy({
      environment: config.environment,
      ...(this.options.resolver ? { resolver: this.options.resolver } : {}),
    });
    const sender = new WebhookSender({
      timeoutMs: this.options.deliveryTimeoutMs ?? 30_000,
      checkTarget: async (url) => {
        await policy.check(url);
      },
    });
    const dispatcher = new DeliveryDispatcher({
      clock,
      store,
      endpoints,
      messages,
      mailbox,
      sender,
      profile,
      logger: logger.child({ module: 'webhooks' }),
      concurrency: this.options.concurrency ?? 64,
      apiBase: () => this.apiBase,
      wakeHolder: () => context.instance.bus.publish(MESSAGES_QUEUED_TOPIC, {}),
    });
    const outbox = this.options.evidence.outbox;
    this.apiBase = config.publicUrl ?? '';
    this._messages = messages;
    this._mailbox = mailbox;
    this._dispatcher = dispatcher;
    this.fanOut = new WebhookFanOut({ clock, store, outbox, endpoints, messages, dispatcher, logger });
    this._endpoints = new WebhookEndpoints({
      clock,
      store,
      environment: config.environment,
      endpoints,
      messages,
      outbox,
      dispatcher,
      policy,
    });
    mountWebhookRoutes(context.routes(), context.routes({ base: '/v1' }), context.openapi, this._endpoints);
    if (config.environment === 'sandbox') mountMailboxRoutes(context.routes(), context.openapi, mailbox);
  }

  start(context: RunningContext): void {
    this.apiBase = context.config.publicUrl ?? context.url;
  }

  /**
   * Fan-out into deliveries and their dispatch run once, on the instance holding the singleton work. Fan-out hears
   * the events of every instance; one that takes over resumes from the fan-out cursor.
   */
  startSingleton(context: RunningContext): void {
    const { bus } = context.instance;
    const outbox = this.options.evidence.outbox;
    this.unsubscribe.push(
      outbox.followInstances(bus, { logger: context.logger }),
      bus.subscribe(MESSAGES_QUEUED_TOPIC, () => this.dispatcher.arm()),
      // Messages queued elsewhere while the bus was away are found by looking.
      bus.onReconnect(() => this.dispatcher.arm()),
    );
    this.dispatcher.start();
    this.fanOut!.start();
    const sweep = () => {
      const now = context.clock.now();
      const purged = this._messages!.purgeBefore(now - RETENTION_MS);
      if (purged.messages + purged.expired > 0) context.logger.debug(purged, 'webhook retention sweep');
      this.sweep = context.clock.schedule(now + SWEEP_INTERVAL_MS, sweep, { name: 'webhook.retention', coalesce: true });
    };
    this.sweep = context.clock.schedule(context.clock.now() + SWEEP_INTERVAL_MS, sweep, { name: 'webhook.retention', coalesce: true });
  }

  async stop(): Promise<void> {
    for (const unsubscribe of this.unsubscribe.splice(0)) unsubscribe();
    this.fanOut?.stop();
    if (this.sweep !== undefined) this.context?.clock.cancel(this.sweep);
    await this._dispatcher?.stop();
  }

  get endpoints(): WebhookEndpoints {
    if (this._endpoints === undefined) throw new Error('webhooks module used before setup');
    return this._endpoints;
  }

  get dispatcher(): DeliveryDispatcher {
    if (this._dispatcher === undefined) throw new Error('webhooks module used before setup');
    return this._dispatcher;
  }

  get mailbox(): Mailbox {
    if (this._mailbox === undefined) throw new Error('webhooks module used before setup');
    return this._mailbox;
  }

  get messages(): WebhookMessageRepository {
    if (this._messages === undefined) throw new Error('webhooks module used before setup');
    return this._messages;
  }
}
