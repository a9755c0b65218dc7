/**
 * The heap of a long-lived sandbox process, measured so that two measurements compare: the resident set of a Node
 * process moves by a hundred megabytes with the allocator and the collector's timing, the heap still used right
 * after a full collection does not. `up --detach`'s supervisor (service and solvers in one process) answers SIGUSR2:
 * a full GC through its own inspector session (no `--expose-gc` flag, no inspector port opened), then
 * `memory.json` in its state folder. With `heap-snapshot.request` present it also writes a heap snapshot there
 * (`v8.writeHeapSnapshot`), so a leak found by the figures can be traced to what retains it by diffing two of them.
 *
 * Both sides of that exchange live here: the supervisor installs the probe, the soak (or a person with `kill
 * -USR2`) asks and reads.
 */
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join, resolve } from 'node:path';
import { writeHeapSnapshot } from 'node:v8';

export const HEAP_PROBE_SIGNAL = 'SIGUSR2';

export interface HeapReport {
  /** One more per measurement in this process: a reader waits for a number above the one it saw before asking. */
  seq: number;
  pid: number;
  at: string;
  /** V8 heap in use after the full collection: the figure that stays flat unless something is retained. */
  heapUsedBytes: number;
  heapTotalBytes: number;
  externalBytes: number;
  arrayBuffersBytes: number;
  rssBytes: number;
  /** How long the full collection took. */
  gcMs: number;
  /** The heap snapshot written with this measurement, when one was requested. */
  snapshot?: string;
}

export function heapReportPath(stateDir: string): string {
  return join(resolve(stateDir), 'memory.json');
}

/** Present when the next measurement should also write a heap snapshot (removed once written). */
export function heapSnapshotRequestPath(stateDir: string): string {
  return join(resolve(stateDir), 'heap-snapshot.request');
}

/** A full, stop-the-world collection through the inspector protocol (what DevTools' "collect garbage" does). */
async function collectGarbage(): Promise<number> {
  const session = new Session();
  session.connect();
  const began = performance.now();
  try {
    await session.post('HeapProfiler.collectGarbage');
  } finally {
    session.disconnect();
  }
  return performance.now() - began;
}

/** This process's memory right after a full collection. */
export async function measureHeapAfterGc(seq: number): Promise<HeapReport> {
  const gcMs = await collectGarbage();
  const usage = process.memoryUsage();
  return {
    seq,
    pid: process.pid,
    at: new Date().toISOString(),
    heapUsedBytes: usage.heapUsed,
    heapTotalBytes: usage.heapTotal,
    externalBytes: usage.external,
    arrayBuffersBytes: usage.arrayBuffers,
    rssBytes: usage.rss,
    gcMs: Math.round(gcMs * 10) / 10,
  };
}

/**
 * Answers SIGUSR2 with a measurement in `stateDir/memory.json` (written whole, then renamed into place, so a reader
 * never sees half a file). Returns the uninstaller.
 */
export function installHeapProbe(stateDir: string, log: (message: string) => void = () => {}): () => void {
  let seq = 0;
  let busy: Promise<void> = Promise.resolve();
  const measure = async () => {
    seq += 1;
    const report = await measureHeapAfterGc(seq);
    const request = heapSnapshotRequestPath(stateDir);
    if (existsSync(request)) {
      rmSync(request, { force: true });
      report.snapshot = writeHeapSnapshot(join(resolve(stateDir), `heap-${process.pid}-${seq}.heapsnapshot`));
    }
    const path = heapReportPath(stateDir);
    writeFileSync(`${path}.tmp`, `${JSON.stringify(report, null, 2)}\n`);
    renameSync(`${path}.tmp`, path);
    log(
      `heap after full GC: ${(report.heapUsedBytes / 1024 / 1024).toFixed(1)} MB used (GC ${report.gcMs} ms)${report.snapshot ? `, snapshot ${report.snapshot}` : ''}`,
    );
  };
  const onSignal = () => {
    // Requests that arrive while one is measured are answered after it, one by one.
    busy = busy.then(measure).catch((error: unknown) => log(`heap probe failed: ${(error as Error).message}`));
  };
  process.on(HEAP_PROBE_SIGNAL, onSignal);
  return () => {
    process.off(HEAP_PROBE_SIGNAL, onSignal);
  };
}

function readReport(stateDir: string): HeapReport | undefined {
  try {
    return JSON.parse(readFileSync(heapReportPath(stateDir), 'utf8')) as HeapReport;
  } catch {
    return undefined;
  }
}

/**
 * Asks the sandbox process `pid` (whose state folder is `stateDir`) for a measurement and waits for it. With
 * `snapshot`, the measurement also writes a heap snapshot into the state folder.
 */
export async function requestHeapReport(
  pid: number,
  stateDir: string,
  options: { snapshot?: boolean; timeoutMs?: number } = {},
): Promise<HeapReport> {
  const before = readReport(stateDir);
  const seen = before?.pid === pid ? before.seq : 0;
  if (options.snapshot) writeFileSync(heapSnapshotRequestPath(stateDir), '');
  process.kill(pid, HEAP_PROBE_SIGNAL);
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  for (;;) {
    const report = readReport(stateDir);
    if (report !== undefined && report.pid === pid && report.seq > seen) return report;
    if (Date.now() > deadline) throw new Error(`no heap report from pid ${pid} in ${heapReportPath(stateDir)} within the time allowed`);
    await new Promise((resolveWait) => setTimeout(resolveWait, 50));
  }
}
