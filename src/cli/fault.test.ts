import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../../test/support/devnet/dist.js';
import { runCli } from '../../test/support/devnet/processes.js';
import type { FaultSwitchView } from './commands/fault.js';

const dir = mkdtempSync(join(tmpdir(), 'sandbox-fault-'));
const cli = (...args: string[]) => runCli([...args, '--state-dir', dir]);
/** Port of chain 31337 from the running sandbox's sandbox.json. */
const manifestPort = () =>
  new URL(
    (JSON.parse(readFileSync(join(dir, 'sandbox.json'), 'utf8')) as { chains: { chainId: number; rpcUrl: string }[] }).chains.find(
      (chain) => chain.chainId === 31337,
    )!.rpcUrl,
  ).port;

beforeAll(async () => {
  await ensureBuilt();
  const up = await runCli(['up', '--detach', '--solvers', '0', '--state-dir', dir, '--chain-ports', 'any']);
  expect(up.code, up.stderr).toBe(0);
}, 180_000);
afterAll(async () => {
  await runCli(['down', '--state-dir', dir]);
  rmSync(dir, { recursive: true, force: true });
});

describe('sandbox fault / sandbox relay', () => {
  it('sets, lists and clears switches; release reports what was held', async () => {
    const hold = await cli('fault', 'set', 'relay.hold', '--relay', 'attestation', '--count', '2', '--json');
    expect(hold.code, hold.stderr).toBe(0);
    const held = JSON.parse(hold.stdout) as FaultSwitchView;
    expect(held).toMatchObject({ kind: 'relay.hold', relay: 'attestation', remaining: 2, active: true });
    expect(held.id).toMatch(/^flt_/);

    const slow = await cli('fault', 'set', 'service.maintenance', '--route', 'POST /api/v1/quotes', '--for', '10m');
    expect(slow.code, slow.stderr).toBe(0);
    expect(slow.stdout).toMatch(/^Set flt_\w+ {2}service\.maintenance POST \/api\/v1\/quotes {2}fired 0, until \d{4}-/);

    const rpc = await cli(
      'fault',
      'set',
      'chain.rpc-slow',
      '--chain',
      '31338',
      '--method',
      'eth_getLogs',
      '--delay',
      '50ms',
      '--count',
      '1',
    );
    expect(rpc.code, rpc.stderr).toBe(0);
    expect(rpc.stdout).toMatch(/chain\.rpc-slow chain 31338 eth_getLogs 50 ms {2}fired 0, 1 left/);
    await cli('fault', 'clear', rpc.stdout.split(/\s+/)[1]!);

    const list = await cli('fault', 'list', '--json');
    expect((JSON.parse(list.stdout) as { data: FaultSwitchView[] }).data.map((fault) => fault.kind)).toEqual([
      'relay.hold',
      'service.maintenance',
    ]);
    const human = await cli('fault', 'list');
    expect(human.stdout).toContain(`${held.id}  relay.hold attestation  fired 0, 2 left`);

    const release = await cli('relay', 'release');
    expect([release.code, release.stdout.trim()]).toEqual([0, 'Nothing was held.']);

    const one = await cli('fault', 'clear', held.id);
    expect(one.stdout.trim()).toBe('Cleared 1 fault switch.');
    const rest = await cli('fault', 'clear');
    expect(rest.stdout.trim()).toBe('Cleared 1 fault switch.');
    expect((await cli('fault', 'list')).stdout.trim()).toBe('No fault switches set.');
  });

  it('sets the chain faults: chain.reorg with --depth, chain.halt with --chain and --for (and clears them)', async () => {
    const reorg = await cli('fault', 'set', 'chain.reorg', '--depth', '2', '--count', '1', '--json');
    expect(reorg.code, reorg.stderr).toBe(0);
    expect(JSON.parse(reorg.stdout)).toMatchObject({ kind: 'chain.reorg', depth: 2, remaining: 1, active: true });
    const halt = await cli('fault', 'set', 'chain.halt', '--chain', '31338', '--for', '5m', '--json');
    expect(halt.code, halt.stderr).toBe(0);
    expect(JSON.parse(halt.stdout)).toMatchObject({ kind: 'chain.halt', chainId: 31338, fired: 1, active: true });
    const tooDeep = await cli('fault', 'set', 'chain.reorg', '--depth', '17');
    expect(tooDeep.code).toBe(1);
    expect(tooDeep.stderr).toMatch(/depth/);
    const cleared = await cli('fault', 'clear');
    expect(cleared.stdout.trim()).toBe('Cleared 2 fault switches.');
    // The sandbox's own node of chain 31337 is killed and comes back from its saved state: same port, same height.
    const rpc = (method: string) =>
      fetch('http://127.0.0.1:' + manifestPort(), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] }),
      }).then(async (r) => Number(((await r.json()) as { result: string }).result));
    const height = await rpc('eth_blockNumber');
    const restart = await cli('fault', 'set', 'chain.restart', '--chain', '31337', '--down', '300ms', '--json');
    expect(restart.code, restart.stderr).toBe(0);
    expect(JSON.parse(restart.stdout)).toMatchObject({ kind: 'chain.restart', chainId: 31337, fired: 1, active: false });
    expect(await rpc('eth_blockNumber')).toBeGreaterThanOrEqual(height);
    expect((await cli('status')).code).toBe(0);
    await cli('fault', 'clear');
  });

  it('names what is wrong with a switch, with exit code 1', async () => {
    const missing = await cli('fault', 'set', 'relay.hold');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('400 parameter_missing: Missing required parameter `relay`.');
    const count = await cli('fault', 'set', 'oracle.withhold', '--count', 'many');
    expect(count.code).toBe(1);
    expect(count.stderr).toContain('400 parameter_invalid');
    const chain = await cli('fault', 'set', 'chain.rpc-drop', '--chain', 'alpha');
    expect(chain.code).toBe(1);
    expect(chain.stderr).toContain('400 parameter_invalid');
    const unknown = await cli('fault', 'clear', 'flt_unknown');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('404');
  });
});
