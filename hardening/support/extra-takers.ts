/**
 * Takers of the campaign's own, funded like the devnet funds its five (ether, USDC on every chain, Permit2
 * approved): a taker's nonces rise with each order, so lifecycles in flight together need a taker each.
 */
import { encodeFunctionData, erc20Abi, maxUint256, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { TestStablecoinArtifact } from '../../src/contracts/artifacts/index.js';
import type { AccountInfo, SandboxManifest } from '../../src/contracts/deployment.js';
import { SerialSender } from '../../test/support/settlement/serial-sender.js';

const PERMIT2 = '0x000000000022D473030F116dDEE9F6B43aC78BA3' as Address;
const USDC_EACH = 1_000_000_000_000n;

/** Adds `count` funded takers to `manifest.accounts.takers` and returns their indexes there. */
export async function addFundedTakers(manifest: SandboxManifest, count: number): Promise<number[]> {
  const deployer = manifest.accounts.deployer[0]!.privateKey;
  const minters = manifest.chains.map((chain) => new SerialSender(deployer, chain.chainId, chain.rpcUrl));
  const added: number[] = [];
  for (let i = 0; i < count; i++) {
    const privateKey = generatePrivateKey();
    const address = privateKeyToAccount(privateKey).address;
    for (const [c, chain] of manifest.chains.entries()) {
      const minter = minters[c]!;
      await minter.client.request({ method: 'anvil_setBalance', params: [address, '0x3635c9adc5dea00000'] } as never);
      const usdc = chain.tokens.find((token) => token.symbol === 'USDC')!.address as Address;
      const minted = await minter.send(
        usdc,
        encodeFunctionData({ abi: TestStablecoinArtifact.abi, functionName: 'mint', args: [address, USDC_EACH] }),
        200_000n,
      );
      if (minted.status !== 'success') throw new Error(`minting USDC for an extra taker reverted on ${chain.name}`);
      const taker = new SerialSender(privateKey, chain.chainId, chain.rpcUrl);
      const approved = await taker.send(
        usdc,
        encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [PERMIT2, maxUint256] }),
        100_000n,
      );
      if (approved.status !== 'success') throw new Error(`the Permit2 approval of an extra taker reverted on ${chain.name}`);
    }
    manifest.accounts.takers.push({ address, privateKey } as AccountInfo);
    added.push(manifest.accounts.takers.length - 1);
  }
  return added;
}
