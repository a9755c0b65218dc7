/**
 * `sandbox up --solver-mode chain`: a reference solver without the solver stream. A taker opens an order directly
 * on the escrow (`open`, self-funded, no POST /orders); the solver finds it in the `Open` logs, fills it, waits for
 * the input oracle to prove the fill and claims it. The service adopts the order from the same log and reports its
 * lifecycle at `GET /api/v1/orders/ord_<on-chain id>`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Address, type Chain, createPublicClient, createWalletClient, erc20Abi, type Hex, http, parseEventLogs } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RestClient } from '../clients/rest-client.js';
import { type SolverOrderMessage, SolverStreamClient } from '../clients/solver-stream-client.js';
import { InputSettlerEscrowArtifact } from '../contracts/artifacts/index.js';
import type { ChainInfo } from '../contracts/deployment.js';
import { addressToBytes32, type StandardOrder, toAbiOrder, tokenId } from '../contracts/order.js';
import { defaultChains } from '../devnet/chain-config.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import { SANDBOX_POLLING_INTERVAL, viemChain } from '../contracts/viem-chain.js';
import { runSandbox } from '../sandbox/run.js';

let sandbox: Sandbox;
let stateDir: string;

beforeAll(async () => {
  stateDir = await mkdtemp(join(tmpdir(), 'chain-mode-'));
  sandbox = await runSandbox({ stateDir, chains: defaultChains(2, 'any'), fresh: true, solvers: 1, solverMode: 'chain' }, () => {});
}, 180_000);

afterAll(async () => {
  await sandbox?.stop();
  if (stateDir) await rm(stateDir, { recursive: true, force: true });
});

function clients(chain: ChainInfo, privateKey: Hex) {
  const account = privateKeyToAccount(privateKey);
  const viem: Chain = viemChain(chain);
  return {
    account,
    public: createPublicClient({ chain: viem, transport: http(chain.rpcUrl), pollingInterval: SANDBOX_POLLING_INTERVAL }),
    wallet: createWalletClient({ chain: viem, transport: http(chain.rpcUrl), account, pollingInterval: SANDBOX_POLLING_INTERVAL }),
  };
}

async function apiStatus(url: string, id: string): Promise<string | undefined> {
  const response = await fetch(`${url.replace(/\/api\/v1\/?$/, '')}/api/v1/orders/${id}`);
  return response.ok ? ((await response.json()) as { status: string }).status : undefined;
}

describe('reference solvers, --solver-mode chain', () => {
  it('discover an order opened on chain from its Open log, fill it and claim it without the solver stream', async () => {
    const { manifest } = sandbox;
    const [origin, destination] = manifest.chains as [ChainInfo, ChainInfo];
    // A stream solver that only listens: an order nobody won is offered on the stream as `order.available`.
    const rest = new RestClient({ baseUrl: manifest.api!.url, apiKey: manifest.api!.apiKeys[0]! });
    const corridors = (await rest.corridors()).map((c) => c.id);
    const listener = await rest.registerSolver({ name: 'listener', corridors });
    const stream = await SolverStreamClient.connect({ url: listener.wsUrl, token: listener.wsToken, channels: ['order.available'] });
    const offers: SolverOrderMessage[] = [];
    stream.onOrder((message) => offers.push(message));
    const taker = clients(origin, manifest.accounts.takers[0]!.privateKey);
    const usdc = (chain: ChainInfo): Address => chain.tokens.find((t) => t.symbol === 'USDC')!.address;
    const now = Number((await taker.public.getBlock()).timestamp);
    const order: StandardOrder = {
      user: taker.account.address,
      nonce: 424242n,
      originChainId: BigInt(origin.chainId),
      expires: now + 1200,
      fillDeadline: now + 600,
      inputOracle: origin.contracts.InputOracle!,
      inputs: [[tokenId(usdc(origin)), 30_000_000n]],
      outputs: [
        {
          oracle: addressToBytes32(destination.contracts.OutputOracle!),
          settler: addressToBytes32(destination.contracts.OutputSettler!),
          chainId: BigInt(destination.chainId),
          token: addressToBytes32(usdc(destination)),
          amount: 29_900_000n,
          recipient: addressToBytes32(taker.account.address),
          callbackData: '0x',
          context: '0x',
        },
      ],
    };
    const escrow = origin.contracts.InputSettlerEscrow!;
    const approve = await taker.wallet.writeContract({
      address: usdc(origin),
      abi: erc20Abi,
      functionName: 'approve',
      args: [escrow, 30_000_000n],
    });
    await taker.public.waitForTransactionReceipt({ hash: approve });
    const hash = await taker.wallet.writeContract({
      address: escrow,
      abi: InputSettlerEscrowArtifact.abi,
      functionName: 'open',
      args: [toAbiOrder(order)],
    });
    const receipt = await taker.public.waitForTransactionReceipt({ hash });
    const [opened] = parseEventLogs({ abi: InputSettlerEscrowArtifact.abi, logs: receipt.logs, eventName: 'Open' });
    const id = `ord_${opened!.args.orderId.slice(2)}`;

    const solver = manifest.accounts.solvers[0]!.address;
    const before = await taker.public.readContract({ address: usdc(origin), abi: erc20Abi, functionName: 'balanceOf', args: [solver] });
    const deadline = Date.now() + 60_000;
    let status: string | undefined;
    while (Date.now() < deadline) {
      status = await apiStatus(manifest.api!.url, id);
      if (status === 'Claimed') break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(status).toBe('Claimed');
    const after = await taker.public.readContract({ address: usdc(origin), abi: erc20Abi, functionName: 'balanceOf', args: [solver] });
    expect(after - before).toBe(30_000_000n);
    const offer = offers.find((m) => m.orderId === id);
    expect(offer?.type).toBe('order.available');
    await stream.close();
  }, 120_000);
});
