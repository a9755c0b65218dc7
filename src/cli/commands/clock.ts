import type { Command } from 'commander';
import { formatDuration, parseDuration } from '../../clock/index.js';
import { DEFAULT_STATE_DIR, runCommand, sandboxApi, SandboxApiError, type CommandOptions } from './keys.js';

export interface ClockAdvance {
  from: string;
  to: string;
  now: string;
  nowMs: number;
  advancedMs: number;
  jobsRun: number;
  chainTime: number | null;
}

export interface ClockState {
  now: string;
  nowMs: number;
  kind: 'test' | 'real';
  ticking: boolean;
  pendingJobs: number;
  nextJobAt: string | null;
}

/** `sandbox clock advance 31h`: moves the service clock and every chain, running due jobs in time order. */
export async function advanceClock(stateDir: string, duration: string): Promise<ClockAdvance> {
  try {
    parseDuration(duration);
  } catch (error) {
    throw new SandboxApiError((error as Error).message);
  }
  const { data } = await sandboxApi<ClockAdvance>(stateDir, 'POST', '/api/v1/sandbox/clock/advance', { duration });
  return data;
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
    .option('--state-dir <dir>', 'sandbox state folder holding sandbox.json', DEFAULT_STATE_DIR)
    .option('--json', 'print JSON for scripts')
    .action(async (duration: string, _options: unknown, command: Command) => {
      const options = command.optsWithGlobals<CommandOptions>();
      await runCommand(
        options,
        () => advanceClock(options.stateDir, duration),
        (result) =>
          `Clock advanced ${formatDuration(result.advancedMs)}: now ${result.now}\n` +
          `  ${result.jobsRun} job${result.jobsRun === 1 ? '' : 's'} ran` +
          (result.chainTime === null ? '' : `; chains at ${new Date(result.chainTime * 1_000).toISOString()}`),
      );
    });

  clock
    .command('show')
    .description('print the sandbox time and pending jobs')
    .option('--state-dir <dir>', 'sandbox state folder holding sandbox.json', DEFAULT_STATE_DIR)
    .option('--json', 'print JSON for scripts')
    .action(async (_options: unknown, command: Command) => {
      const options = command.optsWithGlobals<CommandOptions>();
      await runCommand(
        options,
        () => showClock(options.stateDir),
        (state) =>
          `Sandbox time ${state.now} (${state.kind} clock${state.ticking ? ', ticking' : ', frozen'})\n` +
          `  ${state.pendingJobs} pending job${state.pendingJobs === 1 ? '' : 's'}` +
          (state.nextJobAt === null ? '' : `, next at ${state.nextJobAt}`),
      );
    });
}
