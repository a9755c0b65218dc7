import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { filesSize, growthPerRun, logCounts, processName, processTree } from './figures.js';

const folder = mkdtempSync(join(tmpdir(), 'soak-figures-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('soak figures', () => {
  it('growth per run is the least-squares slope: flat is 0, a steady climb is its step, one slow run is not a trend', () => {
    expect(growthPerRun([])).toBe(0);
    expect(growthPerRun([42])).toBe(0);
    expect(growthPerRun([100, 100, 100, 100])).toBe(0);
    expect(growthPerRun([10, 20, 30, 40])).toBeCloseTo(10);
    // One outlier in the middle of a flat series moves the slope little, unlike last minus first.
    expect(Math.abs(growthPerRun([26, 26, 90, 26, 26]))).toBeLessThan(1);
  });

  it('names a process by its program and script (anvil by its port)', () => {
    expect(processName(['/usr/bin/node', '--enable-source-maps', '/x/dist/src/sandbox/supervisor.js', '{}'])).toBe('node supervisor.js');
    expect(processName(['/root/.foundry/bin/anvil', '--host', '127.0.0.1', '--port', '8545'])).toBe('anvil :8545');
    expect(processName(['/x/anvil', '--port', '0', '--chain-id', '31337'])).toBe('anvil chain 31337');
    // Restarted, it has the port the first process got: still the same chain.
    expect(processName(['/x/anvil', '--port', '33981', '--chain-id', '31337'])).toBe('anvil chain 31337');
    expect(processName(['/usr/bin/postgres'])).toBe('postgres');
  });

  it.runIf(process.platform === 'linux')('reads the memory of a process and its children from /proc', async () => {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 10_000)'], { stdio: 'ignore' });
    try {
      await new Promise((resolve) => child.once('spawn', resolve));
      const tree = processTree(process.pid);
      expect(tree[0]!.pid).toBe(process.pid);
      expect(tree[0]!.rssMb).toBeGreaterThan(10);
      expect(tree.map((p) => p.pid)).toContain(child.pid);
    } finally {
      child.kill();
    }
  });

  it('sums the store files and counts log markers', () => {
    writeFileSync(join(folder, 'service.sqlite'), Buffer.alloc(4096));
    writeFileSync(join(folder, 'service.sqlite-wal'), Buffer.alloc(1000));
    writeFileSync(join(folder, 'other.db'), Buffer.alloc(50));
    expect(filesSize(folder, 'service.sqlite')).toBe(5096);
    writeFileSync(join(folder, 'sandbox.log'), '{"msg":"fault fired"}\n{"msg":"fault fired"}\n{"msg":"unhandled error"}\n');
    expect(logCounts(folder, ['fault fired', 'unhandled error', 'nothing'])).toEqual({
      'fault fired': 2,
      'unhandled error': 1,
      nothing: 0,
    });
  });
});
