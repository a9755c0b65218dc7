/**
 * The soak: one long-lived sandbox (`sandbox up --detach` in a temporary state folder), the whole scenario catalogue
 * run against it again and again (`sandbox scenario run --target …`), a conformance run every few runs, and after
 * every run what a sandbox that lives for weeks must keep flat: pass/fail, wall time, memory of each of its
 * processes, store size, ledger length and `ledger verify` time, the reference solvers' balances, the fault firings
 * and unhandled errors in its logs. The growth per run of each figure is the report's verdict on "flat".
 *
 * It drives the `sandbox` command as a user does (the package's `bin`, so `npm run build` first): the sandbox, each
 * catalogue run and each conformance run are processes of their own, exactly as CI runs them.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Address, createPublicClient, erc20Abi, http } from 'viem';
import type { SandboxManifest } from '../src/contracts/deployment.js';
import { requestHeapReport } from '../src/sandbox/heap-probe.js';
import { ledgerStorePath, verifyLedgerFile } from '../src/sandbox/ledger-file.js';
import { cpuSince, fastestGrowing, filesSize, growthPerRun, logCounts, type ProcessMemory, processTree } from './soak/figures.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

export interface SoakOptions {
  runs: number;
  /** A conformance run after every this many catalogue runs (and none when 0). */
  conformanceEvery: number;
  /** Scenario seed (names and amounts; participant keys are fresh per run whatever the seed). */
  seed: number;
  /** Keep the state folder (logs, store, heap snapshots) afterwards. */
  keep?: boolean;
  /** After these catalogue runs the supervisor also writes a heap snapshot into the state folder (with `keep`). */
  heapSnapshotRuns?: readonly number[];
  log?: (line: string) => void;
  /** After every run, the runs so far (the CLI writes them out, so a soak stopped early keeps its figures). */
  onRun?: (runs: readonly SoakRun[]) => void;
}

export interface SoakRun {
  run: number;
  kind: 'catalogue' | 'conformance';
  passed: number;
  failed: number;
  skipped: number;
  /** Failed scenario or check names (at most 20). */
  failures: string[];
  /** Conformance verdict (PASSED / FAILED / INCOMPLETE). */
  verdict?: string;
  wallMs: number;
  /** Each scenario's own time in a catalogue run (the report's durations), to find which grow when the run does. */
  scenarioMs?: Record<string, number>;
  processes: ProcessMemory[];
  /** CPU seconds each of the sandbox's processes used during this run (since the previous measurement). */
  cpuS: Record<string, number>;
  totalRssMb: number;
  /**
   * The supervisor's (service and solvers) V8 heap in use right after a full GC, which it runs on request
   * (src/sandbox/heap-probe.ts). RSS swings by ±100 MB with the allocator; this is the figure that shows a leak.
   */
  supervisorHeapMb: number | null;
  /** Why the heap could not be read after this run (the soak goes on; the figure is left out of the growth). */
  heapError?: string;
  /** The heap snapshot written after this run, when one was asked for. */
  heapSnapshot?: string;
  storeBytes: number;
  ledgerEntries: number;
  ledgerOk: boolean;
  ledgerVerifyMs: number;
  /** Solver label → `chain:symbol` → whole tokens. */
  solverBalances: Record<string, Record<string, number>>;
  /** Lines in the sandbox's logs so far: `unhandled error` (real failures) and `fault fired` (deliberate ones). */
  unhandledErrors: number;
  faultFirings: number;
  /** Solver log lines so far: rebalances, and reports of not being able to deliver. */
  rebalances: number;
  solverShortfalls: number;
}

export interface SoakReport {
  startedAt: string;
  runs: SoakRun[];
  catalogueRuns: number;
  conformanceRuns: number;
  failedRuns: number;
  /** Least-squares slope per catalogue run of each figure. */
  growthPerRun: {
    wallMs: number;
    totalRssMb: number;
    storeBytes: number;
    ledgerEntries: number;
    ledgerVerifyMs: number;
    supervisorHeapMb: number;
    perProcessRssMb: Record<string, number>;
    perProcessCpuS: Record<string, number>;
    /** The ten scenarios whose time grows fastest (ms per run), fastest first. */
    scenarioMs: Record<string, number>;
  };
  ledgerVerifiesAtEnd: boolean;
  stateDir?: string;
  wallMs: number;
}

/** The `sandbox` command of this package (its `bin`): compiled, as users run it. */
function sandboxCommand(): string {
  const bin = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { bin: Record<string, string> }).bin.sandbox;
  if (bin === undefined) throw new Error('package.json names no `sandbox` bin');
  const path = resolve(root, bin);
  if (!existsSync(path)) throw new Error(`${path} is missing: the soak runs the built \`sandbox\` command, run \`npm run build\` first`);
  return path;
}

interface Exited {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `sandbox …` to its end; output kept (stderr's tail for failures). */
function sandbox(args: readonly string[], running: Set<ChildProcess>): Promise<Exited> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [sandboxCommand(), ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    running.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-20_000);
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      running.delete(child);
      resolvePromise({ code, stdout, stderr });
    });
  });
}

async function solverBalances(manifest: SandboxManifest): Promise<SoakRun['solverBalances']> {
  const balances: SoakRun['solverBalances'] = {};
  for (const chain of manifest.chains) {
    const client = createPublicClient({ transport: http(chain.rpcUrl) });
    for (const [index, account] of manifest.accounts.solvers.slice(0, 3).entries()) {
      const label = `solver-${index + 1}`;
      balances[label] ??= {};
      for (const token of chain.tokens) {
        const units = await client.readContract({
          address: token.address,
          abi: erc20Abi,
          functionName: 'balanceOf',
          args: [account.address as Address],
        });
        balances[label][`${chain.name}:${token.symbol}`] = Number(units / 10n ** BigInt(token.decimals));
      }
    }
  }
  return balances;
}

/** The figures of the sandbox right after a run. */
async function measure(
  stateDir: string,
  manifest: SandboxManifest,
  before: readonly ProcessMemory[],
  heapSnapshot = false,
): Promise<Omit<SoakRun, 'run' | 'kind' | 'passed' | 'failed' | 'skipped' | 'failures' | 'wallMs'>> {
  const processes = manifest.pid === undefined ? [] : processTree(manifest.pid);
  // After the resident sets (the collection it runs would lower the supervisor's).
  // A supervisor that does not answer in time (a collection on a loaded machine) costs this run its heap figure,
  // not the soak: an hour of runs is not thrown away for one reading.
  let heap: Awaited<ReturnType<typeof requestHeapReport>> | undefined;
  let heapError: string | undefined;
  if (manifest.pid !== undefined) {
    try {
      heap = await requestHeapReport(manifest.pid, stateDir, { snapshot: heapSnapshot });
    } catch (error) {
      heapError = (error as Error).message;
    }
  }
  const store = ledgerStorePath(stateDir);
  const began = performance.now();
  const verified = await verifyLedgerFile(store);
  const ledgerVerifyMs = Math.round(performance.now() - began);
  const counts = logCounts(stateDir, ['unhandled error', 'fault fired', ': rebalanced ', ': short on chain ']);
  return {
    processes,
    cpuS: cpuSince(processes, before),
    totalRssMb: Math.round(processes.reduce((sum, p) => sum + p.rssMb, 0) * 10) / 10,
    supervisorHeapMb: heap === undefined ? null : Math.round((heap.heapUsedBytes / 1024 / 1024) * 10) / 10,
    ...(heapError === undefined ? {} : { heapError }),
    ...(heap?.snapshot === undefined ? {} : { heapSnapshot: heap.snapshot }),
    storeBytes: filesSize(dirname(store), 'service.sqlite'),
    ledgerEntries: verified.entries,
    ledgerOk: verified.ok,
    ledgerVerifyMs,
    solverBalances: await solverBalances(manifest),
    unhandledErrors: counts['unhandled error']!,
    faultFirings: counts['fault fired']!,
    rebalances: counts[': rebalanced ']!,
    solverShortfalls: counts[': short on chain ']!,
  };
}

function readJson<T>(path: string): T | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const log = options.log ?? (() => {});
  const began = performance.now();
  const startedAt = new Date().toISOString();
  const stateDir = mkdtempSync(join(tmpdir(), 'sandbox-soak-'));
  const manifestPath = join(stateDir, 'sandbox.json');
  const running = new Set<ChildProcess>();
  const runs: SoakRun[] = [];
  // Interrupted: the catalogue run in flight tears down what it set (its own SIGTERM handler), then the sandbox stops.
  const interrupted = () => {
    for (const child of running) child.kill('SIGTERM');
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  let stopped = false;
  try {
    log(`soak: starting a detached sandbox in ${stateDir}`);
    // Ports of its own: the soak runs for an hour or two beside a developer's `sandbox up` or a CI job.
    const up = await sandbox(['up', '--detach', '--state-dir', stateDir, '--chain-ports', 'any', '--port', '0'], running);
    if (up.code !== 0) throw new Error(`sandbox up --detach failed (${up.code}):\n${up.stderr.slice(-4_000)}`);
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as SandboxManifest;
    let catalogue = 0;
    for (let run = 1; run <= options.runs; run++) {
      const report = join(stateDir, `catalogue-${run}.json`);
      const t0 = performance.now();
      const exited = await sandbox(
        ['scenario', 'run', '--target', manifestPath, '--seed', String(options.seed), '--report', `json=${report}`],
        running,
      );
      const wallMs = Math.round(performance.now() - t0);
      const result = readJson<{
        summary: { passed: number; failed: number; skipped: number };
        scenarios: { name: string; status: string; durationMs: number }[];
      }>(report);
      if (result === undefined)
        throw new Error(`catalogue run ${run} wrote no report (exit ${exited.code}):\n${exited.stderr.slice(-4_000)}`);
      catalogue += 1;
      const figures = await measure(stateDir, manifest, runs.at(-1)?.processes ?? [], options.heapSnapshotRuns?.includes(run) ?? false);
      const entry: SoakRun = {
        run,
        kind: 'catalogue',
        ...result.summary,
        failures: result.scenarios
          .filter((s) => s.status === 'failed')
          .map((s) => s.name)
          .slice(0, 20),
        wallMs,
        scenarioMs: Object.fromEntries(result.scenarios.map((s) => [s.name, Math.round(s.durationMs)])),
        ...figures,
      };
      runs.push(entry);
      log(describe(entry));
      if (options.conformanceEvery > 0 && catalogue % options.conformanceEvery === 0)
        runs.push(await conformanceRun(run, stateDir, manifest, manifestPath, runs.at(-1)?.processes ?? [], running, log));
      options.onRun?.(runs);
    }
    const last = runs.at(-1);
    if (options.conformanceEvery > 0 && last !== undefined && last.kind === 'catalogue' && catalogue < options.conformanceEvery)
      runs.push(await conformanceRun(catalogue, stateDir, manifest, manifestPath, runs.at(-1)?.processes ?? [], running, log));
    const down = await sandbox(['down', '--state-dir', stateDir], running);
    stopped = down.code === 0;
    // The ledger once more, with nothing writing: the end state a weeks-old sandbox leaves.
    const final = await verifyLedgerFile(ledgerStorePath(stateDir));
    const catalogueRuns = runs.filter((r) => r.kind === 'catalogue');
    const series = (pick: (r: SoakRun) => number) => round(growthPerRun(catalogueRuns.map(pick)));
    const names = [...new Set(catalogueRuns.flatMap((r) => r.processes.map((p) => p.name)))];
    return {
      startedAt,
      runs,
      catalogueRuns: catalogueRuns.length,
      conformanceRuns: runs.length - catalogueRuns.length,
      failedRuns: runs.filter((r) => r.failed > 0 || r.verdict === 'FAILED').length,
      growthPerRun: {
        wallMs: series((r) => r.wallMs),
        totalRssMb: series((r) => r.totalRssMb),
        storeBytes: series((r) => r.storeBytes),
        ledgerEntries: series((r) => r.ledgerEntries),
        ledgerVerifyMs: series((r) => r.ledgerVerifyMs),
        supervisorHeapMb: heapGrowth(catalogueRuns),
        perProcessRssMb: Object.fromEntries(
          names.map((name) => [name, series((r) => r.processes.filter((p) => p.name === name).reduce((sum, p) => sum + p.rssMb, 0))]),
        ),
        perProcessCpuS: Object.fromEntries(names.map((name) => [name, series((r) => r.cpuS[name] ?? 0)])),
        scenarioMs: fastestGrowing(
          catalogueRuns.map((r) => r.scenarioMs ?? {}),
          10,
        ),
      },
      ledgerVerifiesAtEnd: final.ok,
      ...(options.keep ? { stateDir } : {}),
      wallMs: Math.round(performance.now() - began),
    };
  } finally {
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
    if (!stopped) await sandbox(['down', '--state-dir', stateDir], running).catch(() => undefined);
    if (!options.keep) rmSync(stateDir, { recursive: true, force: true });
  }
}

async function conformanceRun(
  after: number,
  stateDir: string,
  manifest: SandboxManifest,
  manifestPath: string,
  before: readonly ProcessMemory[],
  running: Set<ChildProcess>,
  log: (line: string) => void,
): Promise<SoakRun> {
  const report = join(stateDir, `conformance-${after}.json`);
  const t0 = performance.now();
  const exited = await sandbox(['conformance', '--sandbox', manifestPath, '--no-sign', '--report', `json=${report}`], running);
  const wallMs = Math.round(performance.now() - t0);
  const result = readJson<{
    summary?: { verdict?: string; passed?: number; failed?: number; skipped?: number };
    results?: { id: string; status: string }[];
  }>(report);
  if (result === undefined)
    throw new Error(`conformance after run ${after} wrote no report (exit ${exited.code}):\n${exited.stderr.slice(-4_000)}`);
  const checks = result.results ?? [];
  const entry: SoakRun = {
    run: after,
    kind: 'conformance',
    passed: result.summary?.passed ?? 0,
    failed: result.summary?.failed ?? 0,
    skipped: result.summary?.skipped ?? 0,
    failures: checks
      .filter((c) => c.status === 'FAILED')
      .map((c) => c.id)
      .slice(0, 20),
    verdict: result.summary?.verdict ?? `exit ${exited.code}`,
    wallMs,
    ...(await measure(stateDir, manifest, before)),
  };
  log(describe(entry));
  return entry;
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

/** One progress line per run. */
/** The heap's growth per catalogue run over the runs where it could be read. */
function heapGrowth(runs: readonly SoakRun[]): number {
  const read = runs
    .map((run, index) => [index, run.supervisorHeapMb] as const)
    .filter((entry): entry is readonly [number, number] => entry[1] !== null);
  return round(
    growthPerRun(
      read.map(([, mb]) => mb),
      read.map(([index]) => index),
    ),
  );
}

export function describe(run: SoakRun): string {
  const balances = Object.entries(run.solverBalances)
    .map(
      ([solver, held]) =>
        `${solver} ${Object.entries(held)
          .filter(([k]) => k.endsWith(':USDC'))
          .map(([k, v]) => `${k.split(':')[0]}=${v}`)
          .join('/')}`,
    )
    .join(' ');
  return [
    `soak ${run.kind} ${run.run}: ${run.passed} passed, ${run.failed} failed, ${run.skipped} skipped${run.verdict ? ` (${run.verdict})` : ''}`,
    `${(run.wallMs / 1000).toFixed(1)} s`,
    `rss ${run.totalRssMb} MB [${run.processes.map((p) => `${p.name} ${p.rssMb}`).join(', ')}]`,
    `cpu [${Object.entries(run.cpuS)
      .map(([name, seconds]) => `${name} ${seconds} s`)
      .join(', ')}]`,
    run.supervisorHeapMb === null
      ? `supervisor heap not read (${run.heapError ?? 'no pid'})`
      : `supervisor heap after GC ${run.supervisorHeapMb} MB${run.heapSnapshot ? ` (snapshot ${run.heapSnapshot})` : ''}`,
    `store ${(run.storeBytes / 1024 / 1024).toFixed(1)} MB`,
    `ledger ${run.ledgerEntries}${run.ledgerOk ? '' : ' BROKEN'} verified in ${run.ledgerVerifyMs} ms`,
    `unhandled ${run.unhandledErrors}, fault fired ${run.faultFirings}, rebalances ${run.rebalances}, shortfalls ${run.solverShortfalls}`,
    balances,
    run.failures.length > 0 ? `failed: ${run.failures.join(', ')}` : '',
  ]
    .filter(Boolean)
    .join(' | ');
}
