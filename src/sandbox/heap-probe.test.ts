import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { heapSnapshotRequestPath, installHeapProbe, measureHeapAfterGc, requestHeapReport } from './heap-probe.js';

const folder = mkdtempSync(join(tmpdir(), 'heap-probe-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('heap probe', () => {
  it('measures after a full collection: garbage made just before is not counted', async () => {
    let garbage: Array<{ i: number; text: string }> | undefined = Array.from({ length: 300_000 }, (_, i) => ({ i, text: `item ${i}` }));
    const withGarbage = process.memoryUsage().heapUsed;
    expect(garbage.length).toBe(300_000);
    garbage = undefined;
    const report = await measureHeapAfterGc(1);
    // 300k small objects are well over 10 MB of heap; after the collection they are gone.
    expect(withGarbage - report.heapUsedBytes).toBeGreaterThan(10 * 1024 * 1024);
    expect(report.pid).toBe(process.pid);
  });

  it.runIf(process.platform !== 'win32')('answers SIGUSR2 with memory.json, and a heap snapshot when one is requested', async () => {
    const lines: string[] = [];
    const uninstall = installHeapProbe(folder, (line) => lines.push(line));
    try {
      const first = await requestHeapReport(process.pid, folder);
      expect(first.seq).toBe(1);
      expect(first.heapUsedBytes).toBeGreaterThan(0);
      expect(first.snapshot).toBeUndefined();

      const second = await requestHeapReport(process.pid, folder, { snapshot: true });
      expect(second.seq).toBe(2);
      expect(second.snapshot).toBeDefined();
      expect(statSync(second.snapshot!).size).toBeGreaterThan(1024 * 1024);
      expect(existsSync(heapSnapshotRequestPath(folder))).toBe(false);
      expect(lines.some((line) => line.startsWith('heap after full GC:'))).toBe(true);
    } finally {
      uninstall();
    }
  });
});
