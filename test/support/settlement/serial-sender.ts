import { type Address, type Hex, type PublicClient, createPublicClient, http } from 'viem';
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import type { JsonRpcHttp } from '../../../src/contracts/json-rpc-http.js';
import { jsonRpcLocal } from '../../../src/contracts/json-rpc-ipc.js';
import { signEip1559Transaction } from '../../../src/contracts/secp256k1.js';

export interface SentReceipt {
  status: 'success' | 'reverted';
  transactionHash: Hex;
  blockNumber: bigint;
  logs: { address: Address; topics: Hex[]; data: Hex }[];
}

/**
 * Sends one account's transactions on one chain in nonce order, one at a time, with explicit gas (tests, the test
 * solver and the benchmark's raw floor). Receipts come back with the send (`eth_sendRawTransactionSync`).
 *
 * It sends the way the service's relayers and the reference solvers do: signed in libsecp256k1 (`secp256k1.ts`, a
 * third of viem's CPU per signature) and, given the chain's `ipcPath`, over its IPC socket (`jsonRpcLocal`). The
 * benchmark's floor is "the bare transactions": it must not pay for a slower signer or transport than the service.
 */
export class SerialSender {
  readonly account: PrivateKeyAccount;
  /** For occasional calls beside the sends (anvil_setBalance and the like). */
  readonly client: PublicClient;
  private readonly rpc: JsonRpcHttp;
  private nonce: number | undefined;
  private tail: Promise<unknown> = Promise.resolve();
  private fee: bigint | undefined;

  constructor(
    private readonly privateKey: Hex,
    readonly chainId: number,
    rpcUrl: string,
    options: { ipcPath?: string | undefined } = {},
  ) {
    this.account = privateKeyToAccount(privateKey);
    this.client = createPublicClient({ transport: http(rpcUrl, { retryCount: 0 }) });
    this.rpc = jsonRpcLocal(options.ipcPath, rpcUrl);
  }

  get address(): Address {
    return this.account.address;
  }

  send(to: Address, data: Hex, gas = 500_000n): Promise<SentReceipt> {
    const run = this.tail.then(async () => {
      this.nonce ??= Number(await this.call('eth_getTransactionCount', [this.address, 'pending']));
      this.fee ??= BigInt((await this.call('eth_gasPrice', [])) as Hex) * 3n + 2_000_000_000n;
      const raw = await signEip1559Transaction(this.privateKey, {
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
        const receipt = (await this.call('eth_sendRawTransactionSync', [raw])) as {
          status: Hex;
          transactionHash: Hex;
          blockNumber: Hex;
          logs: SentReceipt['logs'];
        };
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

  /** Reads the nonce from the chain again at the next send: the chain went back to a snapshot (`evm_revert`). */
  forgetNonce(): void {
    this.nonce = undefined;
  }

  /** Closes the sockets the sends keep open. */
  close(): void {
    this.rpc.close();
  }

  private async call(method: string, params: unknown[]): Promise<unknown> {
    const answer = await this.rpc.call(method, params);
    if (answer.error !== undefined) throw new Error(`${method}: ${answer.error.message} (code ${answer.error.code})`);
    return answer.result;
  }
}
