import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cpuSince, fastestGrowing, filesSize, growthPerRun, logCounts, processName, processTree } from './figures.js';

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
    // A series with a gap (a figure not read after run 2): the slope over the runs that have one.
    expect(growthPerRun([10, 20, 50], [0, 1, 4])).toBeCloseTo(10);
  });

  it('names a process by its program and script (anvil by its port)', () => {
    expect(processName(['/usr/bin/node', '--enable-source-maps', '/x/dist/src/sandbox/supervisor.js', '{}'])).toBe('node supervisor.js');
    expect(processName(['/root/.foundry/bin/anvil', '--host', '127.0.0.1', '--port', '8545'])).toBe('anvil :8545');
    expect(processName(['/x/anvil', '--port', '0', '--chain-id', '31337'])).toBe('anvil chain 31337');
    // Restarted, it has the port the first process got: still the same chain.
    expect(processName(['/x/anvil', '--port', '33981', '--chain-id', '31337'])).toBe('anvil chain 31337');
    expect(processName(['/usr/bin/postgres'])).toBe('postgres');
  });

  it.runIf(process.platform === 'linux')('reads the memory and CPU of a process and its children from /proc', async () => {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 10_000)'], { stdio: 'ignore' });
    try {
      await new Promise((resolve) => child.once('spawn', resolve));
      const tree = processTree(process.pid);
      expect(tree[0]!.pid).toBe(process.pid);
      expect(tree[0]!.rssMb).toBeGreaterThan(10);
      expect(tree.map((p) => p.pid)).toContain(child.pid);
      // This test process has used CPU since it started; /proc's count agrees with Node's own within a tick or two.
      const own = process.cpuUsage();
      const fromNode = (own.user + own.system) / 1e6;
      expect(tree[0]!.cpuS).toBeGreaterThan(0);
      expect(Math.abs(tree[0]!.cpuS - fromNode)).toBeLessThan(fromNode * 0.5 + 0.05);
    } finally {
      child.kill();
    }
  });

  it('CPU per run: the difference per process since the previous measurement; a new process counts from its start', () => {
    const before = [
      { pid: 10, name: 'node supervisor.js', rssMb: 100, cpuS: 50 },
      { pid: 11, name: 'anvil chain 31337', rssMb: 60, cpuS: 20 },
    ];
    const now = [
      { pid: 10, name: 'node supervisor.js', rssMb: 100, cpuS: 62.5 },
      // The chain restarted: a new pid under the same name.
      { pid: 12, name: 'anvil chain 31337', rssMb: 40, cpuS: 3 },
    ];
    expect(cpuSince(now, before)).toEqual({ 'node supervisor.js': 12.5, 'anvil chain 31337': 3 });
    expect(cpuSince(now, [])).toEqual({ 'node supervisor.js': 62.5, 'anvil chain 31337': 3 });
  });

  it('names the figures that grow fastest per run, fastest first', () => {
    const runs = [
      { steady: 500, climbing: 100, slow: 50 },
      { steady: 520, climbing: 200, slow: 60 },
      { steady: 480, climbing: 300, slow: 70 },
    ];
    expect(fastestGrowing(runs, 2)).toEqual({ climbing: 100, slow: 10 });
    expect(Object.keys(fastestGrowing(runs, 10))).toEqual(['climbing', 'slow', 'steady']);
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
