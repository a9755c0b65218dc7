import { type Address, type Hex, type PublicClient, createPublicClient, http } from 'viem';
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';

export interface SentTransaction {
  status: 'success' | 'reverted';
  transactionHash: Hex;
  blockNumber: bigint;
}

/**
 * One account's transactions on one chain, in nonce order and one at a time (anvil can strand a sender's
 * concurrent transactions), with explicit gas, each answered with its receipt in one round trip
 * (`eth_sendRawTransactionSync`).
 */
export class ChainSender {
  readonly account: PrivateKeyAccount;
  readonly client: PublicClient;
  private nonce: number | undefined;
  private fee: bigint | undefined;
  private tail: Promise<unknown> = Promise.resolve();

  constructor(
    privateKey: Hex,
    readonly chainId: number,
    rpcUrl: string,
  ) {
    this.account = privateKeyToAccount(privateKey);
    this.client = createPublicClient({ transport: http(rpcUrl, { retryCount: 0 }) });
  }

  get address(): Address {
    return this.account.address;
  }

  send(to: Address, data: Hex, gas = 300_000n): Promise<SentTransaction> {
    const sent = this.tail.then(() => this._send(to, data, gas));
    this.tail = sent.catch(() => undefined);
    return sent;
  }

  private async _send(to: Address, data: Hex, gas: bigint): Promise<SentTransaction> {
    this.nonce ??= await this.client.getTransactionCount({ address: this.address, blockTag: 'pending' });
    this.fee ??= (await this.client.getGasPrice()) * 3n + 2_000_000_000n;
    const raw = await this.account.signTransaction({
      type: 'eip1559',
      chainId: this.chainId,
      nonce: this.nonce,
      to,
      data,
      gas,
      value: 0n,
      maxFeePerGas: this.fee,
      maxPriorityFeePerGas: 1_000_000_000n,
    });
    try {
      const receipt = (await this.client.request({
        method: 'eth_sendRawTransactionSync' as 'eth_sendRawTransaction',
        params: [raw],
      })) as unknown as { status: Hex; transactionHash: Hex; blockNumber: Hex };
      this.nonce += 1;
      return {
        status: receipt.status === '0x1' ? 'success' : 'reverted',
        transactionHash: receipt.transactionHash,
        blockNumber: BigInt(receipt.blockNumber),
      };
    } catch (error) {
      // Someone else may have used the account (a shared deployer): read the nonce again next time.
      this.nonce = undefined;
      throw error;
    }
  }
}
