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
  createWalletClient,
  encodeAbiParameters,
  encodeFunctionData,
  erc20Abi,
  type Hex,
  http,
  keccak256,
  maxUint256,
  parseEventLogs,
  type PublicClient,
  type Transport,
  type TransactionReceipt,
  type WalletClient,
  type Account,
  formatTransactionReceipt,
  type RpcTransactionReceipt,
  RpcRequestError,
  BaseError,
} from 'viem';
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { InputSettlerCompactArtifact, InputSettlerEscrowArtifact, OutputSettlerArtifact } from '../contracts/artifacts/index.js';
import { addressToBytes32, bytes32ToAddress, type LockType, type SolveParams, type StandardOrder, toAbiOrder } from '../contracts/order.js';
import type { ChainInfo } from '../contracts/deployment.js';
import { SANDBOX_POLLING_INTERVAL, viemChain } from '../contracts/viem-chain.js';
import { BaseError as ProjectError } from '../contracts/errors/base-error.js';

/** Headroom over what a fill or claim costs (a few hundred thousand gas); estimates fall short under concurrency. */
const GAS_LIMIT = 1_000_000n;
const APPROVE_GAS = 120_000n;
const GWEI = 1_000_000_000n;
/** A send waits for its block; a chain whose mining is paused (tests) may keep it longer than a plain request. */
const SEND_TIMEOUT_MS = 60_000;
/**
 * A send whose answer was lost (the node died, restarted or timed out) may or may not have reached the chain: its
 * receipt is asked for by hash, and the same signed transaction sent again meanwhile (the same hash, so it cannot
 * land twice), for at most this long.
 */
const LOST_SEND_TIMEOUT_MS = 30_000;
const LOST_SEND_POLL_MS = 250;
const LOST_SEND_RESEND_MS = 1_000;
/** uint48 max: the destination settler cannot know an order's real deadline, so a late fill names this one. */
const FAR_DEADLINE = 2 ** 48 - 1;

interface ChainHandle {
  info: ChainInfo;
  public: PublicClient<Transport, Chain>;
  wallet: WalletClient<Transport, Chain, Account>;
  /** Sends without retries: a retried send would only be refused as already known. */
  sender: PublicClient<Transport, Chain>;
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

/** A transaction whose send got no answer and that did not show up on chain in time. */
export class TransactionLostError extends ProjectError {
  override readonly name = 'TransactionLostError';
  constructor(
    readonly hash: Hex,
    what: string,
    cause: unknown,
  ) {
    super(`${what} (${hash}) got no answer from the chain and has no receipt after ${LOST_SEND_TIMEOUT_MS / 1_000} s`, { cause });
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
  private readonly account: PrivateKeyAccount;

  constructor(chains: readonly ChainInfo[], privateKey: Hex) {
    const account = privateKeyToAccount(privateKey);
    this.account = account;
    this.address = account.address;
    this.identifier = addressToBytes32(account.address);
    for (const info of chains) {
      const chain = viemChain(info);
      const transport = http(info.rpcUrl);
      this.chains.set(info.chainId, {
        info,
        public: createPublicClient({ chain, transport, pollingInterval: SANDBOX_POLLING_INTERVAL }) as PublicClient<Transport, Chain>,
        wallet: createWalletClient({ chain, transport, account, pollingInterval: SANDBOX_POLLING_INTERVAL }),
        sender: createPublicClient({ chain, transport: http(info.rpcUrl, { retryCount: 0, timeout: SEND_TIMEOUT_MS }) }) as PublicClient<
          Transport,
          Chain
        >,
        queue: Promise.resolve(),
        approved: new Set(),
        nonce: undefined,
        fees: undefined,
      });
    }
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

  /** A reorg took transactions of this account away on `chainId`: the next send reads its nonce from the chain. */
  forgetNonce(chainId: number): void {
    const chain = this.chains.get(chainId);
    if (chain !== undefined) chain.nonce = undefined;
  }

  private async approveOnce(chain: ChainHandle, token: Address, spender: Address): Promise<void> {
    const key = `${token}:${spender}`;
    if (chain.approved.has(key)) return;
    const allowance = await chain.public.readContract({
      address: token,
      abi: erc20Abi,
      functionName: 'allowance',
      args: [this.address, spender],
    });
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
    const data = encodeFunctionData(request as Parameters<typeof encodeFunctionData>[0]);
    for (let attempt = 0; ; attempt++) {
      chain.nonce ??= await chain.public.getTransactionCount({ address: this.address, blockTag: 'pending' });
      if (chain.fees === undefined) {
        // Generous caps: only base fee plus tip is charged, and a cap below the base fee would leave it unmined.
        const gasPrice = await chain.public.getGasPrice();
        chain.fees = { maxFeePerGas: gasPrice * 3n + 2n * GWEI, maxPriorityFeePerGas: GWEI };
      }
      const raw = await this.account.signTransaction({
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
        const rpc = await chain.sender.request({ method: 'eth_sendRawTransactionSync' as 'eth_sendRawTransaction', params: [raw] });
        receipt = formatTransactionReceipt(rpc as unknown as RpcTransactionReceipt);
      } catch (error) {
        chain.nonce = undefined;
        const refused = error instanceof BaseError ? error.walk((e) => e instanceof RpcRequestError) : null;
        if (refused instanceof RpcRequestError) {
          // Refused by the node: nothing was sent. A stale nonce or fee cap (another sender of this account, a
          // base fee that rose) is retried once with fresh ones; anything else is the caller's to see.
          chain.fees = undefined;
          if (attempt === 0 && /nonce too low|base fee|fee cap|underpriced/i.test(refused.details)) continue;
          throw error;
        }
        // The send may have reached the chain (a timeout, a dropped connection) or not (a node killed before it
        // took it, restarted from its saved state): its receipt decides, and it is sent again until there is one.
        receipt = await this.receiptOfLostSend(chain, raw, hash, what, error);
      }
      if (chain.nonce !== undefined) chain.nonce += 1;
      if (receipt.status !== 'success') throw new TransactionRevertedError(hash, what);
      return receipt;
    }
  }

  /**
   * The receipt of a send that got no answer, asked for by hash while the same raw transaction is sent again.
   * Not `waitForTransactionReceipt`: it only waits, and a transaction the chain never took (its node was killed by
   * `chain.restart` mid-send) never comes; that wait took viem's 3 minutes while every later fill and claim of this
   * account on the chain queued behind it (the soak: 14 scenarios stuck at Attested in two runs).
   */
  private async receiptOfLostSend(chain: ChainHandle, raw: Hex, hash: Hex, what: string, sendError: unknown): Promise<TransactionReceipt> {
    const deadline = Date.now() + LOST_SEND_TIMEOUT_MS;
    let resendAt = Date.now() + LOST_SEND_RESEND_MS;
    for (;;) {
      try {
        return await chain.public.getTransactionReceipt({ hash });
      } catch {
        // Not mined yet, or the node is not answering (restarting): look again until the deadline.
      }
      if (Date.now() > deadline) throw new TransactionLostError(hash, what, sendError);
      if (Date.now() >= resendAt) {
        resendAt = Date.now() + LOST_SEND_RESEND_MS;
        // "already known" (it is in the pool), "nonce too low" (it was mined) or a refused connection: the receipt
        // decides either way.
        // Not awaited: a node that hangs must not hold the receipt polls past the deadline.
        void chain.sender.request({ method: 'eth_sendRawTransaction', params: [raw] }).catch(() => undefined);
      }
      await new Promise((resolve) => setTimeout(resolve, LOST_SEND_POLL_MS));
    }
  }
}
