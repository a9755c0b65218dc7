import { BaseError } from '../contracts/errors/base-error.js';
import { privateKeyToAccount } from 'viem/accounts';
import { RestClient } from '../clients/rest-client.js';
import { typedDataFromJson } from '../contracts/typed-data.js';
import { readServiceManifest, type ServiceManifest } from '../devnet/manifest-file.js';
import { sandboxApi } from './sandbox-api.js';
import { UsageError } from './output.js';

/**
 * What `sandbox trigger <event-type|flow>` runs: the real flow that makes the service emit an event, in the
 * sandbox's own workspace (its sandbox.json key), so the order is on the dashboard, on the taker WebSocket and at
 * `sandbox webhooks listen` like any other. Nothing is faked: a quote is auctioned among the reference solvers, the
 * taker signs and the order settles or refunds on chain; a refund is made by the fault switch that makes the winning
 * solver never fill, and by advancing the one clock past the order's expiry.
 */

/** A flow that ran but did not end as it should (the order stuck, a quote without a payload). */
export class TriggerError extends BaseError {
  override readonly name = 'TriggerError';
  override readonly code = 'trigger_failed';
  constructor(message: string) {
    super(message, { docsPath: 'README.md#commands' });
  }
}

export interface TriggerStep {
  step: string;
  detail: string;
}

export interface TriggerResult {
  trigger: string;
  orderId: string;
  status: string;
  events: string[];
  dashboard: string;
  steps: TriggerStep[];
}

interface Flow {
  /** The events the flow makes the service emit, in order (Reference A names; B's projections follow them). */
  events: readonly string[];
  summary: string;
  run(context: FlowContext): Promise<TriggerResult>;
}

interface FlowContext {
  stateDir: string;
  manifest: ServiceManifest;
  client: RestClient;
  step(step: string, detail: string): void;
  steps: TriggerStep[];
}

const SETTLED: Flow = {
  events: ['order.created', 'order.settled'],
  summary: 'an order a reference solver fills: deposit, fill, attestation, claim',
  run: async (context) => {
    const order = await placeOrder(context);
    const final = await waitForStatus(context, order.orderId, ['Claimed'], 30_000);
    return result(context, 'order.settled', order.orderId, final, ['order.created', 'order.settled']);
  },
};

const REFUNDED: Flow = {
  events: ['order.created', 'order.failed'],
  summary: 'an order its winning solver never fills: the clock passes its expiry and the keeper refunds the deposit',
  run: async (context) => {
    const fault = (
      await sandboxApi<{ id: string }>(context.stateDir, 'POST', '/api/v1/sandbox/faults', { kind: 'solver.never-fill', count: 1 })
    ).data;
    context.step('fault', `solver.never-fill set for one order (${fault.id})`);
    try {
      // The reference solvers read the switches once a second (src/solvers/fault-follower.ts): quote after they have.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const order = await placeOrder(context);
      const { data: clock } = await sandboxApi<{ nowMs: number }>(context.stateDir, 'GET', '/api/v1/sandbox/clock');
      // Past `expires` (refunds are possible after it), plus a minute for the keeper's next round.
      const advanceSeconds = Math.max(60, order.expires - Math.floor(clock.nowMs / 1000) + 60);
      await sandboxApi(context.stateDir, 'POST', '/api/v1/sandbox/clock/advance', { duration: `${advanceSeconds}s` });
      context.step('clock', `advanced ${advanceSeconds} s, past the order's expiry`);
      const final = await waitForStatus(context, order.orderId, ['Refunded'], 30_000);
      return result(context, 'order.refunded', order.orderId, final, ['order.created', 'order.failed']);
    } finally {
      await sandboxApi(context.stateDir, 'DELETE', `/api/v1/sandbox/faults/${fault.id}`).catch(() => undefined);
    }
  },
};

/** Flow names and the event types they answer to (`order.failed` is the refund's event in Reference A). */
export const TRIGGERS: Record<string, Flow> = {
  'order.created': SETTLED,
  'order.settled': SETTLED,
  'order.refunded': REFUNDED,
  'order.failed': REFUNDED,
  refund: REFUNDED,
  settlement: SETTLED,
};

export function triggerNames(): string[] {
  return Object.keys(TRIGGERS);
}

export function describeTriggers(): Array<{ name: string; events: readonly string[]; summary: string }> {
  return Object.entries(TRIGGERS).map(([name, flow]) => ({ name, events: flow.events, summary: flow.summary }));
}

export async function runTrigger(stateDir: string, name: string, onStep: (step: TriggerStep) => void): Promise<TriggerResult> {
  const flow = TRIGGERS[name];
  if (flow === undefined) {
    throw new UsageError(
      `trigger: "${name}" is not a flow this sandbox can run; one of ${triggerNames().join(', ')}`,
      'README.md#commands',
    );
  }
  const manifest = readServiceManifest(stateDir);
  // Is anyone there? A sandbox that does not answer is reported before any step (service_unreachable, exit 2).
  await sandboxApi(stateDir, 'GET', '/api/v1/sandbox/clock');
  const steps: TriggerStep[] = [];
  const context: FlowContext = {
    stateDir,
    manifest,
    client: new RestClient({ baseUrl: manifest.api.url, apiKey: manifest.api.apiKeys[0] ?? '' }),
    steps,
    step(step, detail) {
      const entry = { step, detail };
      steps.push(entry);
      onStep(entry);
    },
  };
  return flow.run(context);
}

interface PlacedOrder {
  orderId: string;
  expires: number;
}

/** Quote → sign the EIP-712 payload the best quote carries → create the order (taker 1 of sandbox.json, USDC). */
async function placeOrder(context: FlowContext): Promise<PlacedOrder> {
  const [origin, destination] = context.manifest.chains;
  const takerKey = context.manifest.accounts.takers[0]?.privateKey;
  if (origin === undefined || destination === undefined || takerKey === undefined) {
    throw new UsageError('trigger needs a sandbox of two chains or more with a funded taker (sandbox.json)');
  }
  const taker = privateKeyToAccount(takerKey as `0x${string}`);
  const usdc = (chain: typeof origin) => chain.tokens.find((token) => token.symbol === 'USDC')?.address ?? chain.tokens[0]?.address ?? '';
  const response = await context.client.requestQuotes({
    inputToken: usdc(origin),
    outputToken: usdc(destination),
    inputAmount: '25000000000', // 25,000 USDC: above the corridor's minimum trade size
    originChainId: origin.chainId,
    destinationChainId: destination.chainId,
    lockType: 'Permit2Escrow',
    user: taker.address,
  });
  const best = response.quotes[0];
  if (best === undefined) throw new UsageError('no reference solver quoted: start the sandbox with solvers (`sandbox up --solvers 3`)');
  context.step('quote', `${response.corridor}: ${response.quotes.length} quote(s), best from ${best.solverId}`);
  if (best.typedData === undefined || best.nonce === undefined)
    throw new TriggerError('the quote carries no EIP-712 payload for the taker');
  const signature = await taker.signTypedData(typedDataFromJson(best.typedData) as never);
  const order = await context.client.createOrder({ quoteId: best.quoteId, signature, nonce: best.nonce });
  context.step('order', `${order.orderId} created (deposit ${order.originTxHash ?? 'pending'})`);
  return { orderId: order.orderId, expires: response.expires };
}

async function waitForStatus(context: FlowContext, orderId: string, statuses: readonly string[], timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let status = '';
  while (Date.now() < deadline) {
    status = (await context.client.getOrder(orderId)).status;
    if (statuses.includes(status)) {
      context.step('status', `${orderId} ${status}`);
      return status;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new TriggerError(`order ${orderId} is ${status}, not ${statuses.join(' or ')}, after ${timeoutMs / 1000} s`);
}

function result(context: FlowContext, trigger: string, orderId: string, status: string, events: string[]): TriggerResult {
  return { trigger, orderId, status, events, dashboard: `${context.manifest.api.url}/dashboard#order=${orderId}`, steps: context.steps };
}
