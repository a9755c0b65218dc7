import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Address, createPublicClient, http } from 'viem';
import { generatePrivateKey } from 'viem/accounts';
import { ApiRequestError, type LockType, type Quote, type SettlementPath } from '../../clients/rest-client.js';
import type { AuctionModule } from '../auction/module.js';
import { startSettlementHarness, type SettlementHarness } from '../../../test/support/settlement/harness.js';
import { type ReferenceSolvers, startReferenceSolvers } from '../../solvers/index.js';
import { TestTaker } from '../../../test/support/settlement/taker.js';
import { waitForStatus } from '../../../test/support/settlement/wait.js';
import { buildStandardOrder, typedDataFor } from '../../contracts/standard-order.js';
import { typedDataToJson } from '../../contracts/typed-data.js';

/**
 * Every way a signed order can be wrong is refused with its error and its `param`, and nothing reaches a chain:
 * no block is mined on either chain and the relayer sends nothing.
 */
let h: SettlementHarness;
let solvers: ReferenceSolvers;
let takerA: TestTaker;
let takerB: TestTaker;

beforeAll(async () => {
  h = await startSettlementHarness();
  solvers = await startReferenceSolvers({
    manifest: { ...h.manifest, api: { url: h.service.url, wsUrl: h.service.wsUrl, workspaceId: h.workspaceId, apiKeys: [h.apiKey] } },
    count: 1,
  });
  takerA = new TestTaker(h.manifest.accounts.takers[0]!.privateKey, h.rest, h.manifest.chains);
  takerB = new TestTaker(h.manifest.accounts.takers[1]!.privateKey, h.rest, h.manifest.chains);
}, 60_000);

afterAll(async () => {
  await solvers?.stop();
  await h?.stop();
});

function usdc() {
  const [alpha, beta] = h.manifest.chains;
  return {
    originChainId: alpha!.chainId,
    destinationChainId: beta!.chainId,
    inputToken: alpha!.tokens.find((t) => t.symbol === 'USDC')!.address as Address,
    outputToken: beta!.tokens.find((t) => t.symbol === 'USDC')!.address as Address,
  };
}

async function quoteFor(taker: TestTaker, lockType: LockType = 'Permit2Escrow', settlementPath: SettlementPath = 'direct'): Promise<Quote> {
  const response = await taker.quote({ ...usdc(), inputAmount: '15000000000', lockType, settlementPath });
  return response.quotes[0]!;
}

/** The typed data of `quoteId` for `user` with a nonce of the test's choosing (what a client would build itself). */
function typedDataWithNonce(quoteId: string, user: Address, nonce: bigint): unknown {
  const quote = h.service.module<AuctionModule>('auction').quoteBook.get(quoteId)!;
  const chain = (id: number) => h.manifest.chains.find((c) => c.chainId === id)!;
  const terms = {
    originChain: chain(quote.originChainId),
    destinationChain: chain(quote.destinationChainId),
    inputToken: quote.inputToken,
    outputToken: quote.outputToken,
    inputAmount: BigInt(quote.inputAmount),
    outputAmount: BigInt(quote.outputAmount),
    lockType: quote.lockType,
    fillDeadline: quote.fillDeadline,
    expires: quote.expires,
    exclusive: quote.exclusive,
  };
  return typedDataToJson(typedDataFor(terms, buildStandardOrder(terms, user, nonce)));
}

/** Blocks of both chains and the relayer's nonces: all unchanged means nothing was sent. */
async function chainSnapshot(): Promise<string> {
  const parts = await Promise.all(
    h.manifest.chains.map(async (chain) => {
      const client = createPublicClient({ transport: http(chain.rpcUrl) });
      const [block, service, oracle] = await Promise.all([
        client.getBlockNumber(),
        client.getTransactionCount({ address: h.manifest.accounts.serviceRelayer[0]!.address, blockTag: 'pending' }),
        client.getTransactionCount({ address: h.manifest.accounts.oracleRelayer[0]!.address, blockTag: 'pending' }),
      ]);
      return `${chain.name}:${block}:${service}:${oracle}`;
    }),
  );
  return parts.join(' ');
}

async function expectRefusal(
  request: () => Promise<unknown>,
  expected: { status: number; code: string; param: string },
): Promise<ApiRequestError> {
  const before = await chainSnapshot();
  const error = await request().then(
    () => {
      throw new Error(`accepted; expected ${expected.code}`);
    },
    (e: unknown) => e as ApiRequestError,
  );
  expect(error).toBeInstanceOf(ApiRequestError);
  expect({ status: error.status, code: error.code, param: error.param }).toEqual(expected);
  expect(error.type).toBeDefined();
  expect(error.docUrl).toContain(`#${expected.code}`);
  expect(await chainSnapshot()).toBe(before);
  return error;
}

describe('order intake refusals (nothing on chain)', () => {
  it('a replayed nonce: a new quote signed with a nonce the user already spent', async () => {
    const first = await quoteFor(takerA);
    const created = await h.rest.createOrder({
      quoteId: first.quoteId,
      signature: await takerA.sign(first.typedData),
      nonce: first.nonce!,
      user: takerA.address,
    });
    expect(created.status).toBe('Deposited');
    // Let its settlement finish: the refusal below must be the only thing that could touch a chain.
    await waitForStatus(h.rest, created.orderId, 'Claimed');
    const second = await quoteFor(takerA);
    const replay = await takerA.sign(typedDataWithNonce(second.quoteId, takerA.address, BigInt(first.nonce!)));
    const error = await expectRefusal(
      async () => h.rest.createOrder({ quoteId: second.quoteId, signature: replay, nonce: first.nonce!, user: takerA.address }),
      {
        status: 409,
        code: 'nonce_already_used',
        param: 'nonce',
      },
    );
    expect(error.message).toContain(created.orderId);
    // A nonce below the last one is a replay too.
    const lower = await takerA.sign(typedDataWithNonce(second.quoteId, takerA.address, BigInt(first.nonce!) - 1n));
    await expectRefusal(
      async () => h.rest.createOrder({ quoteId: second.quoteId, signature: lower, nonce: Number(first.nonce) - 1, user: takerA.address }),
      {
        status: 409,
        code: 'nonce_already_used',
        param: 'nonce',
      },
    );
  });

  it('a replayed signature: resubmitted as is, or presented for another quote', async () => {
    const quote = await quoteFor(takerA);
    const signature = await takerA.sign(quote.typedData);
    const body = { quoteId: quote.quoteId, signature, nonce: quote.nonce!, user: takerA.address };
    await waitForStatus(h.rest, (await h.rest.createOrder(body)).orderId, 'Claimed');
    await expectRefusal(async () => h.rest.createOrder(body), { status: 409, code: 'quote_already_accepted', param: 'quoteId' });
    // Presented for another quote (other terms), the signature covers nothing the service would relay.
    const other = (await takerA.quote({ ...usdc(), inputAmount: '15000000001', lockType: 'Permit2Escrow', settlementPath: 'direct' }))
      .quotes[0]!;
    await expectRefusal(async () => h.rest.createOrder({ ...body, quoteId: other.quoteId }), {
      status: 422,
      code: 'signature_invalid',
      param: 'signature',
    });
  });

  it.each<[LockType, (message: Record<string, any>) => void]>([
    ['Permit2Escrow', (m) => (m.witness.outputs[0].amount = (BigInt(m.witness.outputs[0].amount) + 1n).toString())],
    ['EIP3009Escrow', (m) => (m.value = (BigInt(m.value) - 1n).toString())],
    ['ResourceLock', (m) => (m.mandate.outputs[0].recipient = `0x${'11'.repeat(32)}`)],
  ])('tampered typed data (%s): the signature covers other terms than the quote', async (lockType, tamper) => {
    const quote = await quoteFor(takerB, lockType);
    const typed = structuredClone(quote.typedData) as { message: Record<string, any> };
    tamper(typed.message);
    const signature = await takerB.sign(typed);
    const error = await expectRefusal(
      async () => h.rest.createOrder({ quoteId: quote.quoteId, signature, nonce: quote.nonce!, user: takerB.address }),
      {
        status: 422,
        code: 'signature_invalid',
        param: 'signature',
      },
    );
    expect(error.message).toContain('recovers to');
  });

  it('a wrong signer: another key signs the taker’s order', async () => {
    const quote = await quoteFor(takerA);
    const signature = await takerB.sign(quote.typedData);
    const error = await expectRefusal(
      async () => h.rest.createOrder({ quoteId: quote.quoteId, signature, nonce: quote.nonce!, user: takerA.address }),
      {
        status: 422,
        code: 'signature_invalid',
        param: 'signature',
      },
    );
    expect(error.message).toContain(takerB.address);
    // The quote is still open: the right signature goes through.
    const created = await h.rest.createOrder({
      quoteId: quote.quoteId,
      signature: await takerA.sign(quote.typedData),
      nonce: quote.nonce!,
      user: takerA.address,
    });
    expect(created.status).toBe('Deposited');
    await waitForStatus(h.rest, created.orderId, 'Claimed');
  });

  it('an expired quote: rfq_expired once the quote window has passed by the clock', async () => {
    const quote = await quoteFor(takerB);
    const signature = await takerB.sign(quote.typedData);
    await h.clock.advanceTo(Date.parse(quote.expiresAt));
    await expectRefusal(async () => h.rest.createOrder({ quoteId: quote.quoteId, signature, nonce: quote.nonce!, user: takerB.address }), {
      status: 409,
      code: 'rfq_expired',
      param: 'quoteId',
    });
  });

  it('the compliant path without a fresh attestation: attestation_expired on the header', async () => {
    const quote = await quoteFor(takerB, 'Permit2Escrow', 'compliant');
    const body = { quoteId: quote.quoteId, signature: await takerB.sign(quote.typedData), nonce: quote.nonce!, user: takerB.address };
    await expectRefusal(async () => h.rest.createOrder(body), { status: 403, code: 'attestation_expired', param: 'X-Service-Attestation' });
    const forA = await h.rest.request<{ attestation: { hash: string } }>('GET', `/api/v1/compliance/status?address=${takerA.address}`);
    await expectRefusal(async () => h.rest.createOrder(body, { attestation: forA.attestation.hash }), {
      status: 403,
      code: 'attestation_expired',
      param: 'X-Service-Attestation',
    });
    const forB = await h.rest.request<{ attestation: { hash: string } }>('GET', `/api/v1/compliance/status?address=${takerB.address}`);
    const created = await h.rest.createOrder(body, { attestation: forB.attestation.hash });
    expect(created.settlementPath).toBe('compliant');
    await waitForStatus(h.rest, created.orderId, 'Claimed');
  });

  it('the compliant path refuses a taker registered as a counterparty that failed screening (403, nothing sent)', async () => {
    const stranger = new TestTaker(generatePrivateKey(), h.rest, h.manifest.chains);
    // Fresh attestation first: the refusal must come from the counterparty's screening, not from a missing one.
    const before = await h.rest.request<{ attestation: { hash: string } }>('GET', `/api/v1/compliance/status?address=${stranger.address}`);
    const registered = await h.rest.request<{ screening: { status: string; reason: string } }>('POST', '/api/v1/counterparties', {
      name: 'Sanctioned Trading Co',
      jurisdiction: 'kp',
      addresses: [stranger.address],
    });
    expect(registered.screening).toMatchObject({ status: 'failed', reason: 'jurisdiction KP is sanctioned' });
    const quote = await quoteFor(stranger, 'Permit2Escrow', 'compliant');
    const body = { quoteId: quote.quoteId, signature: await stranger.sign(quote.typedData), nonce: quote.nonce!, user: stranger.address };
    const error = await expectRefusal(async () => h.rest.createOrder(body, { attestation: before.attestation.hash }), {
      status: 403,
      code: 'compliance_rejected',
      param: 'user',
    });
    expect(error.message).toMatch(/registered counterparty cpty_\w+ failed screening: jurisdiction KP is sanctioned/);
    // And no new attestation is issued to it.
    const after = await h.rest.request<{ status: string; attestation: unknown }>(
      'GET',
      `/api/v1/compliance/status?address=${stranger.address}`,
    );
    expect(after).toMatchObject({ status: 'rejected', kyc: 'rejected', attestation: null });
  });

  it('a deposit that would revert, an empty resource lock, a missing user, an unknown quote', async () => {
    const stranger = new TestTaker(generatePrivateKey(), h.rest, h.manifest.chains);
    const quote = await quoteFor(stranger);
    const error = await expectRefusal(
      async () =>
        h.rest.createOrder({
          quoteId: quote.quoteId,
          signature: await stranger.sign(quote.typedData),
          nonce: quote.nonce!,
          user: stranger.address,
        }),
      { status: 422, code: 'deposit_failed', param: 'user' },
    );
    expect(error.message).toMatch(/Insufficient|ERC20|SafeERC20|TRANSFER/i);
    const lock = await quoteFor(stranger, 'ResourceLock');
    await expectRefusal(
      async () =>
        h.rest.createOrder({
          quoteId: lock.quoteId,
          signature: await stranger.sign(lock.typedData),
          nonce: lock.nonce!,
          user: stranger.address,
        }),
      { status: 422, code: 'insufficient_lock_balance', param: 'user' },
    );
    const open = await quoteFor(takerA);
    // A quote requested without `user` does not know the taker: the order must name it.
    const anonymous = (
      await h.rest.requestQuotes({ ...usdc(), inputAmount: '15000000000', lockType: 'Permit2Escrow', settlementPath: 'direct' })
    ).quotes[0]!;
    const service = (body: unknown) =>
      fetch(`${h.service.url}/api/v1/orders`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      }).then(async (r) => ({
        status: r.status,
        error: ((await r.json()) as { error: { code: string; param: string } }).error,
      }));
    expect(await service({ quoteId: anonymous.quoteId, signature: `0x${'1'.repeat(130)}`, nonce: 1 })).toEqual({
      status: 400,
      error: expect.objectContaining({ code: 'parameter_missing', param: 'user' }),
    });
    // A quote requested with `user` names it: the order need not, and may not name another.
    expect(await service({ quoteId: open.quoteId, signature: `0x${'1'.repeat(130)}`, nonce: 1, user: takerB.address })).toEqual({
      status: 400,
      error: expect.objectContaining({ code: 'parameter_invalid', param: 'user' }),
    });
    expect(await service({ quoteId: 'qt_nope', signature: `0x${'1'.repeat(130)}`, nonce: 1, user: takerA.address })).toEqual({
      status: 404,
      error: expect.objectContaining({ code: 'resource_not_found', param: 'quoteId' }),
    });
    expect(await service({ quoteId: open.quoteId, signature: '0x12', nonce: 1, user: takerA.address })).toEqual({
      status: 400,
      error: expect.objectContaining({ code: 'parameter_invalid', param: 'signature' }),
    });
    expect(await service({ quoteId: open.quoteId, signature: `0x${'1'.repeat(130)}`, nonce: -1, user: takerA.address })).toEqual({
      status: 400,
      error: expect.objectContaining({ code: 'parameter_invalid', param: 'nonce' }),
    });
  });
});
