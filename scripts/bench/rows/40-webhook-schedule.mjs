// The whole webhook retry schedule A (first send + 6 retries over 31 h 10 m 35 s of clock time) for 100 events
// to a receiver that always answers 500, driven by the test clock: wall time of the advance. Real HTTP to a
// loopback receiver, real SQLite (WAL file) for the delivery state. Two shapes: 100 endpoints with one event
// each (every event runs the full schedule: 700 attempts), and one endpoint with 100 events (it is paused once
// 5 events have exhausted their attempts, so the last round stops early, as the spec requires).
import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, median, ms, tempDir } from '../lib.mjs';

export const name = 'webhook-schedule';
export const description = 'schedule A for 100 events to a failing receiver under the test clock (wall time)';

const GOAL_MS = 2000;
const SCHEDULE_MS = (31 * 3600 + 10 * 60 + 35) * 1000;
const EVENTS = 100;

async function failingReceiver() {
  let count = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      count += 1;
      res.writeHead(500).end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/hook`,
    count: () => count,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  };
}

async function once({ createService, TestClock }, endpoints) {
  const folder = tempDir('bench-webhooks-');
  const receiver = await failingReceiver();
  const clock = new TestClock({ start: Date.UTC(2030, 0, 1) });
  const service = await createService({
    environment: 'sandbox',
    chains: [],
    storePath: join(folder.dir, 'service.sqlite'),
    clock,
    logger: { level: 'silent' },
  });
  try {
    const workspaces = [];
    for (let i = 0; i < endpoints; i++) {
      const { workspaceId, apiKey } = service.bootstrapWorkspace(`Bench ${i}`);
      const response = await fetch(`${service.url}/api/v1/webhooks`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ url: receiver.url, events: ['order.*'] }),
      });
      if (response.status !== 201) throw new Error(`webhook registration answered ${response.status}`);
      workspaces.push(workspaceId);
    }
    const { outbox } = service.module('evidence');
    const started = performance.now();
    for (let i = 0; i < EVENTS; i++) {
      const workspaceId = workspaces[i % workspaces.length];
      outbox.commit(() =>
        outbox.append({
          workspaceId,
          type: 'order.created',
          generation: 'A',
          orderId: `ord_bench${i}`,
          data: { order: { id: `ord_bench${i}` } },
          at: clock.now(),
        }),
      );
    }
    await clock.idle();
    await clock.advance(SCHEDULE_MS + 1000);
    const elapsed = performance.now() - started;
    return { elapsed, attempts: receiver.count() };
  } finally {
    await service.stop();
    await receiver.close();
    folder.remove();
  }
}

/**
 * The floor: the same number of signed POSTs sent straight to a failing receiver by this script, 10 at a time, with
 * no service, no store and no clock: what delivering them costs at least.
 */
async function rawDeliveries(count) {
  const receiver = await failingReceiver();
  try {
    const started = performance.now();
    let next = 0;
    const worker = async () => {
      while (next < count) {
        const i = next++;
        const body = JSON.stringify({ id: `evt_${i}`, type: 'order.created', data: { order: { id: `ord_bench${i}` } } });
        const timestamp = String(Math.floor(Date.now() / 1000));
        const signature = createHmac('sha256', 'whsec_bench').update(`${timestamp}.${body}`).digest('hex');
        const response = await fetch(receiver.url, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'X-Service-Timestamp': timestamp, 'X-Service-Signature': signature },
          body,
        });
        await response.arrayBuffer();
      }
    };
    await Promise.all(Array.from({ length: 10 }, worker));
    return performance.now() - started;
  } finally {
    await receiver.close();
  }
}

export async function run({ runs }) {
  const { createService } = await import(pathToFileURL(join(ROOT, 'dist/src/service/app.js')).href);
  const { TestClock } = await import(pathToFileURL(join(ROOT, 'dist/src/clock/index.js')).href);
  const modules = { createService, TestClock };
  await once(modules, EVENTS); // warm-up: JIT, file system, sockets

  const rows = [];
  for (const [label, endpoints] of [
    ['100 endpoints × 1 event', EVENTS],
    ['1 endpoint × 100 events', 1],
  ]) {
    const times = [];
    let attempts = 0;
    for (let i = 0; i < runs; i++) {
      const result = await once(modules, endpoints);
      times.push(result.elapsed);
      attempts = result.attempts;
    }
    const value = median(times);
    const floor = await rawDeliveries(attempts);
    const expected = endpoints === 1 ? undefined : EVENTS * 7;
    if (expected !== undefined && attempts !== expected) throw new Error(`${label}: ${attempts} attempts, expected ${expected}`);
    rows.push({
      benchmark: `webhook schedule A, ${label}`,
      result: `${ms(value)} vs ${attempts} signed POSTs sent raw ${ms(floor)}`,
      detail: `${attempts} signed POSTs over 31 h 10 m 35 s of clock time; median of ${runs}; goal ≤ ${GOAL_MS} ms${endpoints === 1 ? ' (endpoint paused after 5 exhausted events)' : ''}`,
      values: { medianMs: value, runsMs: times, attempts, floorMs: floor, goalMs: GOAL_MS, meetsGoal: value <= GOAL_MS },
    });
  }
  return rows;
}
