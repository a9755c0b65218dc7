/**
 * The shape of `sandbox.json`: one file that lists every URL, address, key and secret of a running sandbox.
 * Scripts, scenarios and conformance read it; later parts add fields (never rename existing ones).
 */
export type Address = `0x${string}`;
export type Hex = `0x${string}`;

export type Environment = 'sandbox' | 'production';

export interface TokenInfo {
  symbol: string;
  name: string;
  address: Address;
  decimals: number;
  /** True when the token implements ERC-3009 (receiveWithAuthorization): EIP3009Escrow is offered for it. */
  eip3009: boolean;
}

export interface ChainInfo {
  /** Short name used in corridor ids, e.g. `alpha` in `alpha:USDC-beta:USDC`. */
  name: string;
  chainId: number;
  rpcUrl: string;
  wsUrl: string;
  /**
   * The chain's IPC socket on the machine that started it (a sandbox's own anvil), when it has one: the same
   * JSON-RPC as `rpcUrl`, cheaper per call. Clients on other machines or in containers use `rpcUrl`.
   */
  ipcPath?: string;
  /** Contract name → address; the same on every chain (CREATE2), Permit2 at its canonical address. */
  contracts: Record<string, Address>;
  tokens: TokenInfo[];
}

export interface AccountInfo {
  address: Address;
  privateKey: Hex;
}

/** Roles of the deterministic accounts derived from the mnemonic. */
export type AccountRole = 'deployer' | 'serviceRelayer' | 'oracleRelayer' | 'solvers' | 'takers';

export interface ApiInfo {
  url: string;
  wsUrl: string;
  /** Workspace created by `sandbox up`. */
  workspaceId: string;
  /** API keys of that workspace (`svc_test_…` in the sandbox). */
  apiKeys: string[];
  /** Where the service keeps its store: the SQLite file, or the Postgres database (URL without its password). */
  store?: { kind: 'sqlite' | 'postgres'; location: string };
  /** Service processes behind `url` (`sandbox up --instances N`); absent means one. */
  instances?: number;
}

export interface SandboxManifest {
  environment: Environment;
  /** Schema version of this file, bumped only on incompatible changes. */
  manifestVersion: 1;
  stateDir: string;
  chains: ChainInfo[];
  accounts: Record<AccountRole, AccountInfo[]>;
  /** Present once the service runs (`sandbox up` starts it). */
  api?: ApiInfo;
  /** Process that owns the running sandbox: the supervisor of a detached one, else the `sandbox up` process. */
  pid?: number;
  startedAt: string;
  /** How the contracts were placed; equal ids mean equal code, addresses and funding. */
  deployment?: DeploymentInfo;
  /** Mnemonic the accounts are derived from (BIP-44 path m/44'/60'/0'/0/<index>). */
  mnemonic?: string;
}

export interface DeploymentInfo {
  /** Content hash of the deployment plan, contract code and mnemonic. */
  id: string;
  /** CREATE2 deployer every contract went through. */
  create2Deployer: Address;
  salt: Hex;
}
