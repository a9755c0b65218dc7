import type { Hex } from 'viem';
import type { ChainInfo } from '../../contracts/deployment.js';
import { Address, ChainId, checksummed } from '../api/wire.js';
import type { OpenApiRegistry } from '../api/openapi.js';
import { pageEnvelope, toPageRequest } from '../api/pagination.js';
import { pageSchema } from '../api/pagination.js';
import type { RouteTable } from '../api/route.js';
import { isoTime } from '../api/wire.js';
import { requireRole } from '../members/roles.js';
import { keysetPage } from '../store/pagination.js';
import type { PlatformRepositories } from '../store/repositories.js';
import type { Store } from '../store/store.js';
import { type ApprovalRecord, type DeferredCredit, approvalFrom, depositView, withdrawalView } from './credit.js';
import * as S from './schemas.js';
import { vaultAccount } from '../../contracts/deferred-vault.js';

const approvalView = (a: ApprovalRecord) => ({
  object: 'approval' as const,
  id: a.id,
  kind: a.kind,
  subjectId: a.subjectId,
  status: a.status,
  summary: a.summary,
  createdAt: isoTime(a.createdAt),
  decidedAt: a.decidedAt === null ? null : isoTime(a.decidedAt),
  decidedBy: a.decidedBy,
});

/** `/api/v1/deferred/*` (credit, deposits, withdrawals) and `/api/v1/admin/approvals*`. */
export function mountDeferredRoutes(
  api: RouteTable,
  openapi: OpenApiRegistry,
  credit: DeferredCredit,
  repos: PlatformRepositories,
  store: Store,
  vaultChains: readonly ChainInfo[] = [],
): void {
  // The document names the chains with a vault and their tokens, so a client generating requests from it only
  // sends values this deployment serves.
  const chainIds = vaultChains.map((c) => c.chainId);
  const tokens = [...new Set(vaultChains.flatMap((c) => c.tokens.map((t) => t.address)))];
  const servedFields = {
    chainId: ChainId.meta({ description: 'A chain with a DeferredVault.', enum: chainIds }),
    token: Address.meta({ description: 'A token of that chain.', enum: tokens }),
  };
  const depositBody = chainIds.length === 0 ? S.DepositRequest : S.DepositRequest.extend(servedFields);
  const withdrawBody = chainIds.length === 0 ? S.WithdrawRequest : S.WithdrawRequest.extend(servedFields);
  openapi.schema('DeferredDeposit', S.DepositView);
  openapi.schema('DeferredWithdrawal', S.WithdrawalView);
  openapi.schema('Approval', S.ApprovalView);
  const tags = ['Deferred'];

  api.route({
    method: 'get',
    path: '/deferred/balance',
    operationId: 'getDeferredBalance',
    summary: "The workspace's credit in DeferredVault per chain and token: available (read from the chain) and held.",
    tags,
    auth: 'required',
    responses: { 200: { description: 'Balances.', schema: S.BalanceView } },
    handler: async ({ auth }) => {
      requireRole(repos, auth, 'viewer');
      return {
        status: 200,
        body: {
          object: 'deferred_balance' as const,
          workspaceId: auth!.workspaceId,
          account: vaultAccount(auth!.workspaceId),
          balances: await credit.balance(auth!.workspaceId),
        },
      };
    },
  });

  api.route({
    method: 'post',
    path: '/deferred/deposit',
    operationId: 'depositDeferredCredit',
    summary: "Relays the owner's signed Permit2 transfer into DeferredVault, crediting the workspace (developer or admin).",
    description:
      'The service simulates the deposit first (a signature, nonce, deadline or balance the chain would refuse is a 422 ' +
      '`deposit_failed` naming the field, nothing sent), then sends it. 201 once credited; 202 with the deposit while ' +
      'its transaction is still on its way (follow it at `GET /api/v1/deferred/deposits/{id}`).',
    tags,
    auth: 'required',
    body: depositBody,
    responses: {
      201: {
        description: 'Credited; `credit.updated` was published.',
        schema: S.DepositView,
        links: { Deposit: { operationId: 'getDeferredDeposit', parameters: { depositId: '$response.body#/id' } } },
      },
      202: {
        description: 'Sent, not yet confirmed.',
        schema: S.DepositView,
        links: { Deposit: { operationId: 'getDeferredDeposit', parameters: { depositId: '$response.body#/id' } } },
      },
      422: { description: '`deposit_failed`: the chain refuses it (reverted on chain: status `failed`).' },
    },
    handler: async ({ auth, body }) => {
      requireRole(repos, auth, 'developer');
      const { record } = await credit.deposit(auth!.workspaceId, {
        chainId: body.chainId,
        token: checksummed(body.token),
        amount: BigInt(body.amount),
        owner: checksummed(body.owner),
        nonce: BigInt(body.nonce),
        deadline: BigInt(body.deadline),
        signature: body.signature as Hex,
      });
      return { status: record.status === 'credited' ? 201 : 202, body: depositView(record) };
    },
  });

  api.route({
    method: 'get',
    path: '/deferred/deposits/:depositId',
    operationId: 'getDeferredDeposit',
    summary: 'One deposit of the workspace.',
    tags,
    auth: 'required',
    params: S.IdParams.deposit,
    responses: { 200: { description: 'The deposit.', schema: S.DepositView } },
    handler: ({ auth, params }) => {
      requireRole(repos, auth, 'viewer');
      return { status: 200, body: depositView(credit.depositRecord(auth!.workspaceId, params.depositId)) };
    },
  });

  api.route({
    method: 'post',
    path: '/deferred/withdraw',
    operationId: 'withdrawDeferredCredit',
    summary: 'Pays available credit out of DeferredVault (admin); above the approval threshold it waits for an admin approval.',
    tags,
    auth: 'required',
    body: withdrawBody,
    responses: {
      200: {
        description: 'Paid; `credit.updated` was published.',
        schema: S.WithdrawalView,
        links: { Withdrawal: { operationId: 'getDeferredWithdrawal', parameters: { withdrawalId: '$response.body#/id' } } },
      },
      202: {
        description: 'Waiting for an admin approval (`pending_approval`), or sent and not yet confirmed.',
        schema: S.WithdrawalView,
        links: {
          Withdrawal: { operationId: 'getDeferredWithdrawal', parameters: { withdrawalId: '$response.body#/id' } },
          Approve: { operationId: 'approveApproval', parameters: { approvalId: '$response.body#/approvalId' } },
        },
      },
      422: { description: '`insufficient_credit`: more than the available credit.' },
    },
    handler: async ({ auth, body }) => {
      requireRole(repos, auth, 'admin');
      const { record } = await credit.requestWithdrawal(auth!, {
        chainId: body.chainId,
        token: checksummed(body.token),
        amount: BigInt(body.amount),
        to: checksummed(body.to),
      });
      return { status: record.status === 'paid' || record.status === 'failed' ? 200 : 202, body: withdrawalView(record) };
    },
  });

  api.route({
    method: 'get',
    path: '/deferred/withdrawals/:withdrawalId',
    operationId: 'getDeferredWithdrawal',
    summary: 'One withdrawal of the workspace.',
    tags,
    auth: 'required',
    params: S.IdParams.withdrawal,
    responses: { 200: { description: 'The withdrawal.', schema: S.WithdrawalView } },
    handler: ({ auth, params }) => {
      requireRole(repos, auth, 'viewer');
      return { status: 200, body: withdrawalView(credit.withdrawalRecord(auth!.workspaceId, params.withdrawalId)) };
    },
  });

  api.route({
    method: 'get',
    path: '/admin/approvals',
    operationId: 'listApprovals',
    summary: 'What waits for an admin (large withdrawals; deferred confirmations), newest first (admin).',
    tags: ['Admin'],
    auth: 'required',
    query: S.ApprovalsQuery,
    responses: { 200: { description: 'A page of approvals.', schema: pageSchema(S.ApprovalView) } },
    handler: ({ auth, query }) => {
      requireRole(repos, auth, 'admin');
      const where = query.status === undefined ? 'workspace_id = ?' : 'workspace_id = ? AND status = ?';
      const params = query.status === undefined ? [auth!.workspaceId] : [auth!.workspaceId, query.status];
      const page = keysetPage<Record<string, unknown>>(store.db, {
        from: 'admin_approvals',
        where,
        params,
        sortColumn: 'created_at',
        order: 'desc',
        request: toPageRequest(query),
        position: (row) => ({ key: row.created_at as number, id: row.id as string }),
      });
      return { status: 200, body: pageEnvelope({ ...page, items: page.items.map(approvalFrom) }, approvalView) };
    },
  });

  for (const decision of ['approve', 'reject'] as const) {
    api.route({
      method: 'post',
      path: `/admin/approvals/:approvalId/${decision}`,
      operationId: decision === 'approve' ? 'approveApproval' : 'rejectApproval',
      summary:
        decision === 'approve'
          ? 'Approves a waiting item (admin): an approved withdrawal is sent at once.'
          : 'Rejects a waiting item (admin): a rejected withdrawal is never sent.',
      tags: ['Admin'],
      auth: 'required',
      params: S.IdParams.approval,
      responses: {
        200: { description: 'The decided approval.', schema: S.ApprovalView },
        409: { description: '`approval_decided`: it was decided before.' },
      },
      handler: async ({ auth, params }) => {
        requireRole(repos, auth, 'admin');
        const decided = await credit.decide(auth!, params.approvalId, decision === 'approve' ? 'approved' : 'rejected');
        return { status: 200, body: approvalView(decided) };
      },
    });
  }
}
