// Helpers shared by benchmark rows: process timing, medians, temporary folders.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
export const CLI = join(ROOT, 'dist/src/cli/main.js');

/** Benchmarks measure what users run: the compiled JavaScript in dist/. */
export function requireBuilt(path = CLI) {
  if (!existsSync(path)) throw new Error(`${path} is missing: run \`npm run build\` first.`);
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export const ms = (value) => `${value.toFixed(0)} ms`;

export function tempDir(prefix = 'bench-') {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Spawns a process and resolves with the milliseconds until `ready(output)` holds for its accumulated stdout
 * and stderr, plus the child (still running).
 */
export function spawnUntil(file, args, ready, options = {}) {
  const started = performance.now();
  const child = spawn(file, args, { stdio: ['pipe', 'pipe', 'pipe'], ...options });
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk) => {
      output += chunk.toString();
      if (ready(output)) {
        child.stdout?.off('data', onData);
        child.stderr?.off('data', onData);
        child.stdout?.resume();
        child.stderr?.resume();
        resolve({ ms: performance.now() - started, child, output });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${file} exited with ${code} before it was ready:\n${output}`)));
    child.once('error', reject);
  });
}

/** Stops a child and waits for it to be gone. */
export function stop(child, signal = 'SIGTERM') {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}
