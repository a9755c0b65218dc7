import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { addressToBytes32, orderIdentifier, type StandardOrder, tokenId } from '../../src/contracts/order.js';
import { chainClient, contractOf, tokenOf } from '../actors/chain-clients.js';
import { expectEqual } from '../core/errors.js';
import { defineScenario } from '../core/scenario.js';
import { check, waitUntil } from '../steps/index.js';
import { ReferenceSolver, strategyFromSeed } from '../../src/solvers/index.js';

/** The on-chain order id of this run's order (set by the open step, read by the later ones). */
let opened: Hex | undefined;
const apiId = () => `ord_${opened!.slice(2).toLowerCase()}`;

/**
 * OIF-native intake with a chain-watching solver: alice opens an order herself on the escrow (`open`, self-funded,
 * no quote, no POST /orders); the service adopts it from its Open event, and a reference solver in
 * `--solver-mode chain` (no solver stream) discovers it from the same log, fills it and claims it once the input
 * oracle proves the fill.
 */
export const onchainIntakeChainSolver = defineScenario({
  name: 'onchain-open-chain-solver',
  title: 'An order opened directly on chain is served by the API and settled by a solver that only watches Open logs',
  tags: ['oif', 'onchain', 'solver'],
  actors: { takers: ['alice'] },
  steps: [
    // The target's own reference solvers follow the solver stream; this one, started by the scenario against the
    // target's chains with an account of its own, only watches them (as `sandbox up --solver-mode chain` does).
    check('start a chain-watching reference solver with an account of its own', async (context) => {
      const privateKey = context.random.privateKey('chain-solver');
      const address = privateKeyToAccount(privateKey).address;
      const [origin, destination] = context.target.manifest.chains;
      await context.target.fund(address, destination!.chainId, 'USDC', 1_000n);
      await context.target.fund(address, origin!.chainId, 'USDC', 1n);
      const solver = new ReferenceSolver({
        name: `chain-watcher (${context.scenario.name})`,
        serviceUrl: context.target.manifest.api.url,
        apiKey: context.workspace.apiKey,
        chains: context.target.manifest.chains,
        account: { address, privateKey },
        strategy: strategyFromSeed(1, 0),
        mode: 'chain',
      });
      context.onTeardown(async () => {
        // Its watch loop sleeps on unref'd timers: hold the process open until the loop has seen the stop.
        const keepAlive = setInterval(() => undefined, 1_000);
        try {
          await solver.stop();
        } finally {
          clearInterval(keepAlive);
        }
      });
      await solver.start();
      return `${address} watching ${context.target.manifest.chains.map((chain) => chain.name).join(' and ')}`;
    }),
    check('alice opens an order on the origin escrow with `open` (no POST /orders)', async (context) => {
      const origin = context.target.manifest.chains[0]!;
      const destination = context.target.manifest.chains[1]!;
      const alice = context.taker('alice');
      const now = Number((await chainClient(origin).getBlock()).timestamp);
      const amount = 40_000_000n;
      const order: StandardOrder = {
        user: alice.address,
        nonce: BigInt(now) * 1000n + 7n,
        originChainId: BigInt(origin.chainId),
        expires: now + 1200,
        fillDeadline: now + 600,
        inputOracle: contractOf(origin, 'InputOracle'),
        inputs: [[tokenId(tokenOf(origin, 'USDC').address), amount]],
        outputs: [
          {
            oracle: addressToBytes32(contractOf(destination, 'OutputOracle')),
            settler: addressToBytes32(contractOf(destination, 'OutputSettler')),
            chainId: BigInt(destination.chainId),
            token: addressToBytes32(tokenOf(destination, 'USDC').address),
            amount: amount - amount / 200n,
            recipient: addressToBytes32(alice.address),
            callbackData: '0x',
            context: '0x',
          },
        ],
      };
      const sent = await alice.openOnChain(origin, order);
      opened = orderIdentifier(order, contractOf(origin, 'InputSettlerEscrow'));
      return `opened ${opened} in ${sent.transactionHash}`;
    }),
    waitUntil('the service serves it as ord_<on-chain id>', async (context) => {
      const found = await context.rest.getOrder(apiId()).catch(() => undefined);
      return found === undefined ? undefined : `${found.orderId}: ${found.status}`;
    }),
    waitUntil(
      'the chain-mode solver has filled and claimed it',
      async (context) => {
        const found = await context.rest.getOrder(apiId()).catch(() => undefined);
        return found?.status === 'Claimed' ? 'Claimed' : undefined;
      },
      { timeoutMs: 60_000 },
    ),
    check('the claim went to the solver that filled', async (context) => {
      const found = await context.rest.getOrder(apiId());
      expectEqual(String(found.onchainOrderId).toLowerCase(), opened!.toLowerCase(), 'onchainOrderId');
      return `claimed in ${String(found.claimTxHash ?? '(no tx hash)')}`;
    }),
  ],
});
