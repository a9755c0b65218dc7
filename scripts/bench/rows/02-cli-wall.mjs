// What a user waits for at the shell: the whole `sandbox up --detach` and `sandbox down` commands, from spawning
// the command to its exit (Node start-up included), warm and on a first run, and through `npx` as the README
// tells newcomers to run it. The floor is Node's own start-up (`node -e 0`), which no CLI can beat.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { CLI, ROOT, median, ms, tempDir } from '../lib.mjs';

export const name = 'cli-wall';
export const description = '`sandbox up --detach` / `down` wall time as typed at a shell (warm, first run, npx)';

const UP_GOAL_MS = 1_000;
const DOWN_GOAL_MS = 300;
const FIRST_GOAL_MS = 3_000;

/** Runs a command to its exit; resolves with its wall time, rejects on a non-zero exit. */
function timed(file, args, env = {}) {
  const started = performance.now();
  const child = spawn(file, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let errors = '';
  child.stderr.on('data', (chunk) => {
    errors += chunk;
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code === 0) resolve(performance.now() - started);
      else reject(new Error(`${[file, ...args].join(' ')} exited with ${code}: ${errors.slice(-400)}`));
    });
  });
}

const up = (stateDir, env) =>
  timed(process.execPath, [CLI, 'up', '--detach', '--state-dir', stateDir, '--chain-ports', 'any', '--port', '0'], env);
const down = (stateDir) => timed(process.execPath, [CLI, 'down', '--state-dir', stateDir]);
const npxUp = (stateDir) =>
  timed('npx', ['--no-install', 'settlement-sandbox', 'up', '--detach', '--state-dir', stateDir, '--chain-ports', 'any', '--port', '0']);

export async function run({ runs }) {
  const floor = [];
  const warmUp = [];
  const warmDown = [];
  const viaNpx = [];
  const firstWarmed = [];
  const firstCold = [];
  const warming = [];

  // Warm-up, not counted (file system cache).
  const warm = tempDir();
  await up(warm.dir);
  await down(warm.dir);
  warm.remove();

  for (let i = 0; i < runs; i++) {
    floor.push(await timed(process.execPath, ['-e', '0']));

    const state = tempDir();
    warmUp.push(await up(state.dir));
    warmDown.push(await down(state.dir));
    viaNpx.push(await npxUp(state.dir));
    await down(state.dir);
    state.remove();

    // A fresh install: an empty deployment cache, warmed as `npm install` does (scripts/warm-genesis.mjs), then
    // the first `up`; and the same without the install-time warming (the first `up` deploys the genesis itself).
    const cache = tempDir('bench-cache-');
    const first = tempDir();
    warming.push(await timed(process.execPath, [join(ROOT, 'scripts/warm-genesis.mjs')], { SANDBOX_CACHE_DIR: cache.dir }));
    firstWarmed.push(await up(first.dir, { SANDBOX_CACHE_DIR: cache.dir }));
    await down(first.dir);
    first.remove();
    cache.remove();

    const coldCache = tempDir('bench-cache-');
    const cold = tempDir();
    firstCold.push(await up(cold.dir, { SANDBOX_CACHE_DIR: coldCache.dir }));
    await down(cold.dir);
    cold.remove();
    coldCache.remove();
  }

  const nodeFloor = median(floor);
  const row = (benchmark, samples, goal) => {
    const value = median(samples);
    return {
      benchmark,
      result: `${ms(value)} vs node start-up ${ms(nodeFloor)}`,
      detail: `median of ${runs}; ${goal === undefined ? 'no goal' : `goal ≤ ${goal} ms ${value <= goal ? 'met' : 'MISSED'}`}; runs ${samples.map((s) => s.toFixed(0)).join('/')} ms`,
      values: { medianMs: value, floorMs: nodeFloor, samplesMs: samples, ...(goal === undefined ? {} : { goalMs: goal }) },
    };
  };
  return [
    row('sandbox up --detach, wall (warm cache, new state folder)', warmUp, UP_GOAL_MS),
    row('sandbox down, wall', warmDown, DOWN_GOAL_MS),
    row('npx settlement-sandbox up --detach, wall (npm start-up included)', viaNpx),
    row('first sandbox up --detach after install (genesis warmed by npm install)', firstWarmed, FIRST_GOAL_MS),
    row('first sandbox up --detach with no warmed genesis (deploys it)', firstCold, FIRST_GOAL_MS),
    row('npm install step: warm the genesis (scripts/warm-genesis.mjs)', warming),
  ];
}
