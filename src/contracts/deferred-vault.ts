import { type Address, type Hex, encodeFunctionData } from 'viem';
import { DeferredVaultArtifact } from './artifacts/DeferredVault.js';
import { vaultAccount } from './deferred-deposit.js';

export { vaultAccount };

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

/** Holds a deferred order's input from the workspace's credit; the vault's order id is the order's on-chain id. */
export function holdCalldata(orderId: Hex, workspaceId: string, token: Address, amount: bigint): Hex {
  return encodeFunctionData({ abi: vaultAbi, functionName: 'hold', args: [orderId, vaultAccount(workspaceId), token, amount] });
}

export function releaseCalldata(orderId: Hex): Hex {
  return encodeFunctionData({ abi: vaultAbi, functionName: 'release', args: [orderId] });
}

/** Pays each held order to its solver; the vault nets the transfers per (recipient, token). */
export function payoutCalldata(batch: ReadonlyArray<{ orderId: Hex; recipient: Address }>): Hex {
  return encodeFunctionData({
    abi: vaultAbi,
    functionName: 'payout',
    args: [batch.map((p) => ({ orderId: p.orderId, recipient: p.recipient }))],
  });
}
