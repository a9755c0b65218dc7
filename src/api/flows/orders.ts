import { privateKeyToAccount } from 'viem/accounts';
import { typedDataFromJson } from '../../contracts/typed-data.js';
import { FlowError, type FlowSession, pause, SandboxUnfitError } from './flow-session.js';

/**
 * The taker's side of an order in a flow, and the watch over its settlement: quote, sign, create, then the
 * settlement timeline (`GET /api/v1/workspaces/{ws}/settlements/{orderId}`, what the dashboard's journey draws)
 * read until the order reaches the stage the flow waits for, each new stage reported as a step as it appears.
 */

export interface PlacedOrder {
  orderId: string;
  /** Unix seconds after which the escrow refunds (the quote's `expires`). */
  expires: number;
  solverId: string;
}

/** Quote → sign the EIP-712 payload the best quote carries → create the order (taker 1 of sandbox.json, USDC). */
export async function placeOrder(session: FlowSession): Promise<PlacedOrder> {
  const [origin, destination] = session.manifest.chains;
  const takerKey = session.manifest.accounts.takers[0]?.privateKey;
  if (origin === undefined || destination === undefined || takerKey === undefined) {
    throw new SandboxUnfitError('this flow needs a sandbox of two chains or more with a funded taker (sandbox.json)');
  }
  const taker = privateKeyToAccount(takerKey as `0x${string}`);
  const usdc = (chain: typeof origin) => chain.tokens.find((token) => token.symbol === 'USDC')?.address ?? chain.tokens[0]?.address ?? '';
  const response = await session.rest.requestQuotes({
    inputToken: usdc(origin),
    outputToken: usdc(destination),
    inputAmount: '25000000000', // 25,000 USDC: above the corridor's minimum trade size
    originChainId: origin.chainId,
    destinationChainId: destination.chainId,
    lockType: 'Permit2Escrow',
    user: taker.address,
  });
  const best = response.quotes[0];
  if (best === undefined)
    throw new SandboxUnfitError('no reference solver quoted: start the sandbox with solvers (`sandbox up --solvers 3`)');
  session.step({ step: 'quote', detail: `${response.corridor}: ${response.quotes.length} quote(s), best from ${best.solverId}` });
  if (best.typedData === undefined || best.nonce === undefined) throw new FlowError('the quote carries no EIP-712 payload for the taker');
  const signature = await taker.signTypedData(typedDataFromJson(best.typedData) as never);
  const order = await session.rest.createOrder({ quoteId: best.quoteId, signature, nonce: best.nonce });
  session.step({ step: 'order', detail: `${order.orderId} created, signed by taker ${taker.address}` });
  return { orderId: order.orderId, expires: response.expires, solverId: best.solverId };
}

/** Polls the order until its status is one of `statuses`; a timeout is a FlowError naming where it stopped. */
export async function waitForStatus(
  session: FlowSession,
  orderId: string,
  statuses: readonly string[],
  timeoutMs: number,
): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let status = '';
  while (Date.now() < deadline) {
    status = (await session.rest.getOrder(orderId)).status;
    if (statuses.includes(status)) {
      session.step({ step: 'status', detail: `${orderId} ${status}` });
      return status;
    }
    await pause(200);
  }
  throw new FlowError(`order ${orderId} is ${status}, not ${statuses.join(' or ')}, after ${timeoutMs / 1000} s`);
}

/** One entry of the settlement timeline, as the service answers it. */
interface TimelineEntry {
  stage: string;
  at: string;
  txHash?: string;
  oracleHash?: string;
  chainId?: number;
}

/** What each stage means, in the words of the narration (stages of `TimelineStage`, src/contracts/wire/orders.ts). */
const STAGE_WORDS: Record<string, string> = {
  rfq: 'the RFQ was auctioned among the solvers',
  deposited: "the taker's input is locked in the escrow on the origin chain",
  filled: 'the solver paid the output to the taker on the destination chain',
  attested: 'the oracle carried the fill to the origin chain',
  claimed: 'the solver claimed the input from the escrow, against the attestation',
  refunded: "the escrow returned the taker's input",
  reorged: 'a chain reorganisation took a processed step away',
  'fault.held': 'a fault switch held a relay of this order',
  'fault.delayed': 'a fault switch delayed a relay of this order',
  'fault.dropped': 'a fault switch dropped a relay of this order',
  'fault.released': 'a held relay was released',
  'fault.solver': 'a fault switch made the solver misbehave on purpose',
  'fault.reorg': 'a fault switch reorganised the fill away',
  'fault.oracle': 'a fault switch made the oracle misbehave on purpose',
};

export interface TimelineWatch {
  /** Reads the timeline once and reports the stages not reported before; resolves with every stage so far. */
  poll(): Promise<string[]>;
  /** Polls until one of `stages` is in the timeline; a timeout is a FlowError naming the stages reached. */
  until(stages: readonly string[], timeoutMs: number): Promise<string>;
}

/** Follows an order's settlement timeline, reporting each stage once, in the order the service recorded them. */
export function watchTimeline(session: FlowSession, orderId: string): TimelineWatch {
  const path = `/api/v1/workspaces/${encodeURIComponent(session.manifest.api.workspaceId)}/settlements/${encodeURIComponent(orderId)}`;
  let reported = 0;
  const stages: string[] = [];
  const poll = async (): Promise<string[]> => {
    const { timeline } = (await session.admin.request<{ timeline: TimelineEntry[] }>('GET', path)).data;
    for (const entry of timeline.slice(reported)) {
      stages.push(entry.stage);
      const chain = session.chainName(entry.chainId);
      session.step({
        step: entry.stage,
        detail: STAGE_WORDS[entry.stage] ?? entry.stage,
        at: entry.at,
        ...(chain === undefined ? {} : { chain }),
        ...(entry.txHash === undefined ? {} : { txHash: entry.txHash }),
      });
    }
    reported = Math.max(reported, timeline.length);
    return [...stages];
  };
  return {
    poll,
    async until(wanted, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = (await poll()).find((stage) => wanted.includes(stage));
        if (found !== undefined) return found;
        if (Date.now() > deadline) {
          throw new FlowError(
            `order ${orderId} reached ${stages.join(' → ') || 'no stage'}, not ${wanted.join(' or ')}, in ${timeoutMs / 1000} s`,
          );
        }
        await pause(100);
      }
    },
  };
}

/** Advances the one clock past the order's expiry (refunds are possible after it) plus a minute for the keeper. */
export async function advancePastExpiry(session: FlowSession, order: PlacedOrder): Promise<number> {
  const { nowMs } = await session.clock.now();
  const seconds = Math.max(60, order.expires - Math.floor(nowMs / 1000) + 60);
  await session.clock.advance(`${seconds}s`);
  session.step({ step: 'clock', detail: `advanced ${seconds} s, past the order's expiry: the keeper's refund round is due` });
  return seconds;
}
