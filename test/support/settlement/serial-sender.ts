import { type Address, type Hex, type PublicClient, createPublicClient, http } from 'viem';
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';

export interface SentReceipt {
  status: 'success' | 'reverted';
  transactionHash: Hex;
  blockNumber: bigint;
  logs: { address: Address; topics: Hex[]; data: Hex }[];
}

/**
 * Sends one account's transactions on one chain in nonce order, one at a time, with explicit gas (tests, the test
 * solver and the benchmark's raw floor). Receipts come back with the send (`eth_sendRawTransactionSync`).
 */
export class SerialSender {
  readonly account: PrivateKeyAccount;
  readonly client: PublicClient;
  private nonce: number | undefined;
  private tail: Promise<unknown> = Promise.resolve();
  private fee: bigint | undefined;

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

  send(to: Address, data: Hex, gas = 500_000n): Promise<SentReceipt> {
    const run = this.tail.then(async () => {
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
        })) as unknown as { status: Hex; transactionHash: Hex; blockNumber: Hex; logs: SentReceipt['logs'] };
        this.nonce += 1;
        return {
          status: receipt.status === '0x1' ? 'success' : 'reverted',
          transactionHash: receipt.transactionHash,
          blockNumber: BigInt(receipt.blockNumber),
          logs: receipt.logs,
        } as SentReceipt;
      } catch (error) {
        this.nonce = undefined;
        throw error;
      }
    });
    this.tail = run.catch(() => undefined);
    return run;
  }
}
