import type { Address } from 'viem';
import type { RestClient } from '../../src/clients/rest-client.js';
import type { ScenarioTarget } from '../deployment/target.js';

/**
 * A reference solver of the target as scenarios know it: its id in the solver directory, its name and the wallet
 * it fills from. Scenarios script what it does through the sandbox's solver fault switches, never by reaching into
 * it, so the same scenario runs against a sandbox of this process and against one running elsewhere.
 */
export interface ReferenceSolverHandle {
  solverId: string;
  name: string;
  address: Address;
}

interface DirectoryEntry {
  solverId: string;
  name: string;
  connected: boolean;
}

/** `reference-2 (devoted koala)` → 2: the sandbox names its reference solvers after their account's position. */
const REFERENCE_NAME = /^reference-(\d+)\b/;

/**
 * The target's reference solvers in account order. The runner's own (in-process) ones know themselves; a running
 * sandbox's are read from the solver directory (`GET /api/v1/solvers`, newest first: a restarted sandbox registers
 * them again) and matched to the solver accounts its sandbox.json lists by the number in their name.
 */
export async function referenceSolversOf(target: ScenarioTarget, rest: RestClient): Promise<ReferenceSolverHandle[]> {
  if (target.solvers !== undefined && target.solvers.length > 0) {
    return target.solvers.map((solver) => ({ solverId: solver.solverId, name: solver.name, address: solver.wallet.address }));
  }
  const accounts = target.manifest.accounts?.solvers ?? [];
  const { data } = await rest.request<{ data: DirectoryEntry[] }>('GET', '/api/v1/solvers?limit=100');
  const found = new Map<number, ReferenceSolverHandle>();
  // Connected ones first; one that is reconnecting (a service restart a moment ago) still counts.
  for (const entry of [...data.filter((e) => e.connected), ...data.filter((e) => !e.connected)]) {
    const position = Number(REFERENCE_NAME.exec(entry.name)?.[1] ?? Number.NaN);
    const account = accounts[position - 1];
    if (account === undefined || found.has(position)) continue;
    found.set(position, { solverId: entry.solverId, name: entry.name, address: account.address as Address });
  }
  return [...found.entries()].sort(([a], [b]) => a - b).map(([, handle]) => handle);
}
