/**
 * Reference solvers: N real clients of the solver stream, with seeded pricing strategies and scriptable
 * behaviours, each with its own funded key from `sandbox.json` (accounts.solvers[i]).
 */
import type { SandboxManifest } from '../contracts/deployment.js';
import type { SolverBehaviour } from './behaviour.js';
import { ReferenceSolver } from './reference-solver.js';
import { solverNameFromSeed, strategyFromSeed, type PricingStrategy } from './strategy.js';

export { HONEST, type SolverBehaviour } from './behaviour.js';
export { ReferenceSolver, type ReferenceSolverOptions, type SolverCounters, type SolverEvent } from './reference-solver.js';
export { BRIDGE_BURN_ADDRESS, type BridgeMint, SolverInventory } from './inventory.js';
export { SolverWallet, TransactionRevertedError, type FillResult } from './solver-wallet.js';
export { priceRfq, solverNameFromSeed, strategyFromSeed, type PricedQuote, type PricingStrategy } from './strategy.js';

export const DEFAULT_SOLVER_COUNT = 3;
export const DEFAULT_SOLVER_SEED = 1;

import { SolverFaultFollower } from './fault-follower.js';
import { RestClient } from '../clients/rest-client.js';
import type { BridgeMint } from './inventory.js';

export interface StartReferenceSolversOptions {
  /** A running sandbox's manifest: chains, solver accounts, and `api` (url and keys) unless given below. */
  manifest: SandboxManifest;
  /** Default 3; at most the number of solver accounts in the manifest. */
  count?: number;
  /** Same seed, same strategies and names (default 1). */
  seed?: number;
  /** Per solver index; missing entries behave honestly. */
  behaviours?: ReadonlyArray<SolverBehaviour | undefined>;
  /** Per solver index: replaces the seeded strategy (tests pin exact prices). */
  strategies?: ReadonlyArray<Partial<PricingStrategy> | undefined>;
  serviceUrl?: string;
  apiKey?: string;
  /** `stream` (default) or `chain` (`--solver-mode chain`): see ReferenceSolverOptions.mode. */
  mode?: 'stream' | 'chain';
  /** Follow the sandbox's solver fault switches (`sandbox up` and the scenario runner do). */
  followFaults?: boolean;
}

export interface ReferenceSolvers {
  solvers: ReferenceSolver[];
  /** Set when they follow the sandbox's solver fault switches: `refresh()` makes a new switch count at once. */
  faults?: SolverFaultFollower;
  stop(): Promise<void>;
}

export async function startReferenceSolvers(options: StartReferenceSolversOptions): Promise<ReferenceSolvers> {
  const { manifest } = options;
  const count = options.count ?? DEFAULT_SOLVER_COUNT;
  const seed = options.seed ?? DEFAULT_SOLVER_SEED;
  const accounts = manifest.accounts.solvers;
  if (!Number.isInteger(count) || count < 0) throw new RangeError(`solver count must be a non-negative integer, got ${count}`);
  if (count > accounts.length) {
    throw new RangeError(`${count} solvers requested but the sandbox funds ${accounts.length} solver accounts`);
  }
  const serviceUrl = options.serviceUrl ?? manifest.api?.url;
  const apiKey = options.apiKey ?? manifest.api?.apiKeys[0];
  if (serviceUrl === undefined || apiKey === undefined) {
    throw new Error('reference solvers need the service: the manifest has no `api` (start the settlement service first)');
  }
  // One follower for all of them: one read of the switches a second, whatever the number of solvers.
  const faults =
    options.followFaults === true && manifest.environment === 'sandbox'
      ? new SolverFaultFollower(new RestClient({ baseUrl: serviceUrl, apiKey }))
      : undefined;
  const solvers = Array.from(
    { length: count },
    (_, index) =>
      new ReferenceSolver({
        name: solverNameFromSeed(seed, index),
        serviceUrl,
        apiKey,
        chains: manifest.chains,
        account: accounts[index]!,
        strategy: { ...strategyFromSeed(seed, index), ...options.strategies?.[index] },
        behaviour: options.behaviours?.[index] ?? {},
        ...(faults === undefined ? {} : { faults }),
        ...(options.mode === undefined ? {} : { mode: options.mode }),
        ...(manifest.environment === 'sandbox' ? { bridge: faucetBridge(serviceUrl, apiKey, accounts[index]!.address) } : {}),
      }),
  );
  const stop = async () => {
    faults?.stop();
    await Promise.allSettled(solvers.map((solver) => solver.stop()));
  };
  try {
    // One at a time: registrations are quick, and their order keeps ids and listings reproducible.
    for (const solver of solvers) await solver.start();
    faults?.start();
  } catch (error) {
    await stop();
    throw error;
  }
  return { solvers, stop, ...(faults === undefined ? {} : { faults }) };
}

/**
 * The sandbox's stand-in for a bridge's arriving half: the faucet mints to the solver on the chain where it is
 * short (the leaving half, a transfer to the burn address, is the solver's own; see inventory.ts). Both are real
 * transactions, and the service logs the faucet request.
 */
function faucetBridge(serviceUrl: string, apiKey: string, address: string): BridgeMint {
  const rest = new RestClient({ baseUrl: serviceUrl, apiKey, timeoutMs: 30_000 });
  return async (chainId, symbol, wholeTokens) => {
    await rest.request('POST', '/api/v1/sandbox/faucet', { address, chain: chainId, token: symbol, amount: wholeTokens.toString() });
  };
}
