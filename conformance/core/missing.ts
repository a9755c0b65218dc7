import type { CheckResult, Capability } from './types.js';

/**
 * What a skipped check lacked, and how the caller provides it. A run with such skips is INCOMPLETE: its verdict
 * says nothing about the checks that did not run, and the report lists them here so the next run can.
 */
export interface MissingInput {
  /** The capability the target or the caller did not provide; absent when only the run showed the gap. */
  capability?: Capability;
  /** Why the checks were skipped (the first reason seen). */
  reason: string;
  /** What to pass (or what the target must offer) so that they run. */
  provide: string;
  checks: string[];
}

const PROVIDE: Record<Capability, string> = {
  apiKey: 'pass --api-key KEY (a key of the target’s environment)',
  workspace: 'pass --workspace ws_… (the workspace of the API key), or serve GET /api/v1/sandbox/info with its workspaceId',
  long: 'pass --long to let timing checks wait in real time (or run against a target with a sandbox clock)',
  clock: 'the target must offer the sandbox clock (GET/POST /api/v1/sandbox/clock[/advance]) with an API key, or pass --long',
  keys: 'the target must offer the sandbox key routes (GET /api/v1/sandbox/keys) for the API key given',
  faucet: 'the target must offer POST /api/v1/sandbox/faucet (or pass funded --taker-key keys)',
  fundedAccounts: 'pass funded taker keys: --taker-key 0x… (repeatable) or --taker-keys-file FILE (or --sandbox sandbox.json)',
  chains:
    'the target must name its chains (GET /api/v1/sandbox/info, with contracts), or pass --sandbox FILE with `chains`; --rpc CHAINID=URL where its RPC URLs are not reachable',
  solvers: 'the target needs a corridor with live solvers (solverCount > 0)',
  openapi: 'the target must serve its OpenAPI document at /api/v1/openapi.json',
  namedTaker:
    'a project extension the target does not document (POST /quotes `user`); name the check in --expected-skips if it is not offered',
  quoteLockType:
    'a project extension the target does not document (POST /quotes `lockType`); name the check in --expected-skips if it is not offered',
  quoteSettlementPath:
    'a project extension the target does not document (POST /quotes `settlementPath`); name the check in --expected-skips if it is not offered',
};

export function howToProvide(capability: Capability): string {
  return PROVIDE[capability];
}

/** Skips not named as expected, grouped by what was missing (the first missing capability, else the reason). */
export function missingInputs(results: readonly CheckResult[]): MissingInput[] {
  const groups = new Map<string, MissingInput>();
  for (const result of results) {
    if (result.status !== 'SKIPPED' || result.expectedSkip !== undefined || result.expected !== undefined) continue;
    const capability = result.missing?.[0];
    const key = capability ?? `reason:${result.message}`;
    let group = groups.get(key);
    if (group === undefined) {
      group = {
        ...(capability === undefined ? {} : { capability }),
        reason: result.message,
        provide:
          capability === undefined
            ? 'the target did not offer what the check needs (see the reason); name the check in --expected-skips if that is by design'
            : howToProvide(capability),
        checks: [],
      };
      groups.set(key, group);
    }
    group.checks.push(result.id);
  }
  return [...groups.values()];
}
