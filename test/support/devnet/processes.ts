import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { CLI, ROOT } from './dist.js';

/** pids of live processes whose command line contains `needle` (Linux /proc). */
export function processesMatching(needle: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ');
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      if (cmdline.includes(needle) && state !== 'Z') found.push(Number(entry));
    } catch {
      // Exited while we looked.
    }
  }
  return found;
}

/** anvil processes of one state folder: their --cache-path lies inside it. */
export const anvilsOf = (stateDir: string) =>
  processesMatching(`${stateDir}/chains/`).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0]?.endsWith('/anvil') ?? false;
    } catch {
      return false;
    }
  });

export async function waitFor(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function runCli(args: readonly string[], options: { timeoutMs?: number; env?: NodeJS.ProcessEnv } = {}): Promise<CliResult> {
  // DATABASE_URL picks the store of `sandbox up`: a developer's own must not leak into the tests.
  const { DATABASE_URL: _ignored, ...inherited } = process.env;
  const env = { ...inherited, ...options.env };
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { cwd: ROOT, env, timeout: options.timeoutMs ?? 60_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** Starts a long-running CLI command (foreground `up`) and resolves once it printed a whole JSON document. */
export async function startCli(args: readonly string[]): Promise<{ child: ChildProcess; json: unknown; stderr: () => string }> {
  const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const json = await new Promise<unknown>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      try {
        resolve(JSON.parse(stdout));
      } catch {
        // Not complete yet.
      }
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code} before printing JSON: ${stderr}${stdout}`)));
  });
  return { child, json, stderr: () => stderr };
}
