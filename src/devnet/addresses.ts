import { createHash } from 'node:crypto';
import type { Accounts } from './accounts.js';
import { ROLE_LAYOUT } from './accounts.js';
import { artifactsFingerprint, type ArtifactSet, type ContractArtifact } from './artifacts.js';
import {
  CONTRACTS,
  CREATE2_DEPLOYER,
  DEPLOYMENT_SALT,
  FUNDING,
  PLAN_VERSION,
  TOKENS,
  tokenConstructorArgs,
  type ConstructorArg,
  type ContractDeployment,
  type TokenDeployment,
} from './deployment.js';
import type { Address, Hex, TokenInfo } from '../contracts/deployment.js';

/** One planned contract with everything needed to place it. */
export interface ResolvedContract {
  name: string;
  address: Address;
  artifact: ContractArtifact;
  /** Creation code with constructor arguments, for CREATE2 placement. */
  initCode?: Hex;
  /** Runtime code for `anvil_setCode` placement. */
  runtimeCode?: Hex;
}

export interface ResolvedDeployment {
  id: string;
  contracts: ResolvedContract[];
  tokens: Array<{ info: TokenInfo; contract: ResolvedContract }>;
}

/**
 * Identifies a deployment without computing it: plan, contract code, mnemonic. Equal ids mean equal addresses,
 * equal code and equal funding, so it keys the caches and is stored beside every saved chain state.
 */
export function deploymentId(mnemonic: string, artifacts: ArtifactSet): string {
  const plan = JSON.stringify(
    { PLAN_VERSION, CONTRACTS, TOKENS, FUNDING, ROLE_LAYOUT, DEPLOYMENT_SALT, mnemonic },
    (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value),
  );
  return createHash('sha256').update(plan).update(artifactsFingerprint(artifacts)).digest('hex').slice(0, 32);
}

/** Computes every address of the plan (CREATE2 is deterministic: nothing needs a chain). */
export async function resolveDeployment(id: string, accounts: Accounts, artifacts: ArtifactSet): Promise<ResolvedDeployment> {
  const { encodeDeployData, getContractAddress } = await import('viem');
  const addresses = new Map<string, Address>();

  const resolveArg = (owner: string, arg: ConstructorArg): unknown => {
    if (typeof arg !== 'object') return arg;
    if ('account' in arg) {
      const account = accounts[arg.account][arg.index ?? 0];
      if (!account) throw new Error(`${owner}: no ${arg.account} account ${arg.index ?? 0}`);
      return account.address;
    }
    const address = addresses.get(arg.contract);
    if (!address) throw new Error(`${owner}: contract ${arg.contract} must be deployed before it`);
    return address;
  };

  const place = (
    name: string,
    artifactName: string,
    args: readonly ConstructorArg[],
    placement: ContractDeployment['placement'],
  ): ResolvedContract => {
    const artifact = artifacts.get(artifactName);
    if (!artifact) throw new Error(`artifact ${artifactName} not loaded`);
    if (placement && placement !== 'create2') {
      if (args.length > 0) throw new Error(`${name}: runtime-code placement cannot take constructor arguments`);
      addresses.set(name, placement.runtimeCodeAt);
      return { name, address: placement.runtimeCodeAt, artifact, runtimeCode: artifact.deployedBytecode };
    }
    // The plan is data, so the ABI is only known at run time: encode against the untyped signature.
    const encode = encodeDeployData as (parameters: { abi: readonly unknown[]; bytecode: Hex; args: unknown[] }) => Hex;
    const initCode = encode({ abi: artifact.abi, bytecode: artifact.bytecode, args: args.map((arg) => resolveArg(name, arg)) });
    const address = getContractAddress({ opcode: 'CREATE2', from: CREATE2_DEPLOYER, salt: DEPLOYMENT_SALT, bytecode: initCode });
    addresses.set(name, address);
    return { name, address, artifact, initCode };
  };

  const contracts = CONTRACTS.map((c) => place(c.name, c.artifact, c.args, c.placement));
  const tokens = TOKENS.map((token: TokenDeployment) => {
    const contract = place(token.symbol, token.artifact, tokenConstructorArgs(token), 'create2');
    const info: TokenInfo = {
      symbol: token.symbol,
      name: token.name,
      address: contract.address,
      decimals: token.decimals,
      eip3009: token.eip3009,
    };
    return { info, contract };
  });
  return { id, contracts, tokens };
}
