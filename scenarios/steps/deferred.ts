import { type Address, createPublicClient, getAddress, http, parseAbi } from 'viem';
import { depositTypedData, vaultAccount } from '../../src/contracts/deferred-deposit.js';
import type { ChainInfo } from '../../src/contracts/deployment.js';
import type { ScenarioContext } from '../core/context.js';
import { expectEqual } from '../core/errors.js';
import type { Step } from '../core/scenario.js';

/**
 * Steps of the deferred rail, written from docs/deferred.md: a taker funds the workspace's vault credit with a
 * signed Permit2 transfer, an admin confirms filled orders, and the vault's own books are read next to the API's.
 */
const VAULT_ABI = parseAbi([
  'function credit(bytes32 account, address token) view returns (uint256)',
  'function totalHeld(address token) view returns (uint256)',
]);

function usdcOf(chain: ChainInfo): Address {
  const token = chain.tokens.find((t) => t.symbol === 'USDC');
  if (token === undefined) throw new Error(`${chain.name} has no USDC`);
  return getAddress(token.address);
}

function vaultOf(chain: ChainInfo): Address {
  const vault = chain.contracts.DeferredVault;
  if (vault === undefined) throw new Error(`${chain.name} has no DeferredVault`);
  return getAddress(vault);
}

/** The taker signs a Permit2 transfer of `amount` USDC into the vault for the scenario workspace's account. */
/** The workspace's credit books before the scenario's first deposit (value name). */
const CREDIT_BEFORE = 'creditBefore';

export function depositCredit(takerLabel: string, amount: bigint): Step {
  return {
    title: `${takerLabel} deposits ${amount} USDC units into the workspace's deferred credit`,
    async run(context) {
      const chain = context.chain(0);
      const taker = context.taker(takerLabel);
      // Credit is the workspace's: in a shared one (`--workspace sandbox`) earlier runs left some. Checks are held to
      // the change since here; a fresh workspace has no books yet.
      if (!context.values.has(CREDIT_BEFORE))
        context.values.set(CREDIT_BEFORE, await creditBooks(context).catch(() => ({ available: 0n, held: 0n })));
      await taker.ensureFunded(chain, 'USDC', amount);
      const nonce = BigInt(Date.now()) * 1_000n + BigInt(Math.floor(Math.random() * 1_000));
      const deadline = BigInt(Math.floor((await context.target.serviceNow()) / 1_000) + 3_600);
      const typedData = depositTypedData({
        chainId: chain.chainId,
        vault: vaultOf(chain),
        token: usdcOf(chain),
        amount,
        nonce,
        deadline,
        account: vaultAccount(context.workspace.workspaceId),
      });
      const signature = await taker.account.signTypedData(typedData as Parameters<typeof taker.account.signTypedData>[0]);
      const deposit = await context.rest.request<{ status: string; txHash: string }>('POST', '/api/v1/deferred/deposit', {
        chainId: chain.chainId,
        token: usdcOf(chain),
        amount: amount.toString(),
        owner: taker.address,
        nonce: nonce.toString(),
        deadline: deadline.toString(),
        signature,
      });
      expectEqual(deposit.status, 'credited', 'deposit status');
      return `credited in ${deposit.txHash}`;
    },
  };
}

/** The API's credit figures for USDC on the origin chain, equal to the vault's own (else the step fails). */
export async function creditBooks(context: ScenarioContext): Promise<{ available: bigint; held: bigint }> {
  const chain = context.chain(0);
  const balance = await context.rest.request<{ balances: Array<{ chainId: number; token: string; available: string; held: string }> }>(
    'GET',
    '/api/v1/deferred/balance',
  );
  const row = balance.balances.find((b) => b.chainId === chain.chainId && getAddress(b.token) === usdcOf(chain));
  if (row === undefined) throw new Error('the balance lists no USDC on the origin chain');
  const client = createPublicClient({ transport: http(chain.rpcUrl) });
  const credit = await client.readContract({
    address: vaultOf(chain),
    abi: VAULT_ABI,
    functionName: 'credit',
    args: [vaultAccount(context.workspace.workspaceId), usdcOf(chain)],
  });
  expectEqual(BigInt(row.available), credit, "the API's available credit against the vault's");
  return { available: credit, held: BigInt(row.held) };
}

/** Expects the credit books at `expected` (API and vault). */
export function expectCredit(title: string, expected: (context: ScenarioContext) => { available: bigint; held: bigint }): Step {
  return {
    title: `credit ${title}`,
    async run(context) {
      const books = await creditBooks(context);
      const base = (context.values.get(CREDIT_BEFORE) as { available: bigint; held: bigint } | undefined) ?? { available: 0n, held: 0n };
      const wanted = expected(context);
      expectEqual(books.available - base.available, wanted.available, 'available credit (since the scenario began)');
      expectEqual(books.held - base.held, wanted.held, 'held credit (since the scenario began)');
      return `available ${books.available}, held ${books.held}`;
    },
  };
}

/** An admin confirms a filled deferred order (its solver is paid from the vault). */
export function confirmDeferred(orderName: string): Step {
  return {
    title: `an admin confirms deferred order ${orderName}`,
    async run(context) {
      const { orderId } = context.order(orderName);
      const approvals = await context.rest.request<{ data: Array<{ kind: string; subjectId: string }> }>(
        'GET',
        '/api/v1/admin/approvals?status=pending',
      );
      if (!approvals.data.some((a) => a.kind === 'deferred_confirmation' && a.subjectId === orderId))
        throw new Error(`no pending confirmation for ${orderId} in the approvals queue`);
      await context.rest.request('POST', `/api/v1/admin/deferred/${orderId}/confirm`);
      return `confirmed ${orderId}`;
    },
  };
}
