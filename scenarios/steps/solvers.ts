import type { SolverBehaviour } from '../../src/solvers/behaviour.js';
import type { ScenarioContext } from '../core/context.js';
import { fail } from '../core/errors.js';
import { sleep } from '../core/eventually.js';
import type { Step } from '../core/scenario.js';

/**
 * Scripting the reference solvers through the sandbox's solver fault switches (`POST /api/v1/sandbox/faults`): the
 * solvers act them out, the service records every firing on the order's timeline and in the ledger, and the
 * runner's teardown clears every switch the scenario set, also when it fails. A switch set here has no count: it
 * fires on every RFQ or order it matches until the next script (or the end of the scenario) clears it.
 */

/** The switch kinds a behaviour stands for (a prompt, honest solver: none). */
export function faultsOf(behaviour: SolverBehaviour): { kind: string; delay?: string }[] {
  const kinds: { kind: string; delay?: string }[] = [];
  const quote = { decline: 'solver.decline', silent: 'solver.silent', late: 'solver.quote-late', invalid: 'solver.quote-invalid' } as const;
  const fill = {
    never: 'solver.never-fill',
    late: 'solver.fill-late',
    short: 'solver.fill-short',
    'wrong-recipient': 'solver.fill-wrong-recipient',
    twice: 'solver.fill-twice',
    vanish: 'solver.vanish',
  } as const;
  if (behaviour.quote !== undefined && behaviour.quote !== 'quote') kinds.push({ kind: quote[behaviour.quote] });
  if (behaviour.fill !== undefined && behaviour.fill !== 'fill') kinds.push({ kind: fill[behaviour.fill] });
  else if (behaviour.fillDelayMs !== undefined && behaviour.fillDelayMs > 0) {
    kinds.push({ kind: 'solver.fill-slow', delay: `${Math.min(9_999, Math.round(behaviour.fillDelayMs))}ms` });
  }
  if (behaviour.claim === false || behaviour.lateByMs !== undefined) fail('no solver fault switch withholds claims or times a late quote');
  return kinds;
}

function describe(behaviour: SolverBehaviour | undefined): string {
  if (behaviour === undefined || Object.keys(behaviour).length === 0) return 'honest';
  return Object.entries(behaviour)
    .map(([key, value]) => `${key}=${String(value)}`)
    .join(' ');
}

const SCRIPT = 'solverScript';

/**
 * The reference solvers follow the switches within a second: the runner's own are told to read them now, a
 * running sandbox's are given the second.
 */
export async function solversFollow(context: ScenarioContext): Promise<void> {
  const owned = context.target.solvers ?? [];
  if (owned.length === 0) await sleep(1_100);
  for (const solver of owned) await solver.refreshFaults();
}

/**
 * Replaces the solvers' script: clears the switches the last script set and sets one per misbehaviour, for every
 * solver when they all behave alike, or scoped to each solver (by account order) otherwise.
 */
export async function scriptSolvers(
  context: ScenarioContext,
  behaviours: SolverBehaviour | readonly (SolverBehaviour | undefined)[],
): Promise<string> {
  const solvers = context.solvers;
  const list = Array.isArray(behaviours)
    ? (behaviours as readonly (SolverBehaviour | undefined)[])
    : solvers.map(() => behaviours as SolverBehaviour);
  for (const id of (context.values.get(SCRIPT) as string[] | undefined) ?? []) {
    await context.rest.request('DELETE', `/api/v1/sandbox/faults/${id}`).catch(() => undefined);
  }
  const set: string[] = [];
  context.values.set(SCRIPT, set);
  const keys = solvers.map((_, index) => JSON.stringify(faultsOf(list[index] ?? {})));
  const alike = keys.every((key) => key === keys[0]);
  const targets = alike
    ? [{ index: 0, scope: undefined }]
    : solvers.map((solver, index) => ({ index, scope: { solverId: solver.solverId } }));
  for (const { index, scope } of targets) {
    for (const fault of faultsOf(list[index] ?? {})) {
      const answer = await context.rest.request<{ id: string }>('POST', '/api/v1/sandbox/faults', {
        ...fault,
        ...(scope === undefined ? {} : { scope }),
      });
      set.push(answer.id);
    }
  }
  await solversFollow(context);
  const label = alike ? `all ${describe(list[0])}` : solvers.map((solver, index) => `${solver.name}: ${describe(list[index])}`).join('; ');
  return set.length === 0 ? `${label} (no switch)` : `${label} (${set.length} switch${set.length === 1 ? '' : 'es'})`;
}

/** Scripts the reference solvers from now on: one behaviour for all, or one per solver (missing = honest). */
export function setSolvers(behaviours: SolverBehaviour | readonly (SolverBehaviour | undefined)[]): Step {
  const list = Array.isArray(behaviours) ? (behaviours as readonly (SolverBehaviour | undefined)[]) : undefined;
  const label = list === undefined ? `all ${describe(behaviours as SolverBehaviour)}` : list.map(describe).join(', ');
  return {
    title: `solvers: ${label}`,
    run: (context) => scriptSolvers(context, behaviours),
  };
}
