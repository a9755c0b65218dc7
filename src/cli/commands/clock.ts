import type { Command } from 'commander';
import { formatDuration, parseDuration } from '../../clock/index.js';
import { SandboxApiError } from '../../clients/sandbox-admin-client.js';
import { action, type GlobalOptions, type Output, UsageError } from '../output.js';
import { sandboxApi } from '../sandbox-api.js';

const DOCS = 'docs/service-platform.md';

import type { ClockAdvance } from '../../api/clock.js';

export interface ClockState {
  now: string;
  nowMs: number;
  kind: 'test' | 'real';
  ticking: boolean;
  pendingJobs: number;
  nextJobAt: string | null;
}

/** `sandbox clock advance 31h`: moves the service clock and every chain, running due jobs in time order. */
export async function advanceClock(
  stateDir: string,
  duration: string,
  onProgress?: (operation: AdvanceOperation) => void,
): Promise<ClockAdvance> {
  try {
    parseDuration(duration);
  } catch (error) {
    throw new UsageError((error as Error).message, DOCS);
  }
  const { data } = await sandboxApi<ClockAdvance | AdvanceOperation>(stateDir, 'POST', '/api/v1/sandbox/clock/advance', { duration });
  if (!('status' in data)) return data;
  return followAdvance(stateDir, data, onProgress);
}

/** A long advance the service answered 202 for: `sandbox clock advance` waits for it, and Ctrl-C cancels it. */
export interface AdvanceOperation {
  id: string;
  status: 'running' | 'completed' | 'cancelled' | 'failed';
  now: string;
  target: string;
  result: ClockAdvance | null;
  error: string | null;
}

async function followAdvance(
  stateDir: string,
  first: AdvanceOperation,
  onProgress?: (operation: AdvanceOperation) => void,
): Promise<ClockAdvance> {
  const route = `/api/v1/sandbox/clock/advances/${first.id}`;
  let operation = first;
  let interrupted = false;
  const cancel = () => {
    interrupted = true;
  };
  process.once('SIGINT', cancel);
  try {
    while (operation.status === 'running') {
      if (interrupted) {
        operation = (await sandboxApi<AdvanceOperation>(stateDir, 'DELETE', route)).data;
        break;
      }
      onProgress?.(operation);
      await new Promise((resolve) => setTimeout(resolve, 500));
      operation = (await sandboxApi<AdvanceOperation>(stateDir, 'GET', route)).data;
    }
  } finally {
    process.off('SIGINT', cancel);
  }
  if (operation.status === 'completed' && operation.result !== null) return operation.result;
  throw new SandboxApiError(
    `the advance ${operation.id} ${operation.status} at ${operation.now}${operation.error ? `: ${operation.error}` : ''}`,
    { code: operation.status === 'cancelled' ? 'advance_cancelled' : 'advance_failed', docsPath: DOCS },
  );
}

export async function showClock(stateDir: string): Promise<ClockState> {
  const { data } = await sandboxApi<ClockState>(stateDir, 'GET', '/api/v1/sandbox/clock');
  return data;
}

export function register(program: Command): void {
  const clock = program.command('clock').description('the one clock of the sandbox: service and chains together');

  clock
    .command('advance')
    .description('move time forward (e.g. 31h, 1h30m, 90s, 2d) and run every job that falls due')
    .argument('<duration>', 'how far: 31h, 1h30m, 90s, 500ms, 2d')
    .action(action(advance, { docsPath: DOCS }));

  clock
    .command('show')
    .description('print the sandbox time and pending jobs')
    .action(action(show, { docsPath: DOCS }));
}

async function advance(output: Output, globals: GlobalOptions, duration: string): Promise<void> {
  const result = await advanceClock(globals.stateDir, duration, (operation) =>
    output.progress(`advancing… clock at ${operation.now} (target ${operation.target}; Ctrl-C cancels)`),
  );
  output.result(
    () =>
      `Clock advanced ${formatDuration(result.advancedMs)}: now ${result.now}\n` +
      `  ${result.jobsRun} job${result.jobsRun === 1 ? '' : 's'} ran` +
      (result.chainTime === null ? '' : `; chains at ${new Date(result.chainTime * 1_000).toISOString()}`),
    result,
  );
}

async function show(output: Output, globals: GlobalOptions): Promise<void> {
  const state = await showClock(globals.stateDir);
  output.result(
    () =>
      `Sandbox time ${state.now} (${state.kind} clock${state.ticking ? ', ticking' : ', frozen'})\n` +
      `  ${state.pendingJobs} pending job${state.pendingJobs === 1 ? '' : 's'}` +
      (state.nextJobAt === null ? '' : `, next at ${state.nextJobAt}`),
    state,
  );
}
