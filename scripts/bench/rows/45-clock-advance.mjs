// Long clock advances on real chains, through `POST /api/v1/sandbox/clock/advance` as a user sends it: a 366-day
// advance with nothing due but the periodic jobs (heartbeat of a connected WebSocket client, sweeps), and one with
// 1,000 due jobs spread over the year. The cost must follow the due jobs (one chain move per jump), not the
// simulated time. Each run uses a fresh sandbox (chains, service), so earlier advances do not shorten later ones.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import WebSocket from 'ws';
import { ROOT, median, ms, tempDir } from '../lib.mjs';

export const name = 'clock-advance';
export const description = '366-day clock advances on two anvil chains: no due jobs, and 1,000 due jobs (wall time)';

const DAY = 86_400_000;
const GOALS = { idle: 1_000, busy: 5_000 };
const load = (path) => import(pathToFileURL(join(ROOT, 'dist', path)).href);

async function once(modules, dueJobs) {
  const { startSandbox, readChainTime, createService, TestClock, devnetChainTime } = modules;
  const folder = tempDir('bench-clock-');
  const sandbox = await startSandbox({});
  let service;
  let socket;
  try {
    const offset = Math.max(0, ...(await readChainTime(sandbox.chains)).map((c) => c.offsetSeconds));
    const clock = new TestClock({ ticking: true, start: Date.now() + offset * 1_000 });
    service = await createService({
      environment: 'sandbox',
      chains: sandbox.manifest.chains,
      storePath: join(folder.dir, 'service.sqlite'),
      clock,
      chainTime: devnetChainTime(sandbox.chains),
      logger: { level: 'silent' },
      // The row measures the advance itself: never answer 202 before it ends.
      clockAdvanceAnswerMs: 600_000,
    });
    const { apiKey } = service.bootstrapWorkspace('bench');
    // A connected taker-stream client: its heartbeat (every 30 s of clock time) is a periodic job.
    socket = new WebSocket(`${service.wsUrl}?token=${apiKey}`);
    await new Promise((resolve) => socket.once('open', resolve).once('error', resolve));
    const start = clock.now();
    for (let i = 1; i <= dueJobs; i++)
      clock.schedule(start + Math.floor((i * 365 * DAY) / dueJobs), () => undefined, { name: 'bench.due' });
    const started = performance.now();
    const response = await fetch(`${service.url}/api/v1/sandbox/clock/advance`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ duration: '366d' }),
    });
    const elapsed = performance.now() - started;
    const body = await response.json();
    if (response.status !== 200) throw new Error(`advance answered ${response.status}: ${JSON.stringify(body)}`);
    const chainTime = Math.max(...(await readChainTime(sandbox.chains)).map((c) => c.offsetSeconds));
    // The chains count whole seconds and trail the service clock by at most a couple of seconds.
    if (chainTime < offset + 366 * 86_400 - 5)
      throw new Error(`chains moved to offset ${chainTime}s, expected about ${offset + 366 * 86_400}`);
    // The floor: the chain moves alone, sent raw to the same anvils — one per due job (the clock stops at every job
    // it runs and the chains follow it there), or one for the whole year when nothing is due.
    socket?.terminate();
    await service.stop();
    service = undefined;
    const steps = Math.max(1, dueJobs);
    const floorStarted = performance.now();
    for (let i = 0; i < steps; i++) await modules.advanceChainTime(sandbox.chains, Math.floor((366 * 86_400) / steps));
    const floor = performance.now() - floorStarted;
    return { elapsed, jobsRun: body.jobsRun, floor };
  } finally {
    socket?.terminate();
    await service?.stop();
    await sandbox.stop();
    folder.remove();
  }
}

export async function run({ runs }) {
  const modules = {
    ...(await load('src/sandbox/sandbox.js')),
    ...(await load('src/devnet/chain-time.js')),
    ...(await load('src/service/app.js')),
    ...(await load('src/clock/index.js')),
    ...(await load('src/sandbox/service-component.js')),
  };
  const rows = [];
  for (const [label, dueJobs, goal] of [
    ['no due jobs', 0, GOALS.idle],
    ['1,000 due jobs', 1_000, GOALS.busy],
  ]) {
    const times = [];
    const floors = [];
    let jobsRun = 0;
    for (let i = 0; i < Math.min(runs, 3); i++) {
      const result = await once(modules, dueJobs);
      times.push(result.elapsed);
      floors.push(result.floor);
      jobsRun = result.jobsRun;
    }
    const value = median(times);
    rows.push({
      benchmark: `clock advance 366 d, ${label}`,
      result: `${ms(value)} vs the same chain moves sent raw ${ms(median(floors))}`,
      detail: `POST /sandbox/clock/advance on two anvils with a connected WebSocket client; ${jobsRun} jobs ran; median of ${times.length}; goal ≤ ${goal} ms`,
      values: { medianMs: value, runsMs: times, jobsRun, floorMs: median(floors), goalMs: goal, meetsGoal: value <= goal },
    });
  }
  return rows;
}
