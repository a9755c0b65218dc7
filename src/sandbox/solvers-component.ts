import {
  DEFAULT_SOLVER_COUNT,
  DEFAULT_SOLVER_SEED,
  type ReferenceSolvers,
  type SolverBehaviour,
  startReferenceSolvers,
} from '../solvers/index.js';
import type { SandboxComponent } from './sandbox.js';

export interface ReferenceSolversComponentOptions {
  count?: number;
  seed?: number;
  mode?: 'stream' | 'chain';
  behaviours?: ReadonlyArray<SolverBehaviour | undefined>;
  /** Hands over the running solvers (the in-process sandbox scripts their behaviour). */
  onStarted?: (solvers: ReferenceSolvers) => void;
}

/** The reference solvers as a part of `sandbox up` (after the settlement service, whose `api` they use). */
export function referenceSolversComponent(options: ReferenceSolversComponentOptions = {}): SandboxComponent {
  return {
    name: 'reference solvers',
    async start(context) {
      const count = options.count ?? DEFAULT_SOLVER_COUNT;
      if (count === 0) return { stop: async () => undefined };
      const started = await startReferenceSolvers({
        manifest: context.manifest,
        count,
        seed: options.seed ?? DEFAULT_SOLVER_SEED,
        behaviours: options.behaviours,
        followFaults: true,
        ...(options.mode === undefined ? {} : { mode: options.mode }),
      });
      options.onStarted?.(started);
      const how = options.mode === 'chain' ? 'watching the chains (no solver stream)' : 'connected';
      context.onProgress(`${count} reference solver(s) ${how}: ${started.solvers.map((s) => s.name).join(', ')}`);
      return { stop: started.stop };
    },
  };
}
