/**
 * Deposit gas limits on a real chain: the first transaction of a shape is estimated, the next ones only simulated
 * at the remembered limit, one that needs more gas is estimated again, a revert gets the estimate's refusal, and an
 * outage is not retried as an estimate. The transactions are USDC transfers (a fresh recipient costs a storage
 * slot more than a funded one, so two transfers of one shape need different gas).
 */
import { type Address, type Hex, createPublicClient, custom, encodeFunctionData, erc20Abi, http, type PublicClient } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChainInfo } from '../../contracts/deployment.js';
import { type Sandbox, startSandbox } from '../../sandbox/sandbox.js';
import { ChainUnreachableError } from '../settlement/rpc-transport.js';
import { DepositGasLimits, depositShape } from './deposit-gas.js';

let sandbox: Sandbox;
let chain: ChainInfo;
let sender: Address;

beforeAll(async () => {
  sandbox = await startSandbox({});
  chain = sandbox.manifest.chains[0]!;
  sender = sandbox.manifest.accounts.takers[0]!.address;
}, 60_000);

afterAll(async () => {
  await sandbox?.stop();
});

const usdc = () => chain.tokens.find((t) => t.symbol === 'USDC')!.address;

/**
 * A client of the chain that counts the JSON-RPC methods it sends, and can be told to fail them as an outage; no
 * retries, as the settlement engine's transport.
 */
function countingClient(): { client: PublicClient; calls: string[]; down: { value: boolean } } {
  const calls: string[] = [];
  const down = { value: false };
  const inner = http(chain.rpcUrl)({ retryCount: 0 });
  const client = createPublicClient({
    transport: custom(
      {
        async request({ method, params }) {
          calls.push(method);
          if (down.value) throw new ChainUnreachableError(`${method}: chain down (test)`);
          return inner.request({ method, params } as never);
        },
      },
      { retryCount: 0 },
    ),
  }) as PublicClient;
  return { client, calls, down };
}

const transfer = (to: Address, amount = 1n): { account: Address; to: Address; data: Hex } => ({
  account: sender,
  to: usdc(),
  data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, amount] }),
});
const fresh = () => `0x${[...crypto.getRandomValues(new Uint8Array(20))].map((b) => b.toString(16).padStart(2, '0')).join('')}` as Address;
const funded = () => sandbox.manifest.accounts.takers[1]!.address;

describe('DepositGasLimits', () => {
  it('estimates the first transaction of a shape and only simulates the next ones at its limit', async () => {
    const { client, calls } = countingClient();
    const limits = new DepositGasLimits((estimate) => estimate + 30_000n);
    const shape = depositShape(chain.chainId, usdc(), 'test-same', [usdc()]);
    const first = await limits.limitFor(client, transfer(funded()), shape);
    expect(calls).toEqual(['eth_estimateGas']);
    const direct = await createPublicClient({ transport: http(chain.rpcUrl) }).estimateGas(transfer(funded()));
    expect(first).toBe(direct + 30_000n);

    calls.length = 0;
    expect(await limits.limitFor(client, transfer(fresh()), shape)).toBe(first);
    expect(await limits.limitFor(client, transfer(funded()), shape)).toBe(first);
    expect(calls).toEqual(['eth_call', 'eth_call']);
  });

  it('estimates again when a transaction needs more than its shape’s limit, and the shape keeps the larger limit', async () => {
    const { client, calls } = countingClient();
    // No headroom: a transfer to a fresh recipient (a new balance slot) does not fit a funded recipient's limit.
    const limits = new DepositGasLimits((estimate) => estimate);
    const shape = depositShape(chain.chainId, usdc(), 'test-grow', [usdc()]);
    const small = await limits.limitFor(client, transfer(funded()), shape);
    calls.length = 0;
    const large = await limits.limitFor(client, transfer(fresh()), shape);
    expect(calls).toEqual(['eth_call', 'eth_estimateGas']);
    expect(large).toBeGreaterThan(small + 10_000n);

    calls.length = 0;
    expect(await limits.limitFor(client, transfer(funded()), shape)).toBe(large);
    expect(calls).toEqual(['eth_call']);
  });

  it('a transaction that would revert gets the estimate’s refusal, with the reason', async () => {
    const { client, calls } = countingClient();
    const limits = new DepositGasLimits((estimate) => estimate + 30_000n);
    const shape = depositShape(chain.chainId, usdc(), 'test-revert', [usdc()]);
    await limits.limitFor(client, transfer(funded()), shape);
    calls.length = 0;
    const tooMuch = transfer(funded(), 10n ** 30n);
    const error = await limits.limitFor(client, tooMuch, shape).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'EstimateGasExecutionError' });
    expect(String((error as Error).message)).toMatch(/revert/i);
    expect(calls).toEqual(['eth_call', 'eth_estimateGas']);
  });

  it('an outage during the simulation is not retried as an estimate', async () => {
    const { client, calls, down } = countingClient();
    const limits = new DepositGasLimits((estimate) => estimate + 30_000n);
    const shape = depositShape(chain.chainId, usdc(), 'test-outage', [usdc()]);
    await limits.limitFor(client, transfer(funded()), shape);
    calls.length = 0;
    down.value = true;
    const error = await limits.limitFor(client, transfer(funded()), shape).catch((e: unknown) => e);
    expect(JSON.stringify(error)).toContain('chain down (test)');
    expect(calls).toEqual(['eth_call']);
  });
});
