import type { Command } from 'commander';
import { stopSandbox } from '../../sandbox/daemon.js';
import { stateLayout } from '../../devnet/state-dir.js';
import { action, type GlobalOptions, type Output } from '../output.js';

export function register(program: Command): void {
  program
    .command('down')
    .description('stop the sandbox of the state folder (detached or in another terminal), saving chain state')
    .option('--timeout <seconds>', 'seconds to wait for a clean stop before killing it', '30')
    .action(action(down));
}

async function down(output: Output, globals: GlobalOptions, flags: { timeout: string }): Promise<void> {
  const stateDir = stateLayout(globals.stateDir).root;
  const timeoutMs = Number(flags.timeout) * 1000;
  output.progress(`stopping the sandbox in ${stateDir}`);
  const result = await stopSandbox(stateDir, { timeoutMs: Number.isFinite(timeoutMs) ? timeoutMs : 30_000 });
  output.result(
    () => {
      if (!result.stopped) return `No sandbox is running on ${stateDir}.`;
      if (result.forced) return `Sandbox (pid ${result.pid}) did not stop in time and was killed; chain state of this run was not saved.`;
      return `Sandbox stopped (pid ${result.pid}); chain state saved in ${stateDir}.`;
    },
    { ...result, stateDir },
  );
}
