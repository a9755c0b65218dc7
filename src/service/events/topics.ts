import type { ChainInfo } from '../../contracts/deployment.js';
import type { EventPatternSet } from './event-pattern.js';
import type { StoredEvent } from './outbox.js';
import { PRICE_TIERS, type PriceTier, type PriceUpdate } from './price-feed.js';
import { BaseError } from '../../contracts/errors/base-error.js';

/**
 * Reference A topics of the taker WebSocket (`orders:*`, `orders:{orderId}`, `prices:…`) and the matching of
 * events and prices against a connection's subscriptions (A topics and B channel patterns alike).
 */

export type Topic =
  | { kind: 'orders'; text: string; orderId: string | undefined }
  /** `workspace:*`: the workspace's own events that concern no order (`member.*`, `credit.updated`). */
  | { kind: 'workspace'; text: string }
  | { kind: 'prices'; text: string; corridor: string; tier: PriceTier | undefined };

export class TopicError extends BaseError {
  override readonly name = 'TopicError';
}

/** What topic parsing needs to know of the deployment. */
export interface CorridorDirectory {
  chains: readonly ChainInfo[];
  find(originChainId: number, inputToken: string, destinationChainId: number, outputToken: string): { id: string } | undefined;
  get(id: string): { id: string } | undefined;
}

const ORDER_ID = /^ord_[0-9a-z]{1,64}$/;

function chainOf(directory: CorridorDirectory, nameOrId: string): ChainInfo | undefined {
  return directory.chains.find((chain) => chain.name === nameOrId || String(chain.chainId) === nameOrId);
}

function tokenAddress(chain: ChainInfo, symbolOrAddress: string): string | undefined {
  const lower = symbolOrAddress.toLowerCase();
  return chain.tokens.find((token) => token.symbol.toLowerCase() === lower || token.address.toLowerCase() === lower)?.address;
}

/**
 * `prices:{srcChain}:{inputToken}:{dstChain}:{outputToken}:{tier}` (chains by name or id, tokens by symbol or
 * address) or `prices:{corridor}` (every tier). Unknown corridors are refused so a typo does not wait forever.
 */
function parsePriceTopic(text: string, rest: string, directory: CorridorDirectory): Topic {
  const parts = rest.split(':');
  if (parts.length === 5) {
    const [src, input, dst, output, tier] = parts as [string, string, string, string, string];
    if (!(PRICE_TIERS as readonly string[]).includes(tier)) {
      throw new TopicError(`tier must be one of ${PRICE_TIERS.join(', ')}`);
    }
    const origin = chainOf(directory, src);
    const destination = chainOf(directory, dst);
    if (origin === undefined) throw new TopicError(`unknown origin chain "${src}"`);
    if (destination === undefined) throw new TopicError(`unknown destination chain "${dst}"`);
    const inputAddress = tokenAddress(origin, input);
    const outputAddress = tokenAddress(destination, output);
    if (inputAddress === undefined) throw new TopicError(`unknown token "${input}" on ${origin.name}`);
    if (outputAddress === undefined) throw new TopicError(`unknown token "${output}" on ${destination.name}`);
    const corridor = directory.find(origin.chainId, inputAddress, destination.chainId, outputAddress);
    if (corridor === undefined) throw new TopicError(`no corridor moves ${input} on ${src} to ${output} on ${dst}`);
    return { kind: 'prices', text, corridor: corridor.id, tier: tier as PriceTier };
  }
  const corridor = directory.get(rest);
  if (corridor === undefined) {
    throw new TopicError('expected prices:{srcChain}:{inputToken}:{dstChain}:{outputToken}:{tier} or prices:{corridor id}');
  }
  return { kind: 'prices', text, corridor: corridor.id, tier: undefined };
}

export function parseTopic(text: string, directory: CorridorDirectory): Topic {
  if (text === 'orders:*') return { kind: 'orders', text, orderId: undefined };
  if (text === 'workspace:*') return { kind: 'workspace', text };
  if (text.startsWith('orders:')) {
    const orderId = text.slice('orders:'.length);
    if (!ORDER_ID.test(orderId)) throw new TopicError('expected orders:* or orders:ord_…');
    return { kind: 'orders', text, orderId };
  }
  if (text.startsWith('prices:')) return parsePriceTopic(text, text.slice('prices:'.length), directory);
  throw new TopicError(
    'topics are orders:*, orders:{orderId}, workspace:*, prices:{srcChain}:{inputToken}:{dstChain}:{outputToken}:{tier} or prices:{corridor}',
  );
}

/** The corridor an event concerns, when its payload names one (`corridor` at the top or in a payload object). */
export function corridorOf(envelope: Record<string, unknown>): string | undefined {
  if (typeof envelope.corridor === 'string') return envelope.corridor;
  for (const value of Object.values(envelope)) {
    if (typeof value === 'object' && value !== null && typeof (value as { corridor?: unknown }).corridor === 'string') {
      return (value as { corridor: string }).corridor;
    }
  }
  return undefined;
}

/** Everything one connection asked for: A topics and B channels, added by successive subscribe messages. */
export class StreamSubscriptions {
  private readonly orderTopics = new Map<string, Topic & { kind: 'orders' }>();
  private workspaceTopic = false;
  private readonly _priceTopics = new Map<string, Topic & { kind: 'prices' }>();
  private _channels: EventPatternSet | undefined;
  private corridors: Set<string> | undefined;

  constructor(private readonly makePatterns: (patterns: string[]) => EventPatternSet) {}

  addTopics(topics: Topic[]): void {
    for (const topic of topics) {
      if (topic.kind === 'orders') this.orderTopics.set(topic.text, topic);
      else if (topic.kind === 'workspace') this.workspaceTopic = true;
      else this._priceTopics.set(topic.text, topic);
    }
  }

  removeTopics(texts: string[]): void {
    for (const text of texts) {
      this.orderTopics.delete(text);
      this._priceTopics.delete(text);
      if (text === 'workspace:*') this.workspaceTopic = false;
    }
  }

  /** B channels accumulate; a `corridors` filter, when given, replaces the previous one. */
  addChannels(patterns: string[], corridors: string[] | undefined): void {
    this._channels = this.makePatterns([
      ...(this._channels?.patterns ?? []),
      ...patterns.filter((p) => !this._channels?.patterns.includes(p)),
    ]);
    if (corridors !== undefined) this.corridors = corridors.length === 0 ? undefined : new Set(corridors);
  }

  removeChannels(patterns: string[]): void {
    if (this._channels === undefined) return;
    const kept = this._channels.patterns.filter((p) => !patterns.includes(p));
    this._channels = kept.length === 0 ? undefined : this.makePatterns(kept);
  }

  get topics(): string[] {
    return [...this.orderTopics.keys(), ...(this.workspaceTopic ? ['workspace:*'] : []), ...this._priceTopics.keys()];
  }

  get channels(): string[] {
    return [...(this._channels?.patterns ?? [])];
  }

  /** The caller has already checked that the event belongs to the connection's workspace. */
  matchesEvent(event: StoredEvent): boolean {
    if (event.orderId !== null && event.generation === 'A') {
      for (const topic of this.orderTopics.values()) {
        if (topic.orderId === undefined || topic.orderId === event.orderId) return true;
      }
    }
    if (event.orderId === null && event.generation === 'A' && this.workspaceTopic) return true;
    if (this._channels?.matches(event.envelope.type)) {
      if (this.corridors === undefined) return true;
      // Events that name no corridor (e.g. audit entries) cannot be filtered by one and pass.
      const corridor = corridorOf(event.envelope);
      return corridor === undefined || this.corridors.has(corridor);
    }
    return false;
  }

  /** The first subscribed price topic the update falls under, if any. */
  priceTopicFor(update: PriceUpdate): string | undefined {
    for (const topic of this._priceTopics.values()) {
      if (topic.corridor === update.corridor && (topic.tier === undefined || topic.tier === update.tier)) return topic.text;
    }
    return undefined;
  }

  priceTopics(): Array<Topic & { kind: 'prices' }> {
    return [...this._priceTopics.values()];
  }
}
