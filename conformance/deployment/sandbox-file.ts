import { readFileSync } from 'node:fs';
import { BaseError } from '../../src/contracts/errors/base-error.js';

/**
 * The parts of a sandbox's `sandbox.json` the certifier reads: where the API is, its key and workspace, the
 * chains (JSON-RPC, contracts, tokens) and funded accounts. Another deployment can hand over a file of the
 * same shape to let the positive flows run against it.
 */
export interface SandboxFileChain {
  name: string;
  chainId: number;
  rpcUrl: string;
  wsUrl?: string;
  contracts: Record<string, `0x${string}`>;
  tokens: Array<{ symbol: string; address: `0x${string}`; decimals: number; eip3009?: boolean }>;
}

export interface SandboxFileAccount {
  address: `0x${string}`;
  privateKey: `0x${string}`;
}

export interface SandboxFile {
  environment?: string;
  chains?: SandboxFileChain[];
  accounts?: Partial<Record<'takers' | 'solvers' | 'deployer' | 'serviceRelayer' | 'oracleRelayer', SandboxFileAccount[]>>;
  api?: { url?: string; wsUrl?: string; workspaceId?: string; apiKeys?: string[] };
}

export class SandboxFileError extends BaseError {
  override readonly name = 'SandboxFileError';
}

export function readSandboxFile(path: string): SandboxFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new SandboxFileError(`cannot read ${path}: ${(error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new SandboxFileError(`${path} is not JSON`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new SandboxFileError(`${path} is not a JSON object`);
  return parsed as SandboxFile;
}
