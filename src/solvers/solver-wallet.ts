/**
 * A solver's on-chain hands: fill outputs on the destination chain (OutputSettler.fill) and claim on the origin
 * chain once attested (InputSettlerEscrow / InputSettlerCompact `finalise`). One transaction at a time per chain
 * (anvil can strand concurrent transactions of one sender), explicit gas limits, nonces kept locally, and the
 * receipt returned with the send (`eth_sendRawTransactionSync`): one round trip per transaction instead of a nonce
 * query, fee queries, the send and receipt polls, which load the same chains the solver is racing on.
 */
import {
  type Address,
  type Chain,
  createPublicClient,
  encodeAbiParameters,
  erc20Abi,
  type Hex,
  maxUint256,
  parseEventLogs,
  type PublicClient,
  type Transport,
  type TransactionReceipt,
  formatTransactionReceipt,
  type RpcTransactionReceipt,
  RpcRequestError,
  BaseError,
  HttpRequestError,
  TimeoutError,
  SocketClosedError,
} from 'viem';
import { keccak256 } from '../contracts/keccak.js';
import { privateKeyToAccount } from 'viem/accounts';
import { InputSettlerCompactArtifact, InputSettlerEscrowArtifact, OutputSettlerArtifact } from '../contracts/artifacts/index.js';
import { addressToBytes32, bytes32ToAddress, type LockType, type SolveParams, type StandardOrder, toAbiOrder } from '../contracts/order.js';
import type { ChainInfo } from '../contracts/deployment.js';
import { SANDBOX_POLLING_INTERVAL, viemChain } from '../contracts/viem-chain.js';
import { BaseError as ProjectError } from '../contracts/errors/base-error.js';
import { signEip1559Transaction } from '../contracts/secp256k1.js';
import { sendRawTransactionSync, TransactionDroppedError } from '../contracts/sync-send.js';
import { encodeCall } from '../contracts/function-call.js';
import { solverTransport } from './rpc-transport.js';

/** Headroom over what a fill or claim costs (a few hundred thousand gas); estimates fall short under concurrency. */
const GAS_LIMIT = 1_000_000n;
const APPROVE_GAS = 120_000n;
const GWEI = 1_000_000_000n;
/** A send waits for its block; a chain whose mining is paused (tests) may keep it longer than a plain request. */
const SEND_TIMEOUT_MS = 60_000;
/**
 * How long a transaction is pursued once signed: a send whose answer was lost is sent again and its receipt looked
 * for until then (the sync send's timeout plus the three minutes a receipt wait used to allow a paused chain).
 */
const DELIVERY_MS = SEND_TIMEOUT_MS + 180_000;
/**
 * When a waiting send asks whether its transaction still exists (sync-send.ts): later than the service's relayers,
 * because a solver that wrongly gives up on a fill that lands after all would not claim it. A fill a reorg took away
 * is abandoned at once when the service says so (`order.reorged`); this catches the rest.
 */
const DROPPED_WATCH = { graceMs: 5_000, pollMs: 1_000, misses: 3 } as const;
/** How long the reads before a send (nonce, fees, allowance) wait for a chain that does not answer (a node restarting). */
const OUTAGE_MS = 60_000;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Whether an error is the chain not answering (no connection, a dropped one, a timeout, an HTTP failure, a JSON-RPC
 * internal error as a restarting node answers), as opposed to the node refusing or reverting: the same request may
 * succeed once the node is back.
 */
export function isTransportError(error: unknown): boolean {
  return (
    (error instanceof BaseError &&
      error.walk((e) => e instanceof HttpRequestError || e instanceof TimeoutError || e instanceof SocketClosedError) !== null) ||
    internalError(error)
  );
}

/** Runs `read` again while the chain does not answer, with a growing pause, until `until` (epoch ms). */
async function whileUnreachable<T>(until: number, read: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await read();
    } catch (error) {
      if (!isTransportError(error) || Date.now() > until) throw error;
      await sleep(Math.min(250 * 2 ** attempt, 2_000));
    }
  }
}
/** uint48 max: the destination settler cannot know an order's real deadline, so a late fill names this one. */
const FAR_DEADLINE = 2 ** 48 - 1;

interface ChainHandle {
  info: ChainInfo;
  public: PublicClient<Transport, Chain>;
  /** Sends without retries: a retried send would only be refused as already known. */
  sender: PublicClient<Transport, Chain>;
  /** Closes the keep-alive sockets of both clients. */
  close(): void;
  /** Tail of this chain's transaction queue. */
  queue: Promise<unknown>;
  approved: Set<string>;
  /** Next nonce of this account here; unknown until the first send and after any failed one. */
  nonce: number | undefined;
  fees: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint } | undefined;
}

export class TransactionRevertedError extends ProjectError {
  override readonly name = 'TransactionRevertedError';
  constructor(
    readonly hash: Hex,
    what: string,
  ) {
    super(`${what} reverted (${hash})`);
  }
}

export interface FillResult {
  txHash: Hex;
  /** Block timestamp the output settler recorded. */
  timestamp: number;
  solver: Hex;
}

export class SolverWallet {
  readonly address: Address;
  /** bytes32 solver identifier (left-padded address): what fills record and finalise checks against the caller. */
  readonly identifier: Hex;
  private readonly chains = new Map<number, ChainHandle>();
  /** Sends waiting for their transaction, by hash: `abandon` ends the wait for one a reorg took away. */
  private readonly delivering = new Map<Hex, AbortController>();
  constructor(
    chains: readonly ChainInfo[],
    private readonly privateKey: Hex,
  ) {
    const account = privateKeyToAccount(privateKey);
    this.address = account.address;
    this.identifier = addressToBytes32(account.address);
    for (const info of chains) {
      const chain = viemChain(info);
      // The sandbox's own chains have an IPC socket on this machine; a chain elsewhere only its URL.
      const reads = solverTransport(info.rpcUrl, { ipcPath: info.ipcPath });
      const sends = solverTransport(info.rpcUrl, { retryCount: 0, timeoutMs: SEND_TIMEOUT_MS, ipcPath: info.ipcPath });
      this.chains.set(info.chainId, {
        info,
        public: createPublicClient({ chain, transport: reads.transport, pollingInterval: SANDBOX_POLLING_INTERVAL }) as PublicClient<
          Transport,
          Chain
        >,
        sender: createPublicClient({ chain, transport: sends.transport }) as PublicClient<Transport, Chain>,
        close: () => {
          reads.close();
          sends.close();
        },
        queue: Promise.resolve(),
        approved: new Set(),
        nonce: undefined,
        fees: undefined,
      });
    }
  }

  /** Closes the wallet's connections to the chains (idle keep-alive sockets never hold a process open). */
  close(): void {
    for (const chain of this.chains.values()) chain.close();
  }

  chain(chainId: number | bigint): ChainHandle {
    const handle = this.chains.get(Number(chainId));
    if (handle === undefined) throw new Error(`solver has no RPC for chain ${chainId}`);
    return handle;
  }

  /** Latest block timestamp of a chain (Unix seconds): the chain's own clock, moved by `sandbox clock advance`. */
  async chainTime(chainId: number | bigint): Promise<number> {
    return Number((await this.chain(chainId).public.getBlock({ blockTag: 'latest' })).timestamp);
  }

  async balanceOf(chainId: number | bigint, token: Address): Promise<bigint> {
    return this.chain(chainId).public.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [this.address] });
  }

  /** Sends `amount` of `token` on `chainId` to `to` (a rebalance moving inventory off a chain). */
  async transfer(chainId: number | bigint, token: Address, to: Address, amount: bigint): Promise<Hex> {
    const chain = this.chain(chainId);
    const receipt = await this.serial(chain, () =>
      this.send(chain, 'transfer', { address: token, abi: erc20Abi, functionName: 'transfer', args: [to, amount] }, APPROVE_GAS),
    );
    return receipt.transactionHash;
  }

  /**
   * Fills every output of the order on its destination chain, output 0 first (its filler owns the order). `late`
   * passes a far deadline so that a fill after the real deadline still lands (and the origin chain refuses to pay).
   */
  async fill(
    order: StandardOrder,
    orderId: Hex,
    options: { late?: boolean; misfill?: 'short' | 'wrong-recipient' } = {},
  ): Promise<FillResult[]> {
    const results: FillResult[] = [];
    for (const wanted of order.outputs) {
      // A misfill on purpose (sandbox fault switches): an output the order did not ask for.
      const output =
        options.misfill === 'short'
          ? { ...wanted, amount: (wanted.amount * 9n) / 10n }
          : options.misfill === 'wrong-recipient'
            ? { ...wanted, recipient: this.identifier }
            : wanted;
      const chain = this.chain(output.chainId);
      const settler = bytes32ToAddress(output.settler);
      const token = bytes32ToAddress(output.token);
      const receipt = await this.serial(chain, async () => {
        await this.approveOnce(chain, token, settler);
        return this.send(chain, 'fill', {
          address: settler,
          abi: OutputSettlerArtifact.abi,
          functionName: 'fill',
          args: [
            orderId,
            { ...output },
            options.late ? FAR_DEADLINE : order.fillDeadline,
            encodeAbiParameters([{ type: 'bytes32' }], [this.identifier]),
          ],
        });
      });
      const [filled] = parseEventLogs({ abi: OutputSettlerArtifact.abi, logs: receipt.logs, eventName: 'OutputFilled' });
      if (filled === undefined) throw new Error(`fill of ${orderId} emitted no OutputFilled (already filled by someone else?)`);
      results.push({ txHash: receipt.transactionHash, timestamp: Number(filled.args.timestamp), solver: filled.args.solver });
    }
    return results;
  }

  /** Claims the inputs on the origin chain to this solver's own address. */
  async finalise(order: StandardOrder, lockType: LockType, solveParams: readonly SolveParams[], compactSignatures?: Hex): Promise<Hex> {
    const chain = this.chain(order.originChainId);
    const params = solveParams.map((p) => ({ timestamp: p.timestamp, solver: p.solver }));
    const receipt = await this.serial(chain, () => {
      if (lockType === 'ResourceLock') {
        if (compactSignatures === undefined) throw new Error('a ResourceLock claim needs the sponsor signatures (compactSignatures)');
        return this.send(chain, 'finalise', {
          address: chain.info.contracts.InputSettlerCompact!,
          abi: InputSettlerCompactArtifact.abi,
          functionName: 'finalise',
          args: [toAbiOrder(order), compactSignatures, params, this.identifier, '0x'],
        });
      }
      return this.send(chain, 'finalise', {
        address: chain.info.contracts.InputSettlerEscrow!,
        abi: InputSettlerEscrowArtifact.abi,
        functionName: 'finalise',
        args: [toAbiOrder(order), params, this.identifier, '0x'],
      });
    });
    return receipt.transactionHash;
  }

  /** Runs `task` after every earlier transaction of this solver on this chain. */
  private serial<T>(chain: ChainHandle, task: () => Promise<T>): Promise<T> {
    const run = chain.queue.then(task, task);
    chain.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * A reorg took this transaction away (the service's `order.reorged` names it): a send still waiting for it fails
   * now with TransactionDroppedError instead of at anvil's 30 s timeout (see deliver). Nothing when none waits.
   */
  abandon(hash: Hex): void {
    this.delivering.get(hash.toLowerCase() as Hex)?.abort();
  }

  /** A reorg took transactions of this account away on `chainId`: the next send reads its nonce from the chain. */
  forgetNonce(chainId: number): void {
    const chain = this.chains.get(chainId);
    if (chain !== undefined) chain.nonce = undefined;
  }

  private async approveOnce(chain: ChainHandle, token: Address, spender: Address): Promise<void> {
    const key = `${token}:${spender}`;
    if (chain.approved.has(key)) return;
    const allowance = await whileUnreachable(Date.now() + OUTAGE_MS, () =>
      chain.public.readContract({ address: token, abi: erc20Abi, functionName: 'allowance', args: [this.address, spender] }),
    );
    if (allowance < maxUint256 / 2n) {
      await this.send(
        chain,
        'approve',
        { address: token, abi: erc20Abi, functionName: 'approve', args: [spender, maxUint256] },
        APPROVE_GAS,
      );
    }
    chain.approved.add(key);
  }

  private async send(
    chain: ChainHandle,
    what: string,
    request: { address: Address; abi: unknown; functionName: string; args: readonly unknown[] },
    gas = GAS_LIMIT,
  ): Promise<TransactionReceipt> {
    const data = encodeCall(request as Parameters<typeof encodeCall>[0]);
    const outage = Date.now() + OUTAGE_MS;
    for (let attempt = 0; ; attempt++) {
      chain.nonce ??= await whileUnreachable(outage, () =>
        chain.public.getTransactionCount({ address: this.address, blockTag: 'pending' }),
      );
      if (chain.fees === undefined) {
        // Generous caps: only base fee plus tip is charged, and a cap below the base fee would leave it unmined.
        const gasPrice = await whileUnreachable(outage, () => chain.public.getGasPrice());
        chain.fees = { maxFeePerGas: gasPrice * 3n + 2n * GWEI, maxPriorityFeePerGas: GWEI };
      }
      // libsecp256k1 (the service's relayer signs the same way): the same bytes as viem's, at a third of the CPU.
      const raw = await signEip1559Transaction(this.privateKey, {
        type: 'eip1559',
        chainId: chain.info.chainId,
        nonce: chain.nonce,
        to: request.address,
        data,
        gas,
        value: 0n,
        ...chain.fees,
      });
      const hash = keccak256(raw);
      let receipt: TransactionReceipt;
      try {
        receipt = await this.deliver(chain, raw, hash);
      } catch (error) {
        chain.nonce = undefined;
        const refused = refusal(error);
        if (refused !== undefined) {
          // Refused by the node: nothing was sent. A stale nonce or fee cap (another sender of this account, a
          // base fee that rose) is retried once with fresh ones; anything else is the caller's to see.
          chain.fees = undefined;
          if (attempt === 0 && /nonce too low|base fee|fee cap|underpriced/i.test(refused.details)) continue;
        }
        throw error;
      }
      if (chain.nonce !== undefined) chain.nonce += 1;
      if (receipt.status !== 'success') throw new TransactionRevertedError(hash, what);
      return receipt;
    }
  }

  /**
   * Sends a signed transaction and returns its receipt. A send whose answer was lost (the node restarted under it, a
   * timeout) may or may not have reached the chain: its receipt decides, and while there is none the same signed
   * transaction is sent again (one hash: it lands at most once). Waiting for a receipt alone would wait in vain for
   * a transaction the node never got (a chain container restarting), and hold every later send of this account on
   * the chain behind it: the orders this solver won there stayed Deposited, and it said nothing. A transaction that
   * vanished while the send waited (a reorganisation took its block) fails at once with TransactionDroppedError:
   * anvil would answer only at its 30 s timeout, and sending it again would land it again.
   */
  private async deliver(chain: ChainHandle, raw: Hex, hash: Hex): Promise<TransactionReceipt> {
    const until = Date.now() + DELIVERY_MS;
    const abandoned = new AbortController();
    this.delivering.set(hash, abandoned);
    try {
      return await this.deliverUntil(chain, raw, hash, until, abandoned.signal);
    } finally {
      this.delivering.delete(hash);
    }
  }

  private async deliverUntil(chain: ChainHandle, raw: Hex, hash: Hex, until: number, abandoned: AbortSignal): Promise<TransactionReceipt> {
    for (let attempt = 0; ; attempt++) {
      let lost: unknown;
      try {
        const rpc = await sendRawTransactionSync(
          () => chain.sender.request({ method: 'eth_sendRawTransactionSync' as 'eth_sendRawTransaction', params: [raw] }),
          () => chain.public.request({ method: 'eth_getTransactionByHash', params: [hash] }),
          hash,
          { ...DROPPED_WATCH, signal: abandoned },
        );
        return formatTransactionReceipt(rpc as unknown as RpcTransactionReceipt);
      } catch (error) {
        // Gone from the chain and the pool (a reorganisation): sending it again would land it again, so the caller
        // decides (a solver whose fill was taken away does not fill again).
        if (error instanceof TransactionDroppedError) throw error;
        // An internal error (-32603, as a node answers while it restarts) is no refusal of the transaction: like a
        // lost answer, the node may or may not have it.
        const refused = internalError(error) ? undefined : refusal(error);
        // A first refusal: nothing was sent. Later, "already imported" (it waits in the pool) or "nonce too low" (it
        // may have been mined) follow from an earlier try: its receipt decides.
        if (refused !== undefined && (attempt === 0 || !/already (imported|known)|nonce too low/i.test(refused.details))) throw error;
        lost = error;
        const receipt = await chain.public.getTransactionReceipt({ hash }).catch(() => undefined);
        if (receipt !== undefined) return receipt;
        // Its nonce went to another transaction: this one can never land.
        if (refused !== undefined && /nonce too low/i.test(refused.details)) throw error;
      }
      if (Date.now() > until) throw lost;
      await sleep(Math.min(100 * 2 ** attempt, 1_000));
    }
  }
}

/** JSON-RPC's internal error (-32603): the node failed, not the request. */
function internalError(error: unknown): boolean {
  return error instanceof BaseError && error.walk((e) => e instanceof RpcRequestError && e.code === -32603) !== null;
}

/** The node's refusal of a request (JSON-RPC error), if that is what `error` is. */
function refusal(error: unknown): RpcRequestError | undefined {
  const refused = error instanceof BaseError ? error.walk((e) => e instanceof RpcRequestError) : null;
  return refused instanceof RpcRequestError ? refused : undefined;
}
