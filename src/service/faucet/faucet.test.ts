import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, erc20Abi, http } from 'viem';
import { startSandbox, type Sandbox } from '../../sandbox/sandbox.js';
import { settlementServiceComponent } from '../../sandbox/service-component.js';

let sandbox: Sandbox;
let url: string;
let key: string;
const stranger = '0x000000000000000000000000000000000000dEaD';

beforeAll(async () => {
  sandbox = await startSandbox({ chains: 2, components: [settlementServiceComponent()] });
  url = sandbox.manifest.api!.url;
  key = sandbox.manifest.api!.apiKeys[0]!;
}, 120_000);
afterAll(() => sandbox?.stop());

async function faucet(body: unknown, auth = `Bearer ${key}`) {
  const response = await fetch(`${url}/api/v1/sandbox/faucet`, {
    method: 'POST',
    headers: { Authorization: auth, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

describe('sandbox faucet', () => {
  it('mints the requested token on the requested chain and tops up gas', async () => {
    const chain = sandbox.manifest.chains[1]!;
    const usdt = chain.tokens.find((t) => t.symbol === 'USDT')!;
    const client = createPublicClient({ transport: http(chain.rpcUrl) });
    const before = await client.readContract({ address: usdt.address, abi: erc20Abi, functionName: 'balanceOf', args: [stranger] });
    const answer = await faucet({ address: stranger, chain: chain.name, token: 'usdt', amount: '2500' });
    expect(answer.status).toBe(200);
    expect(answer.body.grants).toEqual([expect.objectContaining({ chain: chain.name, token: 'USDT', amount: '2500000000' })]);
    const after = await client.readContract({ address: usdt.address, abi: erc20Abi, functionName: 'balanceOf', args: [stranger] });
    expect(after - before).toBe(2_500_000_000n);
    expect(await client.getBalance({ address: stranger })).toBeGreaterThanOrEqual(100n * 10n ** 18n);
  });

  it('funds every chain and token by default', async () => {
    const answer = await faucet({ address: stranger });
    expect(answer.status).toBe(200);
    expect(answer.body.grants).toHaveLength(4);
  });

  it('refuses bad input with the offending param and needs a key', async () => {
    expect((await faucet({ address: '0x1234' })).body.error.param).toBe('address');
    expect((await faucet({ address: stranger, chain: 'mars' })).body.error).toMatchObject({ param: 'chain', type: 'invalid_request' });
    expect((await faucet({ address: stranger, token: 'DAI' })).body.error.param).toBe('token');
    expect((await faucet({ address: stranger, amount: '99999999' })).body.error.param).toBe('amount');
    expect((await faucet({ address: stranger, amount: '1.5' })).status).toBe(400);
    expect((await faucet({ address: stranger }, 'Bearer svc_test_nope_00')).status).toBe(401);
  });

  it('an address with a broken EIP-55 checksum is a 400 naming it, not a 503 from the chain (found by the fuzz campaign)', async () => {
    const typo = stranger.replace('dEaD', 'DEaD');
    const answer = await faucet({ address: typo, chain: 'alpha', token: 'USDC', amount: '1' });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ type: 'invalid_request', code: 'parameter_invalid', param: 'address' });
    for (const address of [stranger.toLowerCase(), `0x${stranger.slice(2).toUpperCase()}`]) {
      const granted = await faucet({ address, chain: 'alpha', token: 'USDC', amount: '1' });
      expect(granted.status).toBe(200);
      expect(granted.body.address).toBe(address);
    }
  });

  it('the document states the request exactly: chains and tokens of this sandbox, 1 to 10,000,000 tokens, not the zero address', async () => {
    type Field = { pattern: string; not?: unknown };
    const document = (await (await fetch(`${url}/api/v1/openapi.json`)).json()) as {
      components: { schemas: { FaucetRequest: { properties: { address: Field; token: Field; amount: Field } } } };
    };
    const request = document.components.schemas.FaucetRequest;
    expect(request.properties.address.not).toEqual({ pattern: '^0x0{40}$' });
    const address = new RegExp(request.properties.address.pattern);
    expect(address.test(`0x${'ab'.repeat(20)}`)).toBe(true);
    expect(address.test(`0x${'aB'.repeat(20)}`)).toBe(false);
    const token = new RegExp(request.properties.token.pattern);
    expect(['USDC', 'usdt'].every((symbol) => token.test(symbol))).toBe(true);
    expect(token.test('DAI')).toBe(false);
    const amount = new RegExp(request.properties.amount.pattern);
    expect(['1', '10000000'].every((n) => amount.test(n))).toBe(true);
    expect(['0', '10000001', '99999999'].some((n) => amount.test(n))).toBe(false);
  });

  it('the zero address is a 400 naming address (the token would revert), and no chain is touched (found by an OpenAPI fuzzer)', async () => {
    for (const address of [
      '0x0000000000000000000000000000000000000000',
      '0x0000000000000000000000000000000000000000'.toUpperCase().replace('0X', '0x'),
    ]) {
      const answer = await faucet({ address, chain: 'alpha', token: 'USDC', amount: '1' });
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatchObject({ type: 'invalid_request', code: 'parameter_invalid', param: 'address' });
    }
  });
});
