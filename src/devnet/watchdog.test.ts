import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxManifest } from '../contracts/deployment.js';
import { startDevnet } from './devnet.js';
import { ensureBuilt } from '../../test/support/devnet/dist.js';
import { anvilsOf, processesMatching, runCli, startCli, waitFor } from '../../test/support/devnet/processes.js';

/**
 * No anvil outlives its sandbox: not after SIGKILL of the foreground `sandbox up`, not after SIGKILL of the
 * detached supervisor, and a chain that dies on its own ends the sandbox instead of leaving half of it.
 */
const dirs: string[] = [];
const stateDir = (name: string) => {
  const dir = mkdtempSync(join(tmpdir(), `sandbox-${name}-`));
  dirs.push(dir);
  return dir;
};

beforeAll(ensureBuilt, 180_000);
afterAll(async () => {
  // Also after a failed assertion: stop whatever still runs on our folders before removing them.
  for (const dir of dirs) {
    await runCli(['down', '--state-dir', dir]);
    rmSync(dir, { recursive: true, force: true });
  }
});

describe.runIf(process.platform === 'linux')('chain processes die with their owner', () => {
  it('SIGKILL of a foreground `sandbox up` leaves no anvil, no cache folder, and a folder the next up takes over', async () => {
    const dir = stateDir('kill-fg');
    const { child, json } = await startCli(['up', '--json', '--state-dir', dir, '--chain-ports', 'any']);
    const manifest = json as SandboxManifest;
    expect(manifest.pid).toBe(child.pid);
    expect(anvilsOf(dir)).toHaveLength(2);
    expect(processesMatching('sandbox-anvil').length).toBeGreaterThanOrEqual(2);

    child.kill('SIGKILL');
    await waitFor(() => anvilsOf(dir).length === 0, 5_000, 'the anvils to exit');
    await waitFor(() => !existsSync(join(dir, 'chains', 'alpha', 'cache')), 2_000, 'the cache folders to go');
    // The wrappers are gone too.
    await waitFor(() => processesMatching(`${dir}/chains/`).length === 0, 2_000, 'the watchdog wrappers to exit');

    const status = await runCli(['status', '--json', '--state-dir', dir]);
    expect(status.code).toBe(1);
    expect(JSON.parse(status.stdout)).toMatchObject({ running: false, stale: true });
    const again = await runCli(['up', '--detach', '--json', '--state-dir', dir, '--chain-ports', 'any']);
    expect(again.code, again.stderr).toBe(0);
    expect((await runCli(['down', '--json', '--state-dir', dir])).code).toBe(0);
  });

  it('SIGKILL of the detached supervisor leaves no anvil', async () => {
    const dir = stateDir('kill-bg');
    const up = await runCli(['up', '--detach', '--json', '--state-dir', dir, '--chain-ports', 'any']);
    expect(up.code, up.stderr).toBe(0);
    const manifest = JSON.parse(up.stdout) as SandboxManifest;
    expect(anvilsOf(dir)).toHaveLength(2);
    process.kill(manifest.pid as number, 'SIGKILL');
    await waitFor(() => anvilsOf(dir).length === 0, 5_000, 'the anvils to exit');
    expect(JSON.parse((await runCli(['status', '--json', '--state-dir', dir])).stdout).running).toBe(false);
  });

  it('Ctrl-C (SIGINT) in the foreground saves chain state and stops everything', async () => {
    const dir = stateDir('sigint');
    const { child } = await startCli(['up', '--json', '--state-dir', dir, '--chain-ports', 'any']);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(anvilsOf(dir)).toEqual([]);
    expect(existsSync(join(dir, 'chains', 'alpha', 'state.json'))).toBe(true);
    expect(existsSync(join(dir, 'chains', 'beta', 'meta.json'))).toBe(true);
    expect(existsSync(join(dir, 'sandbox.lock'))).toBe(false);
  });

  it('a chain that dies on its own ends the sandbox, which still stops cleanly', async () => {
    const sandbox = await startDevnet();
    const [alpha] = sandbox.chains;
    process.kill(alpha?.pid as number, 'SIGKILL');
    // The watchdog passes anvil's status on: 128 + SIGKILL.
    expect(await sandbox.exited).toEqual({ reason: 'chain-exited', chain: 'alpha', code: 137 });
    await sandbox.stop();
    expect(anvilsOf(sandbox.stateDir)).toEqual([]);
  });
});

describe.runIf(process.platform === 'linux')('a foreground sandbox whose parent dies', () => {
  it('stops itself and its chains when the process that started it is killed', async () => {
    const dir = stateDir('orphan');
    const { spawn } = await import('node:child_process');
    const { CLI } = await import('../../test/support/devnet/dist.js');
    // A shell starts `sandbox up` and is then killed: the sandbox is re-parented and must notice.
    const shell = spawn(
      '/bin/sh',
      ['-c', `"${process.execPath}" "${CLI}" up --json --state-dir "${dir}" --chain-ports any > /dev/null & wait`],
      {
        stdio: 'ignore',
      },
    );
    await waitFor(() => anvilsOf(dir).length === 2, 10_000, 'the chains to start');
    const [sandboxPid] = processesMatching(`up --json --state-dir ${dir}`).filter((pid) => pid !== shell.pid);
    expect(sandboxPid).toBeDefined();
    shell.kill('SIGKILL');
    await waitFor(() => processesMatching(`up --json --state-dir ${dir}`).length === 0, 5_000, 'the orphaned sandbox to stop');
    expect(anvilsOf(dir)).toEqual([]);
    // It stopped cleanly: chain state saved, lock released.
    expect(existsSync(join(dir, 'chains', 'alpha', 'state.json'))).toBe(true);
    expect(existsSync(join(dir, 'sandbox.lock'))).toBe(false);
  });
});
