import { type Hex, createPublicClient, erc20Abi, getAddress, http } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { depositTypedData } from '../../contracts/deferred-deposit.js';
import { startSettlementHarness, type SettlementHarness } from '../../../test/support/settlement/harness.js';
import { vaultAbi, vaultAccount } from '../../contracts/deferred-vault.js';

/**
 * The deferred rail's credit against real anvils and the real DeferredVault: deposits from a signed Permit2
 * transfer, withdrawals below and above the approval threshold, and the vault's books equal to the API's figures
 * after every step.
 */
let h: SettlementHarness;
const THRESHOLD = 5_000_000n;

beforeAll(async () => {
  h = await startSettlementHarness({ service: { deferred: { withdrawalApprovalThreshold: THRESHOLD.toString() } } });
}, 60_000);
afterAll(() => h?.stop());

const chain = () => h.manifest.chains[0]!;
const usdc = () => getAddress(chain().tokens.find((t) => t.symbol === 'USDC')!.address);
const vault = () => getAddress(chain().contracts.DeferredVault!);
const reader = () => createPublicClient({ transport: http(chain().rpcUrl) });

async function api(method: string, path: string, body?: unknown, key: string | null = h.apiKey) {
  const response = await fetch(`${h.service.url}${path}`, {
    method,
    headers: { 'Content-Type': 'application/json', ...(key === null ? {} : { Authorization: `Bearer ${key}` }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as any };
}

let nonce = 1_000n;
async function signedDeposit(amount: bigint, options: { signer?: Hex; workspaceId?: string; deadline?: bigint; nonce?: bigint } = {}) {
  const owner = privateKeyToAccount(h.manifest.accounts.takers[0]!.privateKey);
  const signer = options.signer === undefined ? owner : privateKeyToAccount(options.signer);
  const permitNonce = options.nonce ?? nonce++;
  const deadline = options.deadline ?? BigInt(Math.floor(h.clock.now() / 1000) + 3_600);
  const typed = depositTypedData({
    chainId: chain().chainId,
    vault: vault(),
    token: usdc(),
    amount,
    nonce: permitNonce,
    deadline,
    account: vaultAccount(options.workspaceId ?? h.workspaceId),
  });
  const signature = await signer.signTypedData(typed as Parameters<typeof signer.signTypedData>[0]);
  return {
    chainId: chain().chainId,
    token: usdc(),
    amount: amount.toString(),
    owner: owner.address,
    nonce: permitNonce.toString(),
    deadline: deadline.toString(),
    signature,
  };
}

/** The vault's own figures: the workspace's credit, and the balance equation over every account. */
async function onChain(): Promise<{ credit: bigint; balance: bigint; books: bigint }> {
  const client = reader();
  const read = (functionName: 'credit' | 'totalCredit' | 'totalHeld', args: readonly unknown[]) =>
    client.readContract({ address: vault(), abi: vaultAbi, functionName, args } as never) as Promise<bigint>;
  const [credit, totalCredit, totalHeld, balance] = await Promise.all([
    read('credit', [vaultAccount(h.workspaceId), usdc()]),
    read('totalCredit', [usdc()]),
    read('totalHeld', [usdc()]),
    client.readContract({ address: usdc(), abi: erc20Abi, functionName: 'balanceOf', args: [vault()] }),
  ]);
  return { credit, balance, books: totalCredit + totalHeld };
}

async function apiAvailable(): Promise<bigint> {
  const balance = await api('GET', '/api/v1/deferred/balance');
  expect(balance.status).toBe(200);
  const row = balance.body.balances.find((b: { chainId: number; token: string }) => b.chainId === chain().chainId && b.token === usdc());
  return BigInt(row.available);
}

async function expectBooksAgree(expected: bigint): Promise<void> {
  const vaultFigures = await onChain();
  expect(vaultFigures.credit).toBe(expected);
  expect(await apiAvailable()).toBe(expected);
  expect(vaultFigures.balance).toBe(vaultFigures.books);
}

describe('deferred credit', () => {
  it('deposit, small withdrawal, large withdrawal approved, large withdrawal rejected: vault and API agree at every step', async () => {
    const socket = new WebSocket(`${h.service.wsUrl}?token=${encodeURIComponent(h.apiKey)}`);
    const events: Array<{ type: string; credit: { before: { available: string }; after: { available: string }; reason: string } }> = [];
    await new Promise<void>((resolve) => socket.once('open', () => resolve()));
    const subscribed = new Promise<void>((resolve) =>
      socket.on('message', (data) => {
        const message = JSON.parse(data.toString());
        if (message.type === 'subscribe.ok') resolve();
        if (message.type === 'credit.updated') events.push(message);
      }),
    );
    socket.send(JSON.stringify({ type: 'subscribe', topics: ['workspace:*'] }));
    await subscribed;

    await expectBooksAgree(0n);
    const deposit = await api('POST', '/api/v1/deferred/deposit', await signedDeposit(20_000_000n));
    expect(deposit.status).toBe(201);
    expect(deposit.body).toMatchObject({ object: 'deferred_deposit', status: 'credited', amount: '20000000' });
    expect(deposit.body.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    await expectBooksAgree(20_000_000n);

    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const small = await api('POST', '/api/v1/deferred/withdraw', {
      chainId: chain().chainId,
      token: usdc(),
      amount: '3000000',
      to: recipient,
    });
    expect(small.status).toBe(200);
    expect(small.body).toMatchObject({ status: 'paid', approvalId: null, to: recipient });
    await expectBooksAgree(17_000_000n);
    expect(await reader().readContract({ address: usdc(), abi: erc20Abi, functionName: 'balanceOf', args: [recipient] })).toBe(3_000_000n);

    const large = await api('POST', '/api/v1/deferred/withdraw', {
      chainId: chain().chainId,
      token: usdc(),
      amount: '6000000',
      to: recipient,
    });
    expect(large.status).toBe(202);
    expect(large.body).toMatchObject({ status: 'pending_approval' });
    await expectBooksAgree(17_000_000n);
    const queue = await api('GET', '/api/v1/admin/approvals?status=pending');
    expect(queue.body.data).toEqual([expect.objectContaining({ id: large.body.approvalId, kind: 'withdrawal', subjectId: large.body.id })]);
    const approved = await api('POST', `/api/v1/admin/approvals/${large.body.approvalId}/approve`);
    expect(approved.body).toMatchObject({ status: 'approved' });
    expect((await api('POST', `/api/v1/admin/approvals/${large.body.approvalId}/approve`)).body.error).toMatchObject({
      code: 'approval_decided',
      param: 'approvalId',
    });
    await expect.poll(async () => (await api('GET', `/api/v1/deferred/withdrawals/${large.body.id}`)).body.status).toBe('paid');
    await expectBooksAgree(11_000_000n);

    const rejected = await api('POST', '/api/v1/deferred/withdraw', {
      chainId: chain().chainId,
      token: usdc(),
      amount: '7000000',
      to: recipient,
    });
    await api('POST', `/api/v1/admin/approvals/${rejected.body.approvalId}/reject`);
    expect((await api('GET', `/api/v1/deferred/withdrawals/${rejected.body.id}`)).body.status).toBe('rejected');
    await expectBooksAgree(11_000_000n);
    expect((await api('GET', '/api/v1/admin/approvals?status=pending')).body.data).toEqual([]);

    await expect.poll(() => events.length, { timeout: 5_000 }).toBe(3);
    expect(events.map((e) => [e.credit.reason, e.credit.before.available, e.credit.after.available])).toEqual([
      ['deposit', '0', '20000000'],
      ['withdrawal', '20000000', '17000000'],
      ['withdrawal', '17000000', '11000000'],
    ]);
    socket.close();
  });

  it('refusals name their field and send nothing: wrong signer, spent nonce, past deadline, more than the credit', async () => {
    const before = await onChain();
    const wrongSigner = await api('POST', '/api/v1/deferred/deposit', await signedDeposit(1_000_000n, { signer: generatePrivateKey() }));
    expect(wrongSigner.status).toBe(422);
    expect(wrongSigner.body.error).toMatchObject({ code: 'deposit_failed', param: 'signature' });
    // Signed for another workspace's account: the witness binds the account, so it is a wrong signature here.
    const otherAccount = await api('POST', '/api/v1/deferred/deposit', await signedDeposit(1_000_000n, { workspaceId: 'ws_other' }));
    expect(otherAccount.body.error).toMatchObject({ code: 'deposit_failed', param: 'signature' });
    const spent = await signedDeposit(1_000_000n);
    expect((await api('POST', '/api/v1/deferred/deposit', spent)).status).toBe(201);
    const replay = await api('POST', '/api/v1/deferred/deposit', spent);
    expect(replay.body.error).toMatchObject({ code: 'deposit_failed', param: 'nonce' });
    // From a schema-driven fuzz: a mixed-case owner whose EIP-55 checksum is wrong (the document asks for 40 hex
    // digits, not a checksum) was a 500 from the ABI encoder; a 3-byte signature, nonce and deadline 0.
    const short = await api('POST', '/api/v1/deferred/deposit', {
      ...(await signedDeposit(3n)),
      owner: '0x25aDBe719e7EEb7B8Fde34BEB44fB8a1BC9a8DAe',
      signature: '0xEbFB0F',
      deadline: '0',
      nonce: '0',
    });
    expect(short.status).toBe(422);
    expect(short.body.error).toMatchObject({ code: 'deposit_failed', param: 'deadline' });
    const badChecksumTo = await api('POST', '/api/v1/deferred/withdraw', {
      chainId: chain().chainId,
      token: usdc().toLowerCase(),
      amount: '1',
      to: '0x25aDBe719e7EEb7B8Fde34BEB44fB8a1BC9a8DAe',
    });
    expect(badChecksumTo.status).toBe(200);
    expect(badChecksumTo.body.to).toBe(getAddress('0x25adbe719e7eeb7b8fde34beb44fb8a1bc9a8dae'));
    const late = await api('POST', '/api/v1/deferred/deposit', await signedDeposit(1_000_000n, { deadline: 1n }));
    expect(late.body.error).toMatchObject({ code: 'deposit_failed', param: 'deadline' });
    // One deposit of 1,000,000 went through, and the 1-unit withdrawal to the mixed-case address.
    expect((await onChain()).credit).toBe(before.credit + 1_000_000n - 1n);

    const tooMuch = await api('POST', '/api/v1/deferred/withdraw', {
      chainId: chain().chainId,
      token: usdc(),
      amount: (before.credit + 1_000_001n).toString(),
      to: privateKeyToAccount(generatePrivateKey()).address,
    });
    expect(tooMuch.status).toBe(422);
    expect(tooMuch.body.error).toMatchObject({ code: 'insufficient_credit', param: 'amount' });
    const cases: Array<[unknown, string]> = [
      [{ chainId: 1, token: usdc(), amount: '1', to: usdc() }, 'chainId'],
      [{ chainId: chain().chainId, token: getAddress(`0x${'ab'.repeat(20)}`), amount: '1', to: usdc() }, 'token'],
      [{ chainId: chain().chainId, token: usdc(), amount: '0', to: usdc() }, 'amount'],
      [{ chainId: chain().chainId, token: usdc(), amount: '1' }, 'to'],
    ];
    for (const [body, param] of cases) {
      const response = await api('POST', '/api/v1/deferred/withdraw', body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error.param).toBe(param);
    }
    expect((await api('GET', '/api/v1/deferred/balance', undefined, null)).status).toBe(401);
    expect((await api('GET', '/api/v1/deferred/withdrawals/wdr_nope')).status).toBe(404);
    expect((await onChain()).balance).toBe((await onChain()).books);
  });
});
