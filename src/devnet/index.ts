/**
 * The devnet's public API: start the chains from code, read a running sandbox's manifest, move chain time. A whole
 * sandbox (chains, service, solvers) starts from the composition root, src/sandbox/sandbox.ts.
 */
export { startDevnet } from './devnet.js';
export type { Devnet, DevnetExit, SandboxChain, StartDevnetOptions } from './devnet.js';
export { readManifest, writeManifest } from './manifest-file.js';
export { advanceChainTime, advanceSandboxTime, readChainTime, type ChainTime } from './chain-time.js';
export { CHAIN_NAMES, FIRST_CHAIN_ID, defaultChains, type ChainSpec } from './chain-config.js';
export { ANVIL_MNEMONIC, ROLE_LAYOUT } from './accounts.js';
export { CONTRACTS, CREATE2_DEPLOYER, FUNDING, PERMIT2_ADDRESS, TOKENS } from './deployment.js';
export { DEFAULT_STATE_DIR, stateLayout } from './state-dir.js';
export { createRpcClient, type RpcClient } from './rpc.js';
export * from './errors.js';
export type * from '../contracts/deployment.js';
