/**
 * The soak's measurements of a running sandbox from outside it: the memory of each of its processes (read from
 * /proc, the supervisor's process tree), the size of its state folder's store, and the growth of a figure per run.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';

export interface ProcessMemory {
  pid: number;
  /** What the process is: `node supervisor.js`, `anvil`, `node service-worker.js`… */
  name: string;
  rssMb: number;
}

/** The process `pid` and every descendant, with its resident set (Linux /proc; elsewhere empty). */
export function processTree(pid: number): ProcessMemory[] {
  const seen: ProcessMemory[] = [];
  const visit = (current: number) => {
    const memory = processMemory(current);
    if (memory === undefined) return;
    seen.push(memory);
    for (const child of childrenOf(current)) visit(child);
  };
  visit(pid);
  return seen;
}

function childrenOf(pid: number): number[] {
  const tasks = `/proc/${pid}/task`;
  if (!existsSync(tasks)) return [];
  const children: number[] = [];
  for (const task of readdirSync(tasks)) {
    try {
      const text = readFileSync(join(tasks, task, 'children'), 'utf8').trim();
      if (text !== '') children.push(...text.split(/\s+/).map(Number));
    } catch {
      // The thread ended while we looked.
    }
  }
  return children;
}

function processMemory(pid: number): ProcessMemory | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const rssKb = Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0);
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    return { pid, name: processName(argv), rssMb: Math.round((rssKb / 1024) * 10) / 10 };
  } catch {
    return undefined;
  }
}

/**
 * `node …/supervisor.js` → `node supervisor.js`; anvil → `anvil chain <id>` when its chain id is on the command line
 * (one name for a chain across its restarts: the first process has port 0, chosen by anvil with `--chain-ports any`,
 * and the one a restart starts has the port the first got), else `anvil :port`.
 */
export function processName(argv: readonly string[]): string {
  const program = basename(argv[0] ?? '?');
  if (program === 'anvil') {
    const flagValue = (flag: string) => (argv.includes(flag) ? argv[argv.indexOf(flag) + 1] : undefined);
    const port = flagValue('--port');
    const chainId = flagValue('--chain-id');
    if (chainId !== undefined) return `anvil chain ${chainId}`;
    return port !== undefined && port !== '0' ? `anvil :${port}` : 'anvil';
  }
  const script = argv.slice(1).find((arg) => !arg.startsWith('-') && /\.(m?js|ts)$/.test(arg));
  return script === undefined ? program : `${program} ${basename(script)}`;
}

/** Bytes of every file under `dir` whose name starts with `prefix` (the store and its WAL). */
export function filesSize(dir: string, prefix: string): number {
  if (!existsSync(dir)) return 0;
  let total = 0;
  for (const name of readdirSync(dir)) if (name.startsWith(prefix)) total += statSync(join(dir, name)).size;
  return total;
}

/** How often each marker occurs in the logs under `dir` (`*.log`, one level down too). */
export function logCounts(dir: string, markers: readonly string[]): Record<string, number> {
  const counts = Object.fromEntries(markers.map((m) => [m, 0]));
  const files: string[] = [];
  const walk = (folder: string, depth: number) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory() && depth < 1) walk(path, depth + 1);
      else if (entry.isFile() && entry.name.endsWith('.log')) files.push(path);
    }
  };
  if (existsSync(dir)) walk(dir, 0);
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (const marker of markers) counts[marker]! += text.split(marker).length - 1;
  }
  return counts;
}

/**
 * Growth per run of a figure: the least-squares slope over the runs (units per run). One run, or none: 0. The
 * slope, not last minus first, so one slow run in the middle does not read as a trend.
 */
export function growthPerRun(values: readonly number[]): number {
  const n = values.length;
  if (n < 2) return 0;
  const meanX = (n - 1) / 2;
  const meanY = values.reduce((sum, v) => sum + v, 0) / n;
  let num = 0;
  let den = 0;
  values.forEach((v, i) => {
    num += (i - meanX) * (v - meanY);
    den += (i - meanX) ** 2;
  });
  return num / den;
}
