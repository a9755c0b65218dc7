// CPU accounting for benchmark rows, independent of the core count and of other work on the machine: per-thread and
// per-process CPU read from /proc (Linux), and a sampling profile of the calling thread whose samples are charged to
// the service component that was running. Wall-clock rates move with the machine's load; CPU-ms per unit do much less.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';

/** Clock ticks per second of /proc's utime and stime (USER_HZ; 100 on every Linux this runs on). */
const TICK_MS = 10;

/** User + system CPU milliseconds of a /proc `stat` file, or 0 when the task has gone. */
function statCpuMs(path) {
  let text;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return 0;
  }
  // Fields after the command name (which may hold spaces) start at the last ')'; utime and stime are fields 14, 15.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

/** The calling thread's own CPU milliseconds (/proc/thread-self: main thread or a worker thread alike). */
export function threadCpuMs() {
  return statCpuMs('/proc/thread-self/stat');
}

/** The calling thread's task id, so another thread can read its CPU. */
export function threadId() {
  return Number(readFileSync('/proc/thread-self/stat', 'utf8').split(' ')[0]);
}

/** CPU milliseconds of one thread of this process. */
export function taskCpuMs(tid) {
  return statCpuMs(`/proc/self/task/${tid}/stat`);
}

/**
 * The thread V8's sampling profiler runs in (`startComponentProfile`). It is the measurement's own cost, which a
 * floor measured without a profile does not pay, so CPU accounting leaves it out and reports it apart.
 */
export const PROFILER_THREAD = 'v8:ProfEvntProc';

function threadName(tid) {
  try {
    return readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
}

/**
 * CPU milliseconds of every thread of this process by task id, the profiler's thread left out, and that thread's
 * apart (it starts with the profile, so all of its CPU is the profile's).
 */
function threadsCpuMs() {
  const threads = new Map();
  let profilerMs = 0;
  for (const tid of readdirSync('/proc/self/task')) {
    const ms = statCpuMs(`/proc/self/task/${tid}/stat`);
    if (threadName(tid) === PROFILER_THREAD) profilerMs += ms;
    else threads.set(Number(tid), ms);
  }
  return { threads, profilerMs };
}

/** Process ids of every descendant of `pid` (the anvils, a Postgres server, cluster workers). */
export function descendants(pid = process.pid) {
  const found = [];
  const visit = (parent) => {
    let children = [];
    try {
      for (const tid of readdirSync(`/proc/${parent}/task`)) {
        const text = readFileSync(`/proc/${parent}/task/${tid}/children`, 'utf8').trim();
        if (text !== '') children.push(...text.split(' ').map(Number));
      }
    } catch {
      children = [];
    }
    for (const child of children) {
      found.push(child);
      visit(child);
    }
  };
  visit(pid);
  return found;
}

/** Total CPU milliseconds of a process (all its threads, children excluded). */
export function processCpuMs(pid) {
  return statCpuMs(`/proc/${pid}/stat`);
}

/**
 * A snapshot of where this machine's CPU went, for one side of a measurement: this process's threads by task id and
 * each descendant process. `cpuSince(before)` then gives the milliseconds spent by each since the snapshot.
 */
export function cpuSnapshot() {
  const children = new Map(descendants().map((pid) => [pid, processCpuMs(pid)]));
  return { ...threadsCpuMs(), children };
}

export function cpuSince(before) {
  const after = cpuSnapshot();
  const delta = (now, then) => {
    const out = new Map();
    for (const [id, ms] of now) out.set(id, ms - (then.get(id) ?? 0));
    return out;
  };
  return {
    threads: delta(after.threads, before.threads),
    children: delta(after.children, before.children),
    profilerMs: Math.max(0, after.profilerMs - before.profilerMs),
  };
}

/** The 1-minute load average, to say how shared the machine was when a figure was taken. */
export function loadAverage() {
  return Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
}

/**
 * The service components a sample is charged to, by the innermost frame of the service's own code on its stack
 * (a secp256k1 sample under the relayer counts as relays; a SQLite sample under the order repository counts as store
 * commits), else by a library frame that says whose work it is (LIBRARY_HINTS). The rest (garbage collection, the
 * event loop's I/O, the runtime) is `runtime`.
 * Order matters: the first matching prefix wins.
 */
const COMPONENTS = [
  ['auction', ['service/auction/']],
  [
    'intake and signature checks',
    [
      'service/orders/order-intake',
      'service/orders/signature-check',
      'service/orders/order-creation',
      'service/orders/routes',
      'service/orders/schemas',
      'service/api/',
      'service/http/',
      'service/auth/',
    ],
  ],
  ['store commits', ['service/store/', 'service/ledger/', 'service/orders/order-repository', 'service/settlement/relay-repository']],
  [
    'relays and receipts',
    [
      'service/settlement/relayer',
      'service/settlement/remote-relayer',
      'service/settlement/transactions',
      'service/settlement/rpc-transport',
      'service/settlement/engine',
      'service/settlement/keeper',
      'service/settlement/revert-reason',
      // The engine's JSON-RPC clients to the chains (HTTP or IPC).
      'contracts/json-rpc-',
    ],
  ],
  [
    'watchers',
    ['service/settlement/watchers', 'service/settlement/log-stream', 'service/settlement/chain-facts', 'service/settlement/chains'],
  ],
  [
    'events, WS and webhooks',
    [
      'service/events/',
      'service/ws/',
      'service/webhooks/',
      'service/evidence/',
      'service/orders/order-events',
      'service/orders/order-domain-events',
    ],
  ],
  ['order lifecycle', ['service/orders/']],
  ['other service code', ['service/', 'src/']],
];

/**
 * Samples whose stack lost the service's frames (an `await` inside a library resumes without its caller) are charged
 * by the library frame that shows whose work it is.
 */
const LIBRARY_HINTS = [
  ['intake and signature checks', ['recoverPublicKey', 'recoverAddress', 'hashTypedData']],
  // The service's HTTP client is its JSON-RPC transport to the chains (webhook deliveries too, none in the bench).
  ['relays and receipts', ['signTransaction', 'estimateGas', 'node:_http_client']],
  ['events, WS and webhooks', ['/ws/lib/']],
  ['intake and signature checks', ['/router/', '/body-parser/', '/raw-body/', 'node:_http_server']],
];

export const COMPONENT_NAMES = [...COMPONENTS.map(([name]) => name), 'runtime (GC, I/O, no service frame)'];

function hintOf(frame) {
  for (const [name, marks] of LIBRARY_HINTS)
    if (marks.some((mark) => (mark.includes('/') || mark.startsWith('node:') ? frame.url.includes(mark) : frame.functionName === mark)))
      return name;
  return undefined;
}

/** Shared helpers charged by what they do (their file serves several components). */
const FUNCTION_COMPONENTS = new Map([
  ['recoverSigner', 'intake and signature checks'],
  ['signEip1559Transaction', 'relays and receipts'],
]);

function componentOfFrame(frame) {
  if (frame.url.includes('/dist/src/') && FUNCTION_COMPONENTS.has(frame.functionName)) return FUNCTION_COMPONENTS.get(frame.functionName);
  return componentOf(frame.url);
}

function componentOf(url) {
  const at = url.indexOf('/dist/src/');
  if (at < 0) return undefined;
  const path = url.slice(at + '/dist/'.length);
  for (const [name, prefixes] of COMPONENTS) if (prefixes.some((p) => path.includes(p))) return name;
  return undefined;
}

/** Microseconds on the clock V8's profiles are stamped with (CLOCK_MONOTONIC, as `process.hrtime`). */
export function monotonicMicros() {
  return Number(process.hrtime.bigint() / 1000n);
}

/**
 * Starts a sampling CPU profile of the calling thread; `stop(fromUs)` resolves with the share of busy samples per
 * component, counting only the samples taken from `fromUs` (monotonicMicros) on. Start it before the measurement:
 * `Profiler.start` logs every compiled function first, which cost the service's thread 130 ms (0.9 ms per order of a
 * 150-order run) when it started inside the measured window, a cost the floor, which runs without a profile, does not
 * pay.
 */
export async function startComponentProfile(intervalUs = 500) {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: intervalUs });
  await session.post('Profiler.start');
  let stopped = false;
  return {
    async stop(fromUs = Number.NEGATIVE_INFINITY) {
      // Once: a run that failed stops it on its way out, so that the next row does not run under it.
      if (stopped) return undefined;
      stopped = true;
      const { profile } = await session.post('Profiler.stop');
      session.disconnect();
      // For a closer look (Chrome DevTools or `speedscope`): BENCH_CPU_PROFILE=<file.cpuprofile>.
      if (process.env.BENCH_CPU_PROFILE) writeFileSync(process.env.BENCH_CPU_PROFILE, JSON.stringify(profile));
      return componentShares(profile, fromUs);
    },
  };
}

/**
 * Busy samples per component, as shares of all busy samples (idle samples are the thread waiting, not CPU); only the
 * samples taken from `fromUs` on (the profile's own clock) count.
 */
export function componentShares(profile, fromUs = Number.NEGATIVE_INFINITY) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const charged = new Map();
  const hinted = new Map();
  const hintFor = (id) => {
    if (hinted.has(id)) return hinted.get(id);
    const hint = hintOf(byId.get(id).callFrame) ?? (parent.has(id) ? hintFor(parent.get(id)) : undefined);
    hinted.set(id, hint);
    return hint;
  };
  const chargeOf = (id) => {
    if (charged.has(id)) return charged.get(id);
    const node = byId.get(id);
    const name = node.callFrame.functionName;
    let component;
    if (name === '(idle)') component = null;
    else component = componentOfFrame(node.callFrame) ?? (parent.has(id) ? chargeOf(parent.get(id)) : undefined);
    charged.set(id, component);
    return component;
  };
  const counts = new Map(COMPONENT_NAMES.map((name) => [name, 0]));
  let busy = 0;
  let at = profile.startTime;
  for (const [index, id] of profile.samples.entries()) {
    at += profile.timeDeltas?.[index] ?? 0;
    if (at < fromUs) continue;
    const component = chargeOf(id);
    if (component === null) continue;
    busy++;
    const name = component ?? hintFor(id) ?? COMPONENT_NAMES.at(-1);
    counts.set(name, counts.get(name) + 1);
  }
  return Object.fromEntries([...counts].map(([name, count]) => [name, busy === 0 ? 0 : count / busy]));
}
