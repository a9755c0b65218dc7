import type { AccountRole, Address, Hex } from '../contracts/deployment.js';

/**
 * The deployment plan of every chain, as data: what is deployed, from which artifact, with which constructor
 * arguments, and how accounts are funded. Adjust contracts here; the code that executes the plan lives in
 * genesis.ts and addresses.ts.
 *
 * Every contract goes through anvil's predeployed CREATE2 deployer with one salt, so its address depends only
 * on its creation code and arguments: the same on every chain and every run.
 */

/** Arachnid's deterministic-deployment proxy, predeployed by anvil. */
export const CREATE2_DEPLOYER: Address = '0x4e59b44847b379578588920cA78FbF26c0B4956C';
/** Permit2's canonical address on every public chain; our SignatureTransfer's runtime code is placed here. */
export const PERMIT2_ADDRESS: Address = '0x000000000022D473030F116dDEE9F6B43aC78BA3';
/** "settlement-sandbox" right-padded: one salt for everything, so an address is a function of code and args. */
export const DEPLOYMENT_SALT: Hex = '0x736574746c656d656e742d73616e64626f780000000000000000000000000000';

/** A constructor argument: a literal, an account of a role, or the address of a contract deployed before. */
export type ConstructorArg = string | number | boolean | { account: AccountRole; index?: number } | { contract: string };

export interface ContractDeployment {
  /** Key in `sandbox.json`'s `contracts`. */
  name: string;
  /** Generated artifact `src/contracts/artifacts/<artifact>.ts`. */
  artifact: string;
  args: readonly ConstructorArg[];
  /**
   * `create2` (default) deploys through the deployer. `{ runtimeCodeAt }` writes the artifact's runtime code at a
   * fixed address with `anvil_setCode`: only for contracts with no constructor, immutables or initial storage.
   */
  placement?: 'create2' | { runtimeCodeAt: Address };
}

export interface TokenDeployment {
  symbol: string;
  name: string;
  decimals: number;
  /** Implements ERC-3009 `receiveWithAuthorization` (EIP3009Escrow is offered for it). */
  eip3009: boolean;
  artifact: string;
}

/** In deployment order: a contract named in `args` must come earlier. */
export const CONTRACTS: readonly ContractDeployment[] = [
  { name: 'Permit2', artifact: 'SignatureTransfer', args: [], placement: { runtimeCodeAt: PERMIT2_ADDRESS } },
  { name: 'InputSettlerEscrow', artifact: 'InputSettlerEscrow', args: [] },
  { name: 'OutputSettler', artifact: 'OutputSettler', args: [] },
  { name: 'OutputOracle', artifact: 'OutputOracle', args: [] },
  { name: 'InputOracle', artifact: 'InputOracle', args: [{ account: 'oracleRelayer' }] },
  { name: 'ResourceLock', artifact: 'ResourceLock', args: [] },
  // Registers itself with the lock in its constructor.
  { name: 'AlwaysOkAllocator', artifact: 'AlwaysOkAllocator', args: [{ contract: 'ResourceLock' }] },
  { name: 'InputSettlerCompact', artifact: 'InputSettlerCompact', args: [{ contract: 'ResourceLock' }] },
  // The deferred rail's prefunded balances; only the service's relayer moves credit.
  { name: 'DeferredVault', artifact: 'DeferredVault', args: [{ contract: 'Permit2' }, { account: 'serviceRelayer' }] },
];

/** Two stablecoins per chain, both owned (mintable) by the deployer; same addresses on every chain. */
export const TOKENS: readonly TokenDeployment[] = [
  { symbol: 'USDC', name: 'USD Coin (sandbox)', decimals: 6, eip3009: true, artifact: 'TestStablecoin' },
  { symbol: 'USDT', name: 'Tether USD (sandbox)', decimals: 6, eip3009: false, artifact: 'Permit2OnlyStablecoin' },
];

export const tokenConstructorArgs = (token: TokenDeployment): readonly ConstructorArg[] => [
  token.name,
  token.symbol,
  token.decimals,
  { account: 'deployer' },
];

/**
 * Funding of every chain, in whole tokens (times 10^decimals on chain). Solvers hold inventory on every
 * chain because every chain is a destination of some corridor.
 */
export const FUNDING = {
  /** Native balance of every role account. */
  etherPerAccount: 10_000n,
  /** Each taker, each token, each chain; plus an unlimited Permit2 approval of each token. */
  tokensPerTaker: 1_000_000n,
  /** Each solver, each token, each chain. */
  tokensPerSolver: 10_000_000n,
} as const;

/** Gas limits are explicit (estimates fall short under concurrency); deployments are estimated with headroom. */
export const GAS = {
  deploymentHeadroomPercent: 25n,
  call: 250_000n,
} as const;

/** Bump when the meaning of the plan changes in a way the data above does not show (invalidates caches). */
export const PLAN_VERSION = 1;
