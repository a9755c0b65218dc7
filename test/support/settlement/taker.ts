import { type Address, type Hex, encodeFunctionData, erc20Abi, maxUint256 } from 'viem';
import { ResourceLockArtifact } from '../../../src/contracts/artifacts/ResourceLock.js';
import { privateKeyToAccount } from 'viem/accounts';
import {
  ApiRequestError,
  type QuoteResponse,
  type RequestOptions,
  type RestClient,
  type TokenQuoteRequest,
} from '../../../src/clients/rest-client.js';
import { typedDataFromJson } from '../../../src/contracts/typed-data.js';
import type { ChainInfo } from '../../../src/contracts/deployment.js';
import { compactLockTag } from '../../../src/contracts/lock-tag.js';
import { SerialSender } from './serial-sender.js';

/** A taker of the tests: asks for quotes with its address, signs the quote's typed data, submits orders. */
export class TestTaker {
  readonly address: Address;
  private readonly account;

  constructor(
    readonly privateKey: Hex,
    private readonly rest: RestClient,
    private readonly chains: readonly ChainInfo[],
  ) {
    this.account = privateKeyToAccount(privateKey);
    this.address = this.account.address;
  }

  /** Asks for quotes; while solvers reconnect (a service restart) `corridor_unavailable` is retried for a few seconds. */
  async quote(request: Omit<TokenQuoteRequest, 'user'>, options?: RequestOptions): Promise<QuoteResponse> {
    const started = Date.now();
    for (;;) {
      try {
        return await this.rest.requestQuotes({ ...request, user: this.address }, options);
      } catch (error) {
        if (!(error instanceof ApiRequestError) || error.code !== 'corridor_unavailable' || Date.now() - started > 5_000) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  }

  /** Signs the payload the quote carries (exactly what the service will relay). */
  async sign(typedData: unknown): Promise<Hex> {
    const payload = typedDataFromJson(typedData);
    return this.account.signTypedData(payload as Parameters<typeof this.account.signTypedData>[0]);
  }

  /** Asks for quotes, signs the best one and places the order (POST /orders): the order as created, and the quotes. */
  async placeOrder(
    request: Omit<TokenQuoteRequest, 'user'>,
  ): Promise<{ created: Awaited<ReturnType<RestClient['createOrder']>>; response: QuoteResponse }> {
    const response = await this.quote(request);
    const quote = response.quotes[0]!;
    const created = await this.rest.createOrder({
      quoteId: quote.quoteId,
      signature: await this.sign(quote.typedData),
      nonce: quote.nonce!,
      user: this.address,
    });
    return { created, response };
  }

  /** Approves the resource lock and deposits `amount` of `token` under the sandbox lock tag. */
  async depositToLock(chainId: number, token: Address, amount: bigint): Promise<void> {
    const chain = this.chains.find((c) => c.chainId === chainId)!;
    const sender = new SerialSender(this.privateKey, chainId, chain.rpcUrl);
    const lock = chain.contracts.ResourceLock!;
    await sender.send(token, encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [lock, maxUint256] }), 100_000n);
    const receipt = await sender.send(
      lock,
      encodeFunctionData({
        abi: ResourceLockArtifact.abi,
        functionName: 'depositERC20',
        args: [token, compactLockTag(chain.contracts.AlwaysOkAllocator!), amount, this.address],
      }),
      300_000n,
    );
    if (receipt.status !== 'success') throw new Error('resource lock deposit reverted');
  }
}
