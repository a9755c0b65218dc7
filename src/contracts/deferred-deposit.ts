/**
 * The deferred rail's deposit, as DeferredVault checks it: the owner signs Permit2's `PermitWitnessTransferFrom`
 * with the vault as spender and the witness `Deposit(bytes32 account)`, where the account of a workspace is
 * `keccak256(workspace id)` (docs/deferred.md). One definition for the service, the scenarios and the tests.
 */
import { type Address, type Hex, getAddress, stringToHex } from 'viem';
import { keccak256 } from './keccak.js';
import { CANONICAL_PERMIT2 } from './order.js';
import type { OrderTypedData } from './typed-data.js';

/** The vault's account of a workspace. */
export function vaultAccount(workspaceId: string): Hex {
  return keccak256(stringToHex(workspaceId));
}

export interface DepositPermit {
  chainId: number;
  vault: Address;
  token: Address;
  amount: bigint;
  nonce: bigint;
  deadline: bigint;
  /** The vault account credited (the witness); `vaultAccount(workspaceId)`. */
  account: Hex;
}

/** The payload the owner signs for `DeferredVault.deposit`. */
export function depositTypedData(permit: DepositPermit): OrderTypedData {
  return {
    domain: { name: 'Permit2', chainId: BigInt(permit.chainId), verifyingContract: CANONICAL_PERMIT2 },
    types: {
      PermitWitnessTransferFrom: [
        { name: 'permitted', type: 'TokenPermissions' },
        { name: 'spender', type: 'address' },
        { name: 'nonce', type: 'uint256' },
        { name: 'deadline', type: 'uint256' },
        { name: 'witness', type: 'Deposit' },
      ],
      TokenPermissions: [
        { name: 'token', type: 'address' },
        { name: 'amount', type: 'uint256' },
      ],
      Deposit: [{ name: 'account', type: 'bytes32' }],
    },
    primaryType: 'PermitWitnessTransferFrom',
    message: {
      permitted: { token: getAddress(permit.token), amount: permit.amount },
      spender: getAddress(permit.vault),
      nonce: permit.nonce,
      deadline: permit.deadline,
      witness: { account: permit.account },
    },
  };
}
