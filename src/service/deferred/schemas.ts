import { z } from 'zod';
import { pageQueryShape } from '../api/pagination.js';
import { Address, ChainId, HexBytes, IsoTimestamp, PositiveUintString, UintString } from '../api/wire.js';

export const DepositRequest = z.strictObject({
  chainId: ChainId,
  token: Address.meta({ description: 'A token of that chain.' }),
  amount: PositiveUintString.meta({ description: 'Token units; the Permit2 `permitted.amount`.' }),
  owner: Address.meta({ description: 'The wallet whose tokens move (the signer).' }),
  nonce: UintString.meta({ description: 'The Permit2 signature-transfer nonce the owner signed.' }),
  deadline: UintString.meta({ description: 'The Permit2 deadline (Unix seconds) the owner signed.' }),
  signature: HexBytes.meta({
    description:
      "The owner's EIP-712 signature of Permit2 `PermitWitnessTransferFrom` with spender = the chain's DeferredVault and " +
      'witness `Deposit(bytes32 account)`, account = keccak256(workspace id) (see `GET /api/v1/deferred/balance`).',
  }),
});

export const WithdrawRequest = z.strictObject({
  chainId: ChainId,
  token: Address,
  amount: PositiveUintString,
  to: Address.meta({ description: 'Where the tokens go.' }),
});

export const DepositView = z.object({
  object: z.literal('deferred_deposit'),
  id: z.string().meta({ description: '`dep_…`' }),
  chainId: z.number().int(),
  token: z.string(),
  amount: z.string(),
  owner: z.string(),
  status: z.enum(['sending', 'credited', 'failed']),
  txHash: z.string().nullable(),
  error: z.string().nullable(),
  createdAt: IsoTimestamp,
});

export const WithdrawalView = z.object({
  object: z.literal('deferred_withdrawal'),
  id: z.string().meta({ description: '`wdr_…`' }),
  chainId: z.number().int(),
  token: z.string(),
  amount: z.string(),
  to: z.string(),
  status: z.enum(['pending_approval', 'sending', 'paid', 'failed', 'rejected']),
  approvalId: z.string().nullable().meta({ description: 'The admin approval it waits for (above the threshold).' }),
  txHash: z.string().nullable(),
  error: z.string().nullable(),
  createdAt: IsoTimestamp,
  updatedAt: IsoTimestamp,
});

export const BalanceView = z.object({
  object: z.literal('deferred_balance'),
  workspaceId: z.string(),
  account: z.string().meta({ description: "The workspace's account in DeferredVault: keccak256(workspace id), the deposit witness." }),
  balances: z.array(
    z.object({
      chainId: z.number().int(),
      token: z.string(),
      symbol: z.string(),
      available: z.string().meta({ description: "The vault's `credit(account, token)`, read from the chain now." }),
      held: z.string().meta({ description: 'Credit held for deferred orders.' }),
    }),
  ),
});

export const ApprovalView = z.object({
  object: z.literal('approval'),
  id: z.string().meta({ description: '`apr_…`' }),
  kind: z.enum(['withdrawal', 'deferred_confirmation']),
  subjectId: z.string().meta({ description: 'What waits: a withdrawal (`wdr_…`) or a deferred order.' }),
  status: z.enum(['pending', 'approved', 'rejected']),
  summary: z.string(),
  createdAt: IsoTimestamp,
  decidedAt: IsoTimestamp.nullable(),
  decidedBy: z.string().nullable(),
});

export const ApprovalsQuery = z.object({
  ...pageQueryShape,
  status: z.enum(['pending', 'approved', 'rejected']).optional().meta({ description: 'Only approvals in this state.' }),
});

export const IdParams = {
  deposit: z.object({
    depositId: z
      .string()
      .regex(/^dep_[A-Za-z0-9]+$/)
      .meta({ example: 'dep_0example' }),
  }),
  withdrawal: z.object({
    withdrawalId: z
      .string()
      .regex(/^wdr_[A-Za-z0-9]+$/)
      .meta({ example: 'wdr_0example' }),
  }),
  approval: z.object({
    approvalId: z
      .string()
      .regex(/^apr_[A-Za-z0-9]+$/)
      .meta({ example: 'apr_0example' }),
  }),
};
