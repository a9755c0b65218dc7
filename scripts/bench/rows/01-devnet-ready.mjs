// `sandbox up` until ready (RPC answers, contracts present, manifest printed), against the floor: the same
// two anvil binaries started directly. Measured from spawning the command, so Node's start-up is included.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CLI, ROOT, median, ms, spawnUntil, stop, tempDir } from '../lib.mjs';

export const name = 'devnet-ready';
export const description = '`sandbox up` (2 chains) to ready vs bare start of the same two anvils';

const GOAL_MS = 1500;
const parses = (text) => {
  try {
    JSON.parse(text.slice(0, text.lastIndexOf('}') + 1) || 'x');
    return true;
  } catch {
    return false;
  }
};

async function sandboxUp(stateDir, extra = []) {
  const { ms: elapsed, child } = await spawnUntil(
    process.execPath,
    [CLI, 'up', '--json', '--state-dir', stateDir, '--chain-ports', 'any', ...extra],
    (output) => output.trimStart().startsWith('{') && parses(output),
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] },
  );
  return { elapsed, child };
}

async function bareAnvils(binary) {
  const started = performance.now();
  const chains = [31337, 31338].map((chainId) =>
    spawnUntil(
      binary,
      ['--host', '127.0.0.1', '--port', '0', '--chain-id', String(chainId), '--hardfork', 'cancun', '--prune-history', '16'],
      (output) => output.includes('Listening on'),
    ),
  );
  const ready = await Promise.all(chains);
  const elapsed = performance.now() - started;
  await Promise.all(ready.map((r) => stop(r.child)));
  return elapsed;
}

export async function run({ runs }) {
  const { resolveAnvilBinary } = await import(pathToFileURL(join(ROOT, 'dist/src/devnet/anvil-binary.js')).href);
  const binary = resolveAnvilBinary().path;

  // Warm-up, not counted: fills the deployment cache on a new machine and the file system cache.
  const warm = tempDir();
  await stop((await sandboxUp(warm.dir)).child);
  warm.remove();
  await bareAnvils(binary);

  const fresh = [];
  const restart = [];
  const bare = [];
  for (let i = 0; i < runs; i++) {
    const folder = tempDir();
    const first = await sandboxUp(folder.dir);
    fresh.push(first.elapsed);
    await stop(first.child);
    const again = await sandboxUp(folder.dir);
    restart.push(again.elapsed);
    await stop(again.child);
    folder.remove();
    bare.push(await bareAnvils(binary));
  }

  const floor = median(bare);
  const row = (benchmark, samples) => {
    const value = median(samples);
    return {
      benchmark,
      result: `${ms(value)} vs bare anvils ${ms(floor)} (×${(value / floor).toFixed(1)})`,
      detail: `median of ${runs}; goal ≤ ${GOAL_MS} ms ${value <= GOAL_MS ? 'met' : 'MISSED'}; runs ${samples.map((s) => s.toFixed(0)).join('/')} ms`,
      values: { medianMs: value, bareMedianMs: floor, ratio: value / floor, samplesMs: samples, bareSamplesMs: bare, goalMs: GOAL_MS },
    };
  };
  return [
    row('sandbox up → ready, new state folder (2 chains)', fresh),
    row('sandbox up → ready, saved state after down (2 chains)', restart),
  ];
}
