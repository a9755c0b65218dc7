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
  /** CPU the process has used since it started (user + system), in seconds. */
  cpuS: number;
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
    return { pid, name: processName(argv), rssMb: Math.round((rssKb / 1024) * 10) / 10, cpuS: processCpuSeconds(pid) };
  } catch {
    return undefined;
  }
}

/** Linux's clock ticks per second for /proc times (USER_HZ: 100 on every architecture Node runs on). */
const USER_HZ = 100;

/** utime + stime of /proc/<pid>/stat (fields 14 and 15, counted after the parenthesised command name). */
function processCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state): utime is field 14, stime field 15.
  return (Number(fields[11]) + Number(fields[12])) / USER_HZ;
}

/**
 * CPU seconds each named process used since the previous measurement (`before`); a process new since then (a
 * restarted chain keeps its name) counts from its start. Processes of one name are summed.
 */
export function cpuSince(now: readonly ProcessMemory[], before: readonly ProcessMemory[]): Record<string, number> {
  const previous = new Map(before.map((p) => [p.pid, p]));
  const spent: Record<string, number> = {};
  for (const process of now) {
    const earlier = previous.get(process.pid);
    const used = process.cpuS - (earlier?.name === process.name ? earlier.cpuS : 0);
    spent[process.name] = Math.round(((spent[process.name] ?? 0) + used) * 100) / 100;
  }
  return spent;
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
export function growthPerRun(values: readonly number[], at?: readonly number[]): number {
  const n = values.length;
  if (n < 2) return 0;
  // The runs' positions: 0, 1, 2… unless given (a series with gaps, where a figure could not be read).
  const xs = at ?? values.map((_, i) => i);
  const meanX = xs.reduce((sum, x) => sum + x, 0) / n;
  const meanY = values.reduce((sum, v) => sum + v, 0) / n;
  let num = 0;
  let den = 0;
  values.forEach((v, i) => {
    num += (xs[i]! - meanX) * (v - meanY);
    den += (xs[i]! - meanX) ** 2;
  });
  return den === 0 ? 0 : num / den;
}

/**
 * The `count` names (of scenarios, say) whose figure grows fastest over the runs: least-squares slope per run,
 * rounded to 0.01, fastest first. A name missing from a run counts 0 there.
 */
export function fastestGrowing(runs: readonly Record<string, number>[], count: number): Record<string, number> {
  const names = [...new Set(runs.flatMap((run) => Object.keys(run)))];
  return Object.fromEntries(
    names
      .map((name) => [name, Math.round(growthPerRun(runs.map((run) => run[name] ?? 0)) * 100) / 100] as const)
      .sort((a, b) => b[1] - a[1])
      .slice(0, count),
  );
}
