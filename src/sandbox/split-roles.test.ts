import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveAnvilBinary } from '../devnet/anvil-binary.js';
import { createRpcClient, type RpcClient } from '../devnet/rpc.js';
import { type LocalPostgres, startScratchPostgres } from '../service/store/postgres/local-server.js';
import { runSandbox } from './run.js';
import type { Sandbox } from './sandbox.js';

/**
 * The roles of a sandbox split over hosts, on one host with real parts: bare anvils nobody deployed on, a real
 * Postgres, two service replicas attaching at the same moment (`sandbox serve`), and the chains-only role keeping its
 * state across a restart (`sandbox chains`).
 */

let dir: string;
let postgres: LocalPostgres;
const anvils: ChildProcess[] = [];
const started: Sandbox[] = [];

async function bareAnvil(chainId: number): Promise<string> {
  const child = spawn(resolveAnvilBinary().path, ['--port', '0', '--chain-id', String(chainId), '--hardfork', 'cancun'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  anvils.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /Listening on [\d.]+:(\d+)/.exec(out);
      if (match) resolve(`http://127.0.0.1:${match[1]}`);
    });
    child.once('exit', () => reject(new Error(`anvil exited: ${out}`)));
  });
}

async function erc20Balance(rpc: RpcClient, token: string, holder: string): Promise<bigint> {
  return BigInt(await rpc.call<string>('eth_call', [{ to: token, data: `0x70a08231${holder.slice(2).padStart(64, '0')}` }, 'latest']));
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'split-roles-'));
  postgres = await startScratchPostgres({ prefix: 'split-roles-' });
}, 60_000);

afterAll(async () => {
  for (const sandbox of started.reverse()) await sandbox.stop().catch(() => undefined);
  for (const anvil of anvils) anvil.kill('SIGKILL');
  await postgres?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('a sandbox split into roles', () => {
  it('two replicas attach to bare chains at once: contracts deployed once, funds once, one key, the clock moves both chains', async () => {
    const urls = await Promise.all([bareAnvil(31337), bareAnvil(31338)]);
    const attach = [
      { name: 'alpha', chainId: 31337, rpcUrl: urls[0] as string },
      { name: 'beta', chainId: 31338, rpcUrl: urls[1] as string },
    ];
    const accessFile = join(dir, 'shared', 'access.json');
    const replicas = await Promise.all(
      [1, 2].map((n) =>
        runSandbox(
          {
            stateDir: join(dir, `replica-${n}`),
            chains: [],
            fresh: false,
            attach,
            role: 'service',
            databaseUrl: postgres.url,
            database: 'postgres',
            accessFile,
          },
          () => undefined,
        ),
      ),
    );
    started.push(...replicas);
    const [one, two] = replicas as [Sandbox, Sandbox];
    // One workspace and key, whichever replica answers.
    expect(two.manifest.api?.apiKeys).toEqual(one.manifest.api?.apiKeys);
    expect(two.manifest.api?.workspaceId).toBe(one.manifest.api?.workspaceId);

    const { accounts, chains } = one.manifest;
    const taker = accounts.takers[0]!.address;
    for (const chain of chains) {
      const rpc = createRpcClient(chain.rpcUrl);
      try {
        for (const address of [...Object.values(chain.contracts), ...chain.tokens.map((t) => t.address)])
          expect(await rpc.call('eth_getCode', [address, 'latest']), `${chain.name} ${address}`).not.toBe('0x');
        // Funded once: the taker holds exactly its grant, not twice.
        expect(await erc20Balance(rpc, chain.tokens[0]!.address, taker)).toBe(1_000_000n * 10n ** 6n);
      } finally {
        rpc.close();
      }
    }

    // A third attach finds everything in place and sends nothing.
    const nonceBefore = await Promise.all(chains.map((c) => nonceOf(c.rpcUrl, accounts.deployer[0]!.address)));
    const third = await runSandbox(
      {
        stateDir: join(dir, 'replica-3'),
        chains: [],
        fresh: false,
        attach,
        role: 'service',
        databaseUrl: postgres.url,
        database: 'postgres',
        accessFile,
      },
      () => undefined,
    );
    await third.stop();
    expect(await Promise.all(chains.map((c) => nonceOf(c.rpcUrl, accounts.deployer[0]!.address)))).toEqual(nonceBefore);

    // The clock, advanced through either replica, moves every chain (through their RPC, from the lease holder).
    const before = await Promise.all(chains.map((c) => headTime(c.rpcUrl)));
    const response = await fetch(`${two.manifest.api!.url}/api/v1/sandbox/clock/advance`, {
      method: 'POST',
      headers: { authorization: `Bearer ${two.manifest.api!.apiKeys[0]}`, 'content-type': 'application/json' },
      body: JSON.stringify({ duration: '2h' }),
    });
    expect(response.status, await response.clone().text()).toBe(200);
    const after = await Promise.all(chains.map((c) => headTime(c.rpcUrl)));
    for (const [i, time] of after.entries()) expect(time - (before[i] as number)).toBeGreaterThanOrEqual(7_200);
  }, 120_000);

  it('refuses a chain that answers with another id', async () => {
    const url = await bareAnvil(31399);
    await expect(
      runSandbox(
        {
          stateDir: join(dir, 'wrong-id'),
          chains: [],
          fresh: false,
          attach: [{ name: 'alpha', chainId: 31337, rpcUrl: url }],
          role: 'service',
        },
        () => undefined,
      ),
    ).rejects.toThrow(/chain id 31399 instead of 31337/);
  }, 60_000);

  it('the chains-only role keeps its chains across a restart', async () => {
    const stateDir = join(dir, 'chains-role');
    const options = { stateDir, chains: [{ name: 'alpha', chainId: 31337, port: 0 }], fresh: false, role: 'chains' as const };
    const first = await runSandbox(options, () => undefined);
    expect(first.manifest.api).toBeUndefined();
    await first.advanceTime(3_600);
    const rpc = createRpcClient(first.chains[0]!.rpcUrl);
    await rpc.call('evm_mine', []);
    const height = Number(await rpc.call<string>('eth_blockNumber'));
    rpc.close();
    await first.stop();
    const second = await runSandbox(options, () => undefined);
    started.push(second);
    const again = createRpcClient(second.chains[0]!.rpcUrl);
    try {
      expect(Number(await again.call<string>('eth_blockNumber'))).toBeGreaterThanOrEqual(height);
      expect((await second.chainTime())[0]!.offsetSeconds).toBeGreaterThanOrEqual(3_600);
    } finally {
      again.close();
    }
  }, 60_000);
});

async function nonceOf(url: string, address: string): Promise<number> {
  const rpc = createRpcClient(url);
  try {
    return Number(await rpc.call<string>('eth_getTransactionCount', [address, 'latest']));
  } finally {
    rpc.close();
  }
}

async function headTime(url: string): Promise<number> {
  const rpc = createRpcClient(url);
  try {
    return Number((await rpc.call<{ timestamp: string }>('eth_getBlockByNumber', ['latest', false])).timestamp);
  } finally {
    rpc.close();
  }
}
