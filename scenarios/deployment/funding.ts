import { type Address, encodeFunctionData, parseEther } from 'viem';
import { RestClient } from '../../src/clients/rest-client.js';
import { createRpcClient } from '../../src/devnet/rpc.js';
import { ChainSender } from '../actors/chain-sender.js';
import type { ServedManifest } from './target.js';
import { sandboxStablecoinAbi } from '../../src/contracts/stablecoin.js';

/** A mint is one transaction: far longer than this means it is stuck. */
const FAUCET_TIMEOUT_MS = 15_000;

/** The sandbox faucet (`POST /api/v1/sandbox/faucet`): mints and tops up gas, one mint at a time per chain. */
export async function fundThroughFaucet(
  manifest: ServedManifest,
  apiKey: string,
  address: string,
  chainId: number,
  token: string,
  amount: bigint,
): Promise<void> {
  const rest = new RestClient({ baseUrl: manifest.api.url, apiKey, timeoutMs: FAUCET_TIMEOUT_MS });
  try {
    await rest.request('POST', '/api/v1/sandbox/faucet', { address, chain: chainId, token, amount: amount.toString() });
  } catch (error) {
    if (error instanceof Error && error.name === 'TimeoutError') {
      throw new Error(
        `the faucet did not fund ${address} with ${token} on chain ${chainId} within ${FAUCET_TIMEOUT_MS / 1_000} s (a mint that is never mined?)`,
      );
    }
    throw error;
  }
}

/**
 * Where there is no faucet (production): the deployer, owner of the test stablecoins, mints; anvil gives gas. Its
 * senders are kept per chain so one process never races itself on the deployer's nonces.
 */
export class DeployerMint {
  private readonly senders = new Map<number, ChainSender>();

  constructor(private readonly manifest: ServedManifest) {}

  async fund(address: string, chainId: number, symbol: string, amount: bigint): Promise<void> {
    const chain = this.manifest.chains.find((c) => c.chainId === chainId);
    const deployer = this.manifest.accounts.deployer[0];
    if (chain === undefined || deployer === undefined)
      throw new Error(`cannot mint on chain ${chainId}: no chain or deployer in the manifest`);
    const token = chain.tokens.find((t) => t.symbol === symbol);
    if (token === undefined) throw new Error(`chain ${chain.name} has no token ${symbol}`);
    const rpc = createRpcClient(chain.rpcUrl);
    try {
      await rpc.call('anvil_setBalance', [address, `0x${parseEther('100').toString(16)}`]);
    } finally {
      rpc.close();
    }
    let sender = this.senders.get(chainId);
    if (sender === undefined) {
      sender = new ChainSender(deployer.privateKey, chainId, chain.rpcUrl);
      this.senders.set(chainId, sender);
    }
    const data = encodeFunctionData({
      abi: sandboxStablecoinAbi,
      functionName: 'mint',
      args: [address as Address, amount * 10n ** BigInt(token.decimals)],
    });
    const sent = await sender.send(token.address as Address, data, 200_000n);
    if (sent.status !== 'success') throw new Error(`minting ${symbol} on ${chain.name} reverted`);
  }
}
