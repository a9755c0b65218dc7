import type { SolverBehaviour } from '../../src/solvers/behaviour.js';
import type { Step } from '../core/scenario.js';

function describe(behaviour: SolverBehaviour | undefined): string {
  if (behaviour === undefined || Object.keys(behaviour).length === 0) return 'honest';
  return Object.entries(behaviour)
    .map(([key, value]) => `${key}=${String(value)}`)
    .join(' ');
}

/** Scripts the reference solvers from now on: one behaviour for all, or one per solver (missing = honest). */
export function setSolvers(behaviours: SolverBehaviour | readonly (SolverBehaviour | undefined)[]): Step {
  const list = Array.isArray(behaviours) ? (behaviours as readonly (SolverBehaviour | undefined)[]) : undefined;
  const label = list === undefined ? `all ${describe(behaviours as SolverBehaviour)}` : list.map(describe).join(', ');
  return {
    title: `solvers: ${label}`,
    async run(context) {
      context.solvers.forEach((solver, index) => {
        solver.setBehaviour((list === undefined ? (behaviours as SolverBehaviour) : list[index]) ?? {});
      });
      return context.solvers.map((solver) => `${solver.name}: ${describe(solver.behaviour)}`).join('; ');
    },
  };
}
