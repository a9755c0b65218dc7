import type { Logger } from 'pino';
import type { Address, Hex, PublicClient } from 'viem';
import WebSocket from 'ws';

/** A log as JSON-RPC delivers it (hex quantities), from a subscription or from eth_getLogs alike. */
export interface RpcLog {
  address: Address;
  topics: Hex[];
  data: Hex;
  blockNumber: Hex;
  /** The block's hash: kept like a head's, so a reorg that replaces this block is found even if its head was missed. */
  blockHash?: Hex;
  transactionHash: Hex;
  logIndex: Hex;
  removed?: boolean;
}

export interface LogStreamOptions {
  chainId: number;
  wsUrl: string;
  /** Used for catch-up reads (eth_getLogs, eth_blockNumber). */
  client: PublicClient;
  addresses: Address[];
  /** First block not read yet (from the stored cursor); undefined: start at the head of the first connection. */
  fromBlock: number | undefined;
  /**
   * Receives logs in chain order, one call at a time. `nextBlock`: every log before it has now been delivered, so
   * a restart may resume there.
   */
  deliver(logs: RpcLog[], nextBlock: number): Promise<void>;
  /**
   * The chain replaced its blocks after `forkBlock` (a reorg: a new head whose parent is not the block seen at
   * that height). Called in turn with deliveries; the stream re-reads from `forkBlock + 1` afterwards.
   */
  reorged?(forkBlock: number): Promise<void>;
  logger: Logger;
}

/** A head as `eth_subscribe newHeads` delivers it. */
interface RpcHead {
  number: Hex;
  hash: Hex;
  parentHash: Hex;
}

const CATCH_UP_SPAN = 2_000;
/** How many recent block hashes are kept to find where a reorg forked (anvil keeps 16 states with our flags). */
const HEAD_MEMORY = 128;
const BACKOFF_MS = [100, 250, 500, 1_000, 2_000];

/**
 * Watches one chain's contract logs over WebSocket (`eth_subscribe logs`: a log arrives 2–3 ms after its
 * transaction at no idle cost) and fills gaps with `eth_getLogs`: on every (re)connection it subscribes first,
 * then reads from the cursor up to the head, then delivers what arrived live meanwhile. Delivery is at least once
 * (a restart re-reads the block of the last live log); consumers de-duplicate by (chain, tx, log index).
 */
export class LogStream {
  private socket: WebSocket | undefined;
  private nextBlock: number | undefined;
  /** Position (block, log index) of the last log delivered; live logs at or before it are duplicates. */
  private delivered: [number, number] = [-1, -1];
  private chain: Promise<void> = Promise.resolve();
  private stopped = false;
  private attempts = 0;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private connected: (() => void) | undefined;
  private live: RpcLog[] = [];
  private liveScheduled = false;
  /**
   * Hashes of recent blocks by number, from heads heard and from the blocks of delivered logs: a new head whose parent
   * differs from the one kept, or a kept height that comes again with another hash, is a reorg.
   */
  private readonly heads = new Map<number, Hex>();

  constructor(private readonly options: LogStreamOptions) {
    this.nextBlock = options.fromBlock;
  }

  /**
   * Resolves once the first catch-up has been delivered (the stream then follows the chain live), or when the first
   * connection attempt fails: a chain that does not answer yet is retried in the background.
   */
  start(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.connected = resolve;
      this.connect();
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.reconnectTimer !== undefined) clearTimeout(this.reconnectTimer);
    this.socket?.close();
    this.socket = undefined;
    await this.chain.catch(() => undefined);
  }

  /** Resolves when every log received so far has been delivered. */
  async idle(): Promise<void> {
    let seen: Promise<void> | undefined;
    while (seen !== this.chain) {
      seen = this.chain;
      await seen.catch(() => undefined);
    }
  }

  private connect(): void {
    if (this.stopped) return;
    const socket = new WebSocket(this.options.wsUrl);
    this.socket = socket;
    let subscription: string | undefined;
    let headSubscription: string | undefined;
    let caughtUp = false;
    const early: RpcLog[] = [];

    socket.on('open', () => {
      socket.send(
        JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['logs', { address: this.options.addresses }] }),
      );
      if (this.options.reorged !== undefined)
        socket.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'eth_subscribe', params: ['newHeads'] }));
    });
    socket.on('message', (raw) => {
      let message: {
        id?: number;
        result?: unknown;
        error?: { message?: string };
        method?: string;
        params?: { subscription?: string; result?: RpcLog };
      };
      try {
        message = JSON.parse(raw.toString());
      } catch {
        return;
      }
      if (message.id === 1) {
        if (message.error !== undefined || typeof message.result !== 'string') {
          this.options.logger.warn({ chainId: this.options.chainId, error: message.error }, 'log subscription refused');
          socket.close();
          return;
        }
        subscription = message.result;
        // Subscribed before reading history: nothing can fall between the two.
        this.enqueue(async () => {
          await this.catchUp();
          caughtUp = true;
          this.attempts = 0;
          const buffered = early.splice(0);
          if (buffered.length > 0) await this.deliverLive(buffered);
          this.connected?.();
          this.connected = undefined;
        });
        return;
      }
      if (message.id === 2) {
        // A chain without head subscriptions is still watched; it is only not checked for reorgs.
        if (typeof message.result === 'string') headSubscription = message.result;
        return;
      }
      const params = message.params;
      if (message.method === 'eth_subscription' && params?.subscription === headSubscription && params?.result !== undefined) {
        const head = params.result as unknown as RpcHead;
        this.enqueue(() => this.checkHead(head));
        return;
      }
      if (message.method === 'eth_subscription' && params?.subscription === subscription && params?.result !== undefined) {
        const log = params.result;
        if (log.removed === true) return;
        if (!caughtUp) early.push(log);
        else this.takeLive(log);
      }
    });
    socket.on('error', (error) => {
      this.options.logger.debug({ err: error, chainId: this.options.chainId }, 'chain WebSocket error');
    });
    socket.on('close', () => {
      if (this.socket === socket) this.socket = undefined;
      if (this.connected !== undefined) {
        this.options.logger.warn({ chainId: this.options.chainId, url: this.options.wsUrl }, 'chain WebSocket unavailable; retrying');
        this.connected();
        this.connected = undefined;
      }
      if (this.stopped) return;
      const delay = BACKOFF_MS[Math.min(this.attempts, BACKOFF_MS.length - 1)]!;
      this.attempts += 1;
      this.reconnectTimer = setTimeout(() => this.connect(), delay);
      this.reconnectTimer.unref();
    });
  }

  /** Live logs that arrive while a delivery runs go out together in the next one (fewer, larger transactions). */
  private takeLive(log: RpcLog): void {
    this.live.push(log);
    if (this.liveScheduled) return;
    this.liveScheduled = true;
    this.enqueue(async () => {
      this.liveScheduled = false;
      await this.deliverLive(this.live.splice(0));
    });
  }

  /**
   * Looks at the chain's head, and at `block` when its hash was kept, as if their head notifications had just come.
   * A caller that changed the chain itself (the sandbox's chain.reorg fault) makes sure the reorg is seen whether or
   * not anvil announced the blocks that replaced the old ones: anvil drops a notification whose block was replaced
   * before it went out, and a head missed at the right heights leaves a reorg unseen. Runs in turn with deliveries;
   * resolves when done (a read that fails leaves it to the notifications, as before).
   */
  recheck(block?: number): Promise<void> {
    return new Promise<void>((resolve) => {
      if (this.stopped || this.options.reorged === undefined) return resolve();
      this.enqueue(async () => {
        try {
          const read = (tag: Hex | 'latest') =>
            this.options.client.request({ method: 'eth_getBlockByNumber', params: [tag, false] }) as Promise<RpcHead | null>;
          const head = await read('latest');
          if (head !== null) await this.checkHead(head);
          const kept = block === undefined ? undefined : this.heads.get(block);
          if (block === undefined || kept === undefined) return;
          const now = await read(toHex(block));
          if (now !== null && now.hash !== kept) await this.checkHead(now);
        } finally {
          resolve();
        }
      });
    });
  }

  private enqueue(task: () => Promise<void>): void {
    this.chain = this.chain.then(task).catch((error: unknown) => {
      this.options.logger.error({ err: error, chainId: this.options.chainId }, 'log delivery failed; reconnecting to re-read');
      // Re-reading from the cursor after a reconnect delivers the failed logs again.
      this.socket?.terminate();
    });
  }

  private async catchUp(): Promise<void> {
    const head = Number(await this.options.client.request({ method: 'eth_blockNumber' }));
    if (this.nextBlock === undefined) {
      // Never read before: history from before the service existed holds none of its orders.
      await this.options.deliver([], head);
      this.nextBlock = head;
    }
    while (this.nextBlock <= head && !this.stopped) {
      const to = Math.min(head, this.nextBlock + CATCH_UP_SPAN - 1);
      const logs = (await this.options.client.request({
        method: 'eth_getLogs',
        params: [{ address: this.options.addresses, fromBlock: toHex(this.nextBlock), toBlock: toHex(to) }],
      })) as unknown as RpcLog[];
      const ordered = logs.filter((log) => log.removed !== true).sort(compareLogs);
      this.keepBlocksOf(ordered);
      await this.options.deliver(ordered, to + 1);
      this.nextBlock = to + 1;
      this.delivered = [to, Number.MAX_SAFE_INTEGER];
    }
  }

  /**
   * Keeps the head's hash; when its parent is not the hash kept for the height below (or a height seen before comes
   * again with another hash), walks down the kept hashes to the last block the chain still has, tells the consumer,
   * and reads again from there.
   */
  private async checkHead(head: RpcHead): Promise<void> {
    const number = Number(head.number);
    const parentKept = this.heads.get(number - 1);
    const sameKept = this.heads.get(number);
    const reorg = (parentKept !== undefined && parentKept !== head.parentHash) || (sameKept !== undefined && sameKept !== head.hash);
    if (!reorg || this.options.reorged === undefined) {
      this.keepHead(number, head.hash);
      return;
    }
    // The fork is the highest block whose kept hash the chain still has. A height without a kept hash proves
    // nothing (its head may not have been heard): the walk goes on below it, down to the oldest kept height.
    const oldest = Math.min(number, ...this.heads.keys());
    let fork = number - 1;
    while (fork >= oldest) {
      const kept = this.heads.get(fork);
      if (kept !== undefined) {
        const block = (await this.options.client.request({ method: 'eth_getBlockByNumber', params: [toHex(fork), false] })) as {
          hash: Hex;
        } | null;
        if (block !== null && block.hash === kept) break;
      }
      fork -= 1;
    }
    for (const kept of [...this.heads.keys()]) if (kept > fork) this.heads.delete(kept);
    this.options.logger.warn({ chainId: this.options.chainId, forkBlock: fork, head: number }, 'chain reorganised: re-reading its logs');
    await this.options.reorged(fork);
    // Logs after the fork are read again, live ones included (the replaced blocks' numbers come back).
    this.nextBlock = Math.min(this.nextBlock ?? fork + 1, fork + 1);
    this.delivered = [fork, Number.MAX_SAFE_INTEGER];
    await this.catchUp();
    this.keepHead(number, head.hash);
  }

  private keepHead(number: number, hash: Hex): void {
    this.heads.set(number, hash);
    if (this.heads.size > HEAD_MEMORY) {
      const oldest = Math.min(...this.heads.keys());
      this.heads.delete(oldest);
    }
  }

  /**
   * Keeps the hash of every block a delivered log came from. A head notification can be missed: anvil drops one whose
   * block was replaced before it sent it, as when a fault reorganises the chain right after a fill. Without the
   * log's block kept, the replacing block's parent matches the kept hash below it and the reorg goes unseen.
   */
  private keepBlocksOf(logs: readonly RpcLog[]): void {
    if (this.options.reorged === undefined) return;
    for (const log of logs) if (log.blockHash !== undefined) this.keepHead(Number(log.blockNumber), log.blockHash);
  }

  private async deliverLive(logs: RpcLog[]): Promise<void> {
    const [block, index] = this.delivered;
    const fresh = logs
      .filter((log) => Number(log.blockNumber) > block || (Number(log.blockNumber) === block && Number(log.logIndex) > index))
      .sort(compareLogs);
    if (fresh.length === 0) return;
    this.keepBlocksOf(fresh);
    const last = fresh[fresh.length - 1]!;
    // A live log's block may still have logs to come: a restart resumes at that block, never past it.
    const next = Math.max(this.nextBlock ?? 0, Number(last.blockNumber));
    await this.options.deliver(fresh, next);
    this.nextBlock = next;
    this.delivered = [Number(last.blockNumber), Number(last.logIndex)];
  }
}

function toHex(value: number): Hex {
  return `0x${value.toString(16)}`;
}

function compareLogs(a: RpcLog, b: RpcLog): number {
  return Number(a.blockNumber) - Number(b.blockNumber) || Number(a.logIndex) - Number(b.logIndex);
}
