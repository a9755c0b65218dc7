import { pbkdf2Sync } from 'node:crypto';
import type { AccountInfo, AccountRole, Hex } from '../contracts/deployment.js';

/** anvil's (and Hardhat's) well-known test mnemonic: every tool already knows these accounts are public. */
export const ANVIL_MNEMONIC = 'test test test test test test test test test test test junk';
export const DERIVATION_PATH = "m/44'/60'/0'/0/";

/** Roles in mnemonic order: deployer is index 0, takers the last five. */
export const ROLE_LAYOUT: ReadonlyArray<readonly [AccountRole, number]> = [
  ['deployer', 1],
  ['serviceRelayer', 1],
  ['oracleRelayer', 1],
  ['solvers', 3],
  ['takers', 5],
];

export const ACCOUNT_COUNT = ROLE_LAYOUT.reduce((sum, [, count]) => sum + count, 0);

export type Accounts = Record<AccountRole, AccountInfo[]>;

/** Mnemonic index of every role's accounts. */
export function roleIndexes(): Record<AccountRole, number[]> {
  const indexes = {} as Record<AccountRole, number[]>;
  let next = 0;
  for (const [role, count] of ROLE_LAYOUT) {
    indexes[role] = Array.from({ length: count }, () => next++);
  }
  return indexes;
}

/**
 * Derives the role accounts (BIP-44, anvil's derivation path). The seed comes from node's native PBKDF2: viem's
 * pure-JS `mnemonicToAccount` recomputes it per account and takes a third of a second for eleven.
 */
export async function deriveAccounts(mnemonic: string = ANVIL_MNEMONIC): Promise<Accounts> {
  const { HDKey, privateKeyToAccount } = await import('viem/accounts');
  const seed = pbkdf2Sync(mnemonic.normalize('NFKD'), 'mnemonic', 2048, 64, 'sha512');
  const root = HDKey.fromMasterSeed(seed);
  const accounts = {} as Accounts;
  for (const [role, indexes] of Object.entries(roleIndexes()) as Array<[AccountRole, number[]]>) {
    accounts[role] = indexes.map((index) => {
      const key = root.derive(`${DERIVATION_PATH}${index}`).privateKey;
      if (!key) throw new Error(`no private key at index ${index}`);
      const privateKey = `0x${Buffer.from(key).toString('hex')}` as Hex;
      return { address: privateKeyToAccount(privateKey).address, privateKey };
    });
  }
  return accounts;
}

export function allAccounts(accounts: Accounts): AccountInfo[] {
  return ROLE_LAYOUT.flatMap(([role]) => accounts[role]);
}
