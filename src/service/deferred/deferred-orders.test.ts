import { type Address, createPublicClient, erc20Abi, getAddress, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiRequestError } from '../../clients/rest-client.js';
import { depositTypedData } from '../../contracts/deferred-deposit.js';
import { type ReferenceSolvers, startReferenceSolvers } from '../../solvers/index.js';
import { startSettlementHarness, type SettlementHarness } from '../../../test/support/settlement/harness.js';
import { TestTaker } from '../../../test/support/settlement/taker.js';
import { eventually, waitForStatus } from '../../../test/support/settlement/wait.js';
import { vaultAbi, vaultAccount } from '../../contracts/deferred-vault.js';

/**
 * Deferred orders end to end on real anvils: the order holds the workspace's vault credit (no escrow deposit), a
 * reference solver fills as usual, an admin confirms and the vault pays the solver; an unfilled order's hold is
 * released at `expires`; a paused liquidity provider is neither invited nor paid. The vault's books equal the
 * API's figures at every step.
 */
let h: SettlementHarness;
let solvers: ReferenceSolvers;
let taker: TestTaker;
const AMOUNT = 15_000_000_000n;

beforeAll(async () => {
  h = await startSettlementHarness();
  solvers = await startReferenceSolvers({
    manifest: { ...h.manifest, api: { url: h.service.url, wsUrl: h.service.wsUrl, workspaceId: h.workspaceId, apiKeys: [h.apiKey] } },
    count: 2,
    behaviours: [undefined, { fill: 'never' }],
  });
  taker = new TestTaker(h.manifest.accounts.takers[0]!.privateKey, h.rest, h.manifest.chains);
}, 60_000);
afterAll(async () => {
  await solvers?.stop();
  await h?.stop();
});

const alpha = () => h.manifest.chains[0]!;
const beta = () => h.manifest.chains[1]!;
const usdc = (chain = alpha()) => getAddress(chain.tokens.find((t) => t.symbol === 'USDC')!.address);
const vault = () => getAddress(alpha().contracts.DeferredVault!);
const reader = () => createPublicClient({ transport: http(alpha().rpcUrl) });
const honest = () => solvers.solvers[0]!;
const neverFills = () => solvers.solvers[1]!;

async function deposit(amount: bigint): Promise<void> {
  const owner = privateKeyToAccount(h.manifest.accounts.takers[0]!.privateKey);
  const nonce = BigInt(Date.now());
  const deadline = BigInt(Math.floor(h.clock.now() / 1000) + 3_600);
  const typed = depositTypedData({
    chainId: alpha().chainId,
    vault: vault(),
    token: usdc(),
    amount,
    nonce,
    deadline,
    account: vaultAccount(h.workspaceId),
  });
  const signature = await owner.signTypedData(typed as Parameters<typeof owner.signTypedData>[0]);
  const body = {
    chainId: alpha().chainId,
    token: usdc(),
    amount: amount.toString(),
    owner: owner.address,
    nonce: nonce.toString(),
    deadline: deadline.toString(),
    signature,
  };
  const created = await h.rest.request<{ status: string }>('POST', '/api/v1/deferred/deposit', body);
  expect(created.status).toBe('credited');
}

/** The API's figures, checked against the vault's own books. */
async function books(): Promise<{ available: bigint; held: bigint }> {
  const balance = await h.rest.request<{ balances: Array<{ chainId: number; token: string; available: string; held: string }> }>(
    'GET',
    '/api/v1/deferred/balance',
  );
  const row = balance.balances.find((b) => b.chainId === alpha().chainId && b.token === usdc())!;
  const client = reader();
  const [credit, totalCredit, totalHeld, tokens] = await Promise.all([
    client.readContract({ address: vault(), abi: vaultAbi, functionName: 'credit', args: [vaultAccount(h.workspaceId), usdc()] }),
    client.readContract({ address: vault(), abi: vaultAbi, functionName: 'totalCredit', args: [usdc()] }),
    client.readContract({ address: vault(), abi: vaultAbi, functionName: 'totalHeld', args: [usdc()] }),
    client.readContract({ address: usdc(), abi: erc20Abi, functionName: 'balanceOf', args: [vault()] }),
  ]);
  expect(BigInt(row.available)).toBe(credit);
  // This workspace is the vault's only account in this test: its holds are the vault's.
  expect(BigInt(row.held)).toBe(totalHeld);
  expect(tokens).toBe(totalCredit + totalHeld);
  return { available: credit, held: BigInt(row.held) };
}

/** The taker's quotes for AMOUNT on the alpha → beta USDC corridor, on one settlement path. */
function quotesOn(settlementPath: 'deferred' | 'direct') {
  return taker.quote({
    originChainId: alpha().chainId,
    destinationChainId: beta().chainId,
    inputToken: usdc(),
    outputToken: usdc(beta()),
    inputAmount: AMOUNT.toString(),
    lockType: 'Permit2Escrow',
    settlementPath,
  });
}

async function deferredQuote(solverId?: string) {
  const response = await quotesOn('deferred');
  const quote = solverId === undefined ? response.quotes[0]! : response.quotes.find((q) => q.solverId === solverId)!;
  expect(quote.settlementPath).toBe('deferred');
  return quote;
}

async function order(solverId?: string) {
  const quote = await deferredQuote(solverId);
  return h.rest.createOrder({
    quoteId: quote.quoteId,
    signature: await taker.sign(quote.typedData),
    nonce: quote.nonce!,
    user: taker.address,
  });
}

async function tokenBalance(owner: Address): Promise<bigint> {
  return reader().readContract({ address: usdc(), abi: erc20Abi, functionName: 'balanceOf', args: [owner] });
}

describe('deferred orders', () => {
  it('no credit, no order: a deferred order above the credit is a 422 naming the quote, and nothing is held', async () => {
    const refused = await order().then(
      () => undefined,
      (e: unknown) => e as ApiRequestError,
    );
    expect(refused).toBeInstanceOf(ApiRequestError);
    expect({ status: refused!.status, code: refused!.code, param: refused!.param }).toEqual({
      status: 422,
      code: 'insufficient_credit',
      param: 'quoteId',
    });
    expect(await books()).toEqual({ available: 0n, held: 0n });
  });

  it('holds credit, the solver fills, an admin confirms, the vault pays the solver: Claimed', async () => {
    await deposit(40_000_000_000n);
    expect(await books()).toEqual({ available: 40_000_000_000n, held: 0n });
    const takerBefore = await tokenBalance(taker.address);
    const created = await order(honest().solverId);
    expect(created).toMatchObject({ status: 'Deposited', settlementPath: 'deferred' });
    // No escrow deposit: the taker's own tokens did not move; the workspace's credit is held instead.
    expect(await tokenBalance(taker.address)).toBe(takerBefore);
    expect(await books()).toEqual({ available: 25_000_000_000n, held: AMOUNT });

    await waitForStatus(h.rest, created.orderId, 'Filled');
    const queue = await eventually(async () => {
      const page = await h.rest.request<{ data: Array<{ kind: string; subjectId: string; status: string }> }>(
        'GET',
        '/api/v1/admin/approvals?status=pending',
      );
      return page.data.find((a) => a.subjectId === created.orderId);
    });
    expect(queue).toMatchObject({ kind: 'deferred_confirmation', status: 'pending' });
    const listed = await h.rest.request<{ data: Array<{ orderId: string; status: string }> }>('GET', '/api/v1/deferred/orders');
    expect(listed.data.map((o) => o.orderId)).toContain(created.orderId);

    const solverBefore = await tokenBalance(privateKeyToAccount(h.manifest.accounts.solvers[0]!.privateKey).address);
    await h.rest.request('POST', `/api/v1/admin/deferred/${created.orderId}/confirm`);
    const claimed = await waitForStatus(h.rest, created.orderId, 'Claimed');
    expect(claimed.claimTxHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await tokenBalance(privateKeyToAccount(h.manifest.accounts.solvers[0]!.privateKey).address)).toBe(solverBefore + AMOUNT);
    expect(await books()).toEqual({ available: 25_000_000_000n, held: 0n });
    // Confirming twice is refused.
    const again = await h.rest.request('POST', `/api/v1/admin/deferred/${created.orderId}/confirm`).catch((e: ApiRequestError) => e);
    expect(again).toMatchObject({ status: 409, code: 'order_not_confirmable' });
  });

  it('an unfilled deferred order is Refunded at expires: its hold returns to the credit', async () => {
    const before = await books();
    const created = await order(neverFills().solverId);
    expect(await books()).toEqual({ available: before.available - AMOUNT, held: AMOUNT });
    const detail = await h.rest.getOrder(created.orderId);
    const expires = Math.floor(Date.parse((detail as unknown as { expires: string }).expires) / 1000);
    await h.clock.advanceTo((expires + 1) * 1_000);
    const refunded = await waitForStatus(h.rest, created.orderId, 'Refunded');
    expect(refunded.refundTxHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await books()).toEqual(before);
  });

  it('a paused liquidity provider is not invited to deferred RFQs (direct ones go on); resumed, it is again', async () => {
    const solverId = honest().solverId;
    const paused = await h.rest.request<{ paused: boolean }>('POST', `/api/v1/admin/deferred/${solverId}/pause`);
    expect(paused).toEqual({ object: 'liquidity_provider', solverId, paused: true });
    const response = await quotesOn('deferred');
    expect(response.quotes.map((q) => q.solverId)).not.toContain(solverId);
    const direct = await quotesOn('direct');
    expect(direct.quotes.map((q) => q.solverId)).toContain(solverId);
    await h.rest.request('POST', `/api/v1/admin/deferred/${solverId}/resume`);
    expect((await deferredQuote(solverId)).solverId).toBe(solverId);
    const unknown = await h.rest.request('POST', '/api/v1/admin/deferred/slv_nobody/pause').catch((e: ApiRequestError) => e);
    expect(unknown).toMatchObject({ status: 404, param: 'lp_id' });
  });
});
