import type { SandboxComponent } from './sandbox.js';
import type { SandboxRunOptions } from './run.js';

/**
 * The parts `sandbox up` starts on top of the chains, in order. The settlement service and the reference
 * solvers are added here (they read their settings from `options`); both the foreground `up` and the detached
 * supervisor start exactly this list.
 */
export async function sandboxComponents(options: SandboxRunOptions): Promise<SandboxComponent[]> {
  void options;
  return [];
}
