import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPublicClient, erc20Abi, http, type Address } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxManifest } from '../contracts/deployment.js';
import { ensureBuilt } from '../../test/support/devnet/dist.js';
import { anvilsOf, runCli } from '../../test/support/devnet/processes.js';

const dirs: string[] = [];
const stateDir = (name: string) => {
  const dir = mkdtempSync(join(tmpdir(), `sandbox-cli-${name}-`));
  dirs.push(dir);
  return dir;
};

beforeAll(ensureBuilt, 180_000);
afterAll(async () => {
  for (const dir of dirs) {
    await runCli(['down', '--state-dir', dir]);
    rmSync(dir, { recursive: true, force: true });
  }
});

describe('sandbox up --detach, status, down', () => {
  it('runs in the background, reports itself, refuses a second up, keeps state across down and up', async () => {
    const dir = stateDir('life');
    const up = await runCli(['up', '--detach', '--json', '--state-dir', dir, '--chain-ports', 'any']);
    expect(up.code, up.stderr).toBe(0);
    const manifest = JSON.parse(up.stdout) as SandboxManifest;
    expect(manifest).toMatchObject({ environment: 'sandbox', manifestVersion: 1, stateDir: dir });
    expect(manifest.chains.map((c) => [c.name, c.chainId])).toEqual([
      ['alpha', 31337],
      ['beta', 31338],
    ]);
    expect(Object.keys(manifest.chains[0]?.contracts ?? {})).toEqual(
      expect.arrayContaining(['Permit2', 'InputSettlerEscrow', 'OutputSettler', 'InputOracle', 'OutputOracle', 'ResourceLock']),
    );

    const status = await runCli(['status', '--json', '--state-dir', dir]);
    expect(status.code).toBe(0);
    const report = JSON.parse(status.stdout);
    expect(report).toMatchObject({ running: true, healthy: true, pid: manifest.pid, manifestPath: join(dir, 'sandbox.json') });
    expect(report.chains.map((c: { answering: boolean }) => c.answering)).toEqual([true, true]);
    const human = await runCli(['status', '--state-dir', dir]);
    expect(human.stdout).toContain(`Sandbox running (pid ${manifest.pid}`);
    expect(human.stdout).toMatch(/alpha\s+31337\s+http:\/\/127\.0\.0\.1:\d+\s+block \d+/);

    const second = await runCli(['up', '--state-dir', dir, '--chain-ports', 'any']);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`A sandbox is already running on state folder ${dir} (pid ${manifest.pid})`);
    const secondJson = await runCli(['up', '--detach', '--json', '--state-dir', dir]);
    expect(secondJson.code).toBe(1);
    expect(JSON.parse(secondJson.stdout).error.code).toBe('already_running');

    // Spend something, then down and up: the balance is what it was.
    const alpha = manifest.chains[0];
    const usdc = alpha?.tokens[0]?.address as Address;
    const taker = manifest.accounts.takers[4]?.address as Address;
    const { encodeFunctionData } = await import('viem');
    const client = createPublicClient({ transport: http(alpha?.rpcUrl) });
    await client.request({
      method: 'eth_sendTransaction' as never,
      params: [
        {
          from: taker,
          to: usdc,
          gas: '0x30000',
          data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: ['0x000000000000000000000000000000000000dEaD', 777n] }),
        },
      ] as never,
    });
    const balance = () => client.readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [taker] });
    const spent = await balance();

    const down = await runCli(['down', '--json', '--state-dir', dir]);
    expect(down.code).toBe(0);
    expect(JSON.parse(down.stdout)).toMatchObject({ stopped: true, forced: false, pid: manifest.pid });
    expect(anvilsOf(dir)).toEqual([]);
    const stopped = await runCli(['status', '--json', '--state-dir', dir]);
    expect(stopped.code).toBe(1);
    expect(JSON.parse(stopped.stdout)).toMatchObject({ running: false, stale: false });
    expect((await runCli(['down', '--state-dir', dir])).stdout).toContain(`No sandbox is running on ${dir}`);

    const upAgain = await runCli([
      'up',
      '--detach',
      '--json',
      '--state-dir',
      dir,
      '--chain-ports',
      `${new URL(alpha?.rpcUrl ?? '').port},0`,
    ]);
    expect(upAgain.code, upAgain.stderr).toBe(0);
    expect(JSON.parse(upAgain.stdout).chains[0].rpcUrl).toBe(alpha?.rpcUrl);
    expect(await balance()).toBe(spent);
    expect(spent).toBe(1_000_000n * 10n ** 6n - 777n);
    expect((await runCli(['down', '--state-dir', dir])).code).toBe(0);
  });

  it('prints a readable summary with chains, addresses, accounts and keys', async () => {
    const dir = stateDir('human');
    const up = await runCli(['up', '--detach', '--state-dir', dir, '--chain-ports', 'any', '--chains', '3']);
    expect(up.code, up.stderr).toBe(0);
    for (const text of [
      'Sandbox ready in',
      'Chains',
      'gamma  31339',
      'Contracts (same address on every chain)',
      'Permit2              0x000000000022D473030F116dDEE9F6B43aC78BA3',
      'USDC  ',
      'ERC-3009 + Permit2',
      'Permit2 only',
      'deployer         0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266  0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
      'taker 5',
      'Funding on every chain: 10,000 ETH each; takers 1,000,000 USDC + ',
      `Everything above is in ${join(dir, 'sandbox.json')}`,
      'sandbox down',
    ]) {
      expect(up.stdout).toContain(text);
    }
  });
});

describe('sandbox up refuses', () => {
  let server: Server;
  let port: number;
  beforeAll(async () => {
    server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('a port in use, naming it and the flag, for people and for scripts', async () => {
    const dir = stateDir('port');
    const human = await runCli(['up', '--state-dir', dir, '--chain-ports', `0,${port}`]);
    expect(human.code).toBe(1);
    expect(human.stderr).toContain(`error: Port ${port} is already in use (chain beta). Choose other ports with --chain-ports.`);
    const json = await runCli(['up', '--json', '--detach', '--state-dir', dir, '--chain-ports', `${port},0`]);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toEqual({
      error: {
        code: 'port_in_use',
        message: `Port ${port} is already in use (chain alpha). Choose other ports with --chain-ports.`,
        docsPath: 'docs/devnet.md#ports',
      },
    });
    expect(anvilsOf(dir)).toEqual([]);
  });

  it('bad flags with a clear message', async () => {
    const dir = stateDir('flags');
    expect((await runCli(['up', '--state-dir', dir, '--chains', '9'])).stderr).toContain('--chains must be between 1 and 8');
    expect((await runCli(['up', '--state-dir', dir, '--chain-ports', '8545'])).stderr).toContain(
      '--chain-ports lists 1 port(s) for 2 chain(s)',
    );
    expect((await runCli(['up', '--state-dir', dir, '--chain-ports', 'x,y'])).stderr).toContain('"x" is not a port number');
    expect((await runCli(['up', '--state-dir', dir, '--config', join(dir, 'missing.json')])).stderr).toContain('missing.json');
  });
});
