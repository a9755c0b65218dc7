import { type Address, type Hex, encodeFunctionData, erc20Abi, maxUint256 } from 'viem';
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import type { TypedDataJson } from '../../src/clients/rest-client.js';
import { PERMIT2_ADDRESS } from '../../src/devnet/deployment.js';
import { typedDataFromJson } from '../../src/contracts/typed-data.js';
import type { ChainInfo } from '../../src/contracts/deployment.js';
import { compactLockTag } from '../../src/contracts/lock-tag.js';
import type { ScenarioTarget } from '../deployment/target.js';
import { InputSettlerEscrowArtifact } from '../../src/contracts/artifacts/InputSettlerEscrow.js';
import { type StandardOrder, toAbiOrder } from '../../src/contracts/order.js';
import { ChainSender, type SentTransaction } from './chain-sender.js';
import { contractOf, lockBalance, tokenBalance, tokenOf } from './chain-clients.js';

const depositAbi = [
  {
    type: 'function',
    name: 'depositERC20',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'token', type: 'address' },
      { name: 'lockTag', type: 'bytes12' },
      { name: 'amount', type: 'uint256' },
      { name: 'recipient', type: 'address' },
    ],
    outputs: [{ name: 'id', type: 'uint256' }],
  },
] as const;

/** Whole tokens minted to a taker the first time it needs a token on a chain. */
const FIRST_GRANT = 250_000n;

/**
 * A taker of a scenario: a fresh key drawn from the seed, funded through the faucet the first time it needs a
 * token on a chain, with the approvals its lock types need. It signs exactly the typed data the service hands out
 * (or a tampered copy, when a scenario says so).
 */
export class Taker {
  readonly account: PrivateKeyAccount;
  private readonly senders = new Map<number, ChainSender>();
  private readonly ready = new Set<string>();

  constructor(
    readonly label: string,
    readonly name: string,
    readonly privateKey: Hex,
    private readonly target: ScenarioTarget,
  ) {
    this.account = privateKeyToAccount(privateKey);
  }

  get address(): Address {
    return this.account.address;
  }

  /** `alice (Garnet Reynolds, 0x12ab…)` */
  get display(): string {
    return `${this.label} (${this.name}, ${this.address.slice(0, 6)}…${this.address.slice(-4)})`;
  }

  private sender(chain: ChainInfo): ChainSender {
    let sender = this.senders.get(chain.chainId);
    if (sender === undefined) {
      sender = new ChainSender(this.privateKey, chain.chainId, chain.rpcUrl);
      this.senders.set(chain.chainId, sender);
    }
    return sender;
  }

  /** Holds at least `amount` of `symbol` on `chain`, with Permit2 allowed to pull it. */
  async ensureFunded(chain: ChainInfo, symbol: string, amount: bigint): Promise<void> {
    const token = tokenOf(chain, symbol);
    const balance = await tokenBalance(chain, token.address, this.address);
    if (balance < amount) {
      const whole = amount / 10n ** BigInt(token.decimals) + 1n;
      await this.target.fund(this.address, chain.chainId, symbol, whole > FIRST_GRANT ? whole * 2n : FIRST_GRANT);
    }
    await this.approve(chain, token.address, PERMIT2_ADDRESS as Address);
  }

  private async approve(chain: ChainInfo, token: Address, spender: Address): Promise<void> {
    const key = `${chain.chainId}:${token}:${spender}`.toLowerCase();
    if (this.ready.has(key)) return;
    const sent = await this.sender(chain).send(
      token,
      encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [spender, maxUint256] }),
      100_000n,
    );
    if (sent.status !== 'success') throw new Error(`${this.label}: approving ${spender} on ${chain.name} reverted`);
    this.ready.add(key);
  }

  /** Opens `order` on the origin chain's escrow itself (`open`, self-funded: no service involved); returns the tx. */
  async openOnChain(chain: ChainInfo, order: StandardOrder): Promise<SentTransaction> {
    const escrow = contractOf(chain, 'InputSettlerEscrow');
    for (const [id, amount] of order.inputs) {
      const token = `0x${id.toString(16).padStart(40, '0')}` as Address;
      const symbol = chain.tokens.find((t) => t.address.toLowerCase() === token.toLowerCase())?.symbol;
      if (symbol !== undefined) await this.ensureFunded(chain, symbol, amount);
      await this.approve(chain, token, escrow);
    }
    const data = encodeFunctionData({ abi: InputSettlerEscrowArtifact.abi, functionName: 'open', args: [toAbiOrder(order)] });
    const sent = await this.sender(chain).send(escrow, data, 500_000n);
    if (sent.status !== 'success') throw new Error(`${this.label}: open on ${chain.name} reverted`);
    return sent;
  }

  /**
   * Refunds `order` on the origin chain's escrow itself, after its `expires`: what a taker can always do when no
   * keeper does it for them. Returns the tx; a refusal (not yet expired, already settled) is a reverted tx.
   */
  async refundOnChain(chain: ChainInfo, order: StandardOrder): Promise<SentTransaction> {
    const escrow = contractOf(chain, 'InputSettlerEscrow');
    const data = encodeFunctionData({ abi: InputSettlerEscrowArtifact.abi, functionName: 'refund', args: [toAbiOrder(order)] });
    return this.sender(chain).send(escrow, data, 300_000n);
  }

  /** Deposits `amount` into the sandbox resource lock (what a ResourceLock order commits). */
  async depositToLock(chain: ChainInfo, symbol: string, amount: bigint): Promise<void> {
    const token = tokenOf(chain, symbol);
    await this.ensureFunded(chain, symbol, amount);
    const lock = contractOf(chain, 'ResourceLock');
    await this.approve(chain, token.address, lock);
    const data = encodeFunctionData({
      abi: depositAbi,
      functionName: 'depositERC20',
      args: [token.address, compactLockTag(contractOf(chain, 'AlwaysOkAllocator')), amount, this.address],
    });
    const sent = await this.sender(chain).send(lock, data, 300_000n);
    if (sent.status !== 'success') throw new Error(`${this.label}: the resource lock deposit on ${chain.name} reverted`);
  }

  async sign(typedData: TypedDataJson | unknown): Promise<Hex> {
    const payload = typedDataFromJson(typedData);
    return this.account.signTypedData(payload as Parameters<PrivateKeyAccount['signTypedData']>[0]);
  }

  balance(chain: ChainInfo, symbol: string): Promise<bigint> {
    return tokenBalance(chain, tokenOf(chain, symbol).address, this.address);
  }

  lockBalance(chain: ChainInfo, symbol: string): Promise<bigint> {
    return lockBalance(chain, tokenOf(chain, symbol).address, this.address);
  }
}
