/** The devnet's public API: start sandboxes from code, read a running one's manifest, move chain time. */
export { startSandbox } from './sandbox.js';
export type {
  Sandbox,
  SandboxChain,
  SandboxComponent,
  SandboxComponentContext,
  SandboxExit,
  RunningComponent,
  StartSandboxOptions,
} from './sandbox.js';
export { readManifest } from './manifest-file.js';
export { advanceChainTime, advanceSandboxTime, readChainTime, type ChainTime } from './chain-time.js';
export { CHAIN_NAMES, FIRST_CHAIN_ID, defaultChains, type ChainSpec } from './chain-config.js';
export { ANVIL_MNEMONIC, ROLE_LAYOUT } from './accounts.js';
export { CONTRACTS, CREATE2_DEPLOYER, FUNDING, PERMIT2_ADDRESS, TOKENS } from './deployment.js';
export { DEFAULT_STATE_DIR, stateLayout } from './state-dir.js';
export { createRpcClient, type RpcClient } from './rpc.js';
export * from './errors.js';
export type * from '../contracts/deployment.js';
