/**
 * An outside check of "dashboard sign-in uses Sign-In with Ethereum (EIP-4361)" (docs/service-platform.md): a
 * wallet client built on the reference SIWE library (`siwe`, Spruce) and ethers v6 parses the service's challenge,
 * checks it the way a wallet would before signing (domain, URI, chain, nonce, expiry), signs it, and verifies its own
 * signature with the library; the service accepts it. A message the library rebuilds with a changed field is refused.
 */
import { Wallet } from 'ethers';
import { SiweMessage } from 'siwe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatAError, startTestService, type TestService } from '../support/service/service.js';

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t.stop());

async function challenge(address: string, chainId?: number) {
  const response = await t.request('POST', '/api/v1/auth/challenge', {
    key: null,
    body: { address, ...(chainId === undefined ? {} : { chainId }) },
  });
  expect(response.status).toBe(200);
  return response.body as { message: string; nonce: string; expiresAt: string };
}

describe('Sign-In with Ethereum through the `siwe` library and ethers', () => {
  it('the challenge is a valid EIP-4361 message for this service; signed with ethers it opens a session', async () => {
    const wallet = Wallet.createRandom();
    const issued = await challenge(wallet.address);
    const message = new SiweMessage(issued.message);
    const origin = new URL(t.url);
    expect(message.domain).toBe(origin.host);
    expect(new URL(message.uri).origin).toBe(origin.origin);
    expect(message.address).toBe(wallet.address);
    expect(message.version).toBe('1');
    expect(message.nonce).toBe(issued.nonce);
    expect(Date.parse(message.expirationTime!)).toBe(Date.parse(issued.expiresAt));
    // The library renders exactly the text the service asked to be signed.
    expect(message.prepareMessage()).toBe(issued.message);

    const signature = await wallet.signMessage(issued.message);
    // The wallet side checks its own signature the EIP-4361 way (at the service's clock: tests run in 2030).
    const checked = await message.verify({ signature, domain: origin.host, nonce: issued.nonce, time: message.issuedAt });
    expect(checked.success).toBe(true);

    const verified = await t.request('POST', '/api/v1/auth/verify', { key: null, body: { message: issued.message, signature } });
    expect(verified.status).toBe(200);
    expect(verified.body.user.address).toBe(wallet.address);
    const me = await t.request('GET', '/api/v1/auth/me', { key: verified.body.token });
    expect(me.status).toBe(200);
  });

  it('names the requested chain; a message rebuilt by the library with another chain or nonce is refused', async () => {
    const wallet = Wallet.createRandom();
    const issued = await challenge(wallet.address, 8453);
    const message = new SiweMessage(issued.message);
    expect(message.chainId).toBe(8453);

    for (const change of [{ chainId: 1 }, { nonce: `${issued.nonce.slice(0, -1)}x` }]) {
      const altered = new SiweMessage({ ...message, ...change }).prepareMessage();
      const signature = await wallet.signMessage(altered);
      const refused = await t.request('POST', '/api/v1/auth/verify', { key: null, body: { message: altered, signature } });
      expect(refused.status).toBe(401);
      expect(formatAError(refused).code).toBe('challenge_invalid');
    }
  });
});
