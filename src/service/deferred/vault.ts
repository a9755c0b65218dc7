import { type Address, type Hex, encodeFunctionData, keccak256, stringToHex } from 'viem';
import { DeferredVaultArtifact } from '../../contracts/artifacts/DeferredVault.js';

/** The vault's account of a workspace: `keccak256(workspace id)`, as docs/deferred.md states. */
export function vaultAccount(workspaceId: string): Hex {
  return keccak256(stringToHex(workspaceId));
}

export const vaultAbi = DeferredVaultArtifact.abi;

export interface SignedDeposit {
  token: Address;
  amount: bigint;
  nonce: bigint;
  deadline: bigint;
  owner: Address;
  signature: Hex;
}

export function depositCalldata(account: Hex, deposit: SignedDeposit): Hex {
  return encodeFunctionData({
    abi: vaultAbi,
    functionName: 'deposit',
    args: [
      account,
      { permitted: { token: deposit.token, amount: deposit.amount }, nonce: deposit.nonce, deadline: deposit.deadline },
      deposit.owner,
      deposit.signature,
    ],
  });
}

export function withdrawCalldata(account: Hex, token: Address, amount: bigint, to: Address): Hex {
  return encodeFunctionData({ abi: vaultAbi, functionName: 'withdraw', args: [account, token, amount, to] });
}
