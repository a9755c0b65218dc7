/** Quote detail: the StandardOrder and the exact EIP-712 payload per lock type, signed with viem and recovered. */
import { getAddress, type hashTypedData, recoverTypedDataAddress, zeroAddress } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { standardOrderFromWire } from '../../contracts/standard-order-wire.js';
import { type LockType, orderIdentifier, tokenId } from '../../contracts/order.js';
import { typedDataFromJson } from '../../contracts/typed-data.js';
import { buildStandardOrder, inputSettlerFor } from '../../contracts/standard-order.js';
import {
  auctionChains,
  outputBelow,
  startAuctionService,
  TOKENS,
  usdcRequest,
  type AuctionTestService,
} from '../../../test/support/auction.js';

const taker = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
const stranger = privateKeyToAccount('0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a');

let t: AuctionTestService;
beforeAll(async () => {
  t = await startAuctionService({ auction: { windowMs: 2_000 } });
  await t.solver('a', (rfq) => ({ outputAmount: outputBelow(rfq, 3) }));
  await t.solver('b', (rfq) => ({ outputAmount: outputBelow(rfq, 4) }));
});
afterAll(async () => {
  await t.stop();
});

async function quote(overrides: Record<string, unknown> = {}) {
  const response = await t.request('POST', '/api/v1/quotes', { body: usdcRequest(overrides) });
  expect(response.status, response.text).toBe(200);
  return response.body;
}

describe('quote detail', () => {
  it.each<LockType>(['Permit2Escrow', 'EIP3009Escrow', 'ResourceLock'])(
    '%s: typedData signed by viem recovers to the user, and the order matches the builder',
    async (lockType) => {
      const body = await quote({ lockType });
      const quoteId = body.quotes[0].quoteId;
      const detail = await t.client.getQuote(quoteId, { user: taker.address.toLowerCase() });
      expect(detail).toMatchObject({
        quoteId,
        rfqId: body.rfqId,
        status: 'open',
        lockType,
        user: taker.address,
        nonce: expect.stringMatching(/^\d+$/),
      });
      const typed = typedDataFromJson(detail.typedData);
      const signature = await taker.signTypedData(typed as Parameters<typeof taker.signTypedData>[0]);
      expect(await recoverTypedDataAddress({ ...(typed as Parameters<typeof hashTypedData>[0]), signature })).toBe(taker.address);
      // Someone else's signature does not recover to the user.
      const forged = await stranger.signTypedData(typed as Parameters<typeof stranger.signTypedData>[0]);
      expect(await recoverTypedDataAddress({ ...(typed as Parameters<typeof hashTypedData>[0]), signature: forged })).not.toBe(
        taker.address,
      );

      const [alpha, beta] = auctionChains();
      const order = standardOrderFromWire(detail.standardOrder);
      const expected = buildStandardOrder(
        {
          originChain: alpha!,
          destinationChain: beta!,
          inputToken: TOKENS.USDC,
          outputToken: TOKENS.USDC,
          inputAmount: BigInt(detail.inputAmount),
          outputAmount: BigInt(detail.outputAmount),
          lockType,
          fillDeadline: body.fillDeadline,
          expires: body.expires,
        },
        taker.address,
        BigInt(detail.nonce!),
      );
      expect(order).toEqual(expected);
      expect(detail.onchainOrderId).toBe(orderIdentifier(order, inputSettlerFor(alpha!, lockType)));
      expect(detail.standardOrder.inputOracle).toBe(getAddress(alpha!.contracts.InputOracle!));
      expect(detail.standardOrder.outputs[0]).toMatchObject({
        chainId: 31_338,
        token: TOKENS.USDC,
        recipient: taker.address,
        amount: detail.outputAmount,
      });
      if (lockType === 'ResourceLock') expect(detail.standardOrder.inputs[0]![0]).toMatch(/^0x[0-9a-f]{64}$/);
      else expect(detail.standardOrder.inputs[0]![0]).toBe(getAddress(TOKENS.USDC));
      if (lockType === 'EIP3009Escrow') {
        expect(typed.primaryType).toBe('ReceiveWithAuthorization');
        expect(typed.message.nonce).toBe(detail.onchainOrderId);
        expect(typed.domain).toMatchObject({ name: 'USD Coin (sandbox)', version: '2', verifyingContract: getAddress(TOKENS.USDC) });
      }
      if (lockType === 'Permit2Escrow') {
        expect(typed.message).toMatchObject({ nonce: BigInt(detail.nonce!), deadline: BigInt(body.fillDeadline) });
        expect(tokenId(TOKENS.USDC)).toBe(order.inputs[0]![0]);
      }
    },
  );

  it('the POST response carries the same order and payload when it names the user', async () => {
    const body = await quote({ user: taker.address, lockType: 'ResourceLock' });
    expect(body.quotes).toHaveLength(2);
    const nonces = body.quotes.map((q: { nonce: string }) => q.nonce);
    // One nonce per (RFQ, user): the sibling quotes share it, so at most one of them can become an order.
    expect(new Set(nonces).size).toBe(1);
    for (const item of body.quotes) {
      const detail = await t.client.getQuote(item.quoteId);
      expect(detail.user).toBe(taker.address);
      expect(detail.nonce).toBe(item.nonce);
      expect(detail.standardOrder).toEqual(item.standardOrder);
      expect(detail.typedData).toEqual(item.typedData);
      // The orders module reads the taker from the quote book: an order needs no `user` of its own.
      expect(t.auction.quoteBook.get(item.quoteId)?.user).toBe(taker.address);
    }
  });

  it('resource-lock nonces are unique across takers (one allocator namespace); escrow nonces are per taker', async () => {
    const first = privateKeyToAccount('0x1111111111111111111111111111111111111111111111111111111111111111').address;
    const second = privateKeyToAccount('0x2222222222222222222222222222222222222222222222222222222222222222').address;
    const lockNonces = [
      (await quote({ user: first, lockType: 'ResourceLock' })).quotes[0].nonce,
      (await quote({ user: second, lockType: 'ResourceLock' })).quotes[0].nonce,
    ];
    expect(new Set(lockNonces).size).toBe(2);
    const third = privateKeyToAccount('0x3333333333333333333333333333333333333333333333333333333333333333').address;
    const fourth = privateKeyToAccount('0x4444444444444444444444444444444444444444444444444444444444444444').address;
    const escrowNonces = [
      (await quote({ user: third, lockType: 'Permit2Escrow' })).quotes[0].nonce,
      (await quote({ user: fourth, lockType: 'Permit2Escrow' })).quotes[0].nonce,
    ];
    expect(escrowNonces).toEqual(['1', '1']);
  });

  it('without a user: a template with the zero address and nonce 0, and no payload to sign', async () => {
    const body = await quote();
    const detail = await t.client.getQuote(body.quotes[0].quoteId);
    expect(detail).toMatchObject({ user: null, nonce: null, onchainOrderId: null, typedData: null });
    expect(detail.standardOrder).toMatchObject({
      user: zeroAddress,
      nonce: '0',
      fillDeadline: body.fillDeadline,
      expires: body.expires,
      originChainId: 31_337,
    });
  });

  it('nonces: one above the last handed out or used, stable per (RFQ, user), fresh per RFQ', async () => {
    const user = getAddress('0x00000000000000000000000000000000000a11ce');
    const first = await quote({ user });
    const n1 = BigInt(first.quotes[0].nonce);
    const again = await t.client.getQuote(first.quotes[1].quoteId, { user });
    expect(BigInt(again.nonce!)).toBe(n1);
    const second = await quote({ user });
    expect(BigInt(second.quotes[0].nonce)).toBe(n1 + 1n);
    // A detail request for an older RFQ hands out the next nonce for that RFQ.
    const third = await quote();
    const detail = await t.client.getQuote(third.quotes[0].quoteId, { user });
    expect(BigInt(detail.nonce!)).toBe(n1 + 2n);
    // The orders module reports a higher used nonce: the next one continues above it.
    t.auction.useNonceSource({ highestUsedNonce: (who) => (who === user ? 41n : undefined) });
    const fourth = await quote({ user });
    expect(fourth.quotes[0].nonce).toBe('42');
    t.auction.useNonceSource({ highestUsedNonce: () => undefined });
  });

  it('an expired quote hands out no new nonce; unknown ids are 404, bad ids and users 400', async () => {
    const body = await quote();
    await t.clock.advance(30_000);
    const detail = await t.client.getQuote(body.quotes[0].quoteId, { user: taker.address });
    expect(detail).toMatchObject({ status: 'expired', nonce: null, typedData: null });
    for (const [path, status, code, param] of [
      ['/api/v1/quotes/qt_unknown', 404, 'resource_not_found', 'quoteId'],
      ['/api/v1/quotes/ord_123', 400, 'parameter_invalid', 'quoteId'],
      [`/api/v1/quotes/${body.quotes[0].quoteId}?user=0x12`, 400, 'parameter_invalid', 'user'],
      [`/api/v1/quotes/${body.quotes[0].quoteId}?nonce=1`, 400, 'parameter_unknown', 'nonce'],
    ] as const) {
      const response = await t.request('GET', path, { key: null });
      expect(response.status, path).toBe(status);
      expect(response.body.error, path).toMatchObject({ code, param });
    }
    // rfq_ ids on this path are Reference B's RFQ view, whose errors are Format B.
    expect((await t.request('GET', '/api/v1/quotes/rfq_unknown', { key: null })).body).toEqual({
      error: { code: 'NOT_FOUND', message: 'No RFQ rfq_unknown.' },
    });
  });
});
