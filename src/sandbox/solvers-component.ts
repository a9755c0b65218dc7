import {
  DEFAULT_SOLVER_COUNT,
  DEFAULT_SOLVER_SEED,
  type ReferenceSolvers,
  type SolverBehaviour,
  startReferenceSolvers,
} from '../solvers/index.js';
import type { SandboxComponent } from './sandbox.js';
import type { SolverEvent } from '../solvers/index.js';

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
      for (const solver of started.solvers) {
        solver.onEvent((event) => {
          const line = solverLogLine(event);
          // The sandbox log (stderr of `up`, sandbox.log of a detached one): why a solver stopped quoting or filling.
          if (line !== undefined) process.stderr.write(`${new Date().toISOString()} solver ${solver.name}: ${line}\n`);
        });
      }
      const how = options.mode === 'chain' ? 'watching the chains (no solver stream)' : 'connected';
      context.onProgress(`${count} reference solver(s) ${how}: ${started.solvers.map((s) => s.name).join(', ')}`);
      return { stop: started.stop };
    },
  };
}

/** The solver events worth a log line: what it cannot do and why, inventory it moved, and failures. */
function solverLogLine(event: SolverEvent): string | undefined {
  switch (event.type) {
    case 'short':
      return `short on chain ${event.chainId} ${event.symbol}: ${event.reason}`;
    case 'rebalanced':
      return `rebalanced ${event.amount} ${event.symbol} from chain ${event.fromChainId} to chain ${event.toChainId} (burn ${event.txHash}, faucet mint)`;
    case 'skipped':
      return event.reason.startsWith('cannot fill') ? `order ${event.orderId} not filled: ${event.reason}` : undefined;
    case 'disconnected':
      return `solver stream closed (${event.code}${event.reason ? ` ${event.reason}` : ''}); reconnecting`;
    case 'reconnected':
      return 'solver stream reconnected and subscribed';
    case 'error':
      return `error${event.orderId === undefined ? '' : ` on order ${event.orderId}`}: ${event.message.split('\n')[0]}`;
    default:
      return undefined;
  }
}
