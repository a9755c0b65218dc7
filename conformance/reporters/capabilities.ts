import type { Check } from '../core/runner.js';
import type { Capability, Profile } from '../core/types.js';
import type { Target } from '../deployment/discover.js';

/**
 * What a target offers and what that means for a run: each capability the suite can use, whether the target has
 * it (and why not), and the selected checks that will be SKIPPED for its lack. `sandbox conformance --capabilities`
 * prints this without running a check.
 */
export interface CapabilityLine {
  capability: Capability;
  offered: boolean;
  /** Why it is missing (absent when offered). */
  reason?: string;
  /** Selected checks that cannot run without it. */
  neededBy: string[];
}

export interface CapabilitiesReport {
  target: string;
  environment: Target['environment'];
  profile: Profile;
  capabilities: CapabilityLine[];
  /** Checks of the selection that every offered capability lets run. */
  runnable: number;
  /** Checks of the selection skipped for a missing capability. */
  skipped: number;
}

const ORDER: readonly Capability[] = [
  'apiKey',
  'workspace',
  'openapi',
  'solvers',
  'chains',
  'fundedAccounts',
  'namedTaker',
  'quoteLockType',
  'quoteSettlementPath',
  'clock',
  'keys',
  'faucet',
  'long',
];

function blockedBy(check: Check, target: Target): Capability[] {
  const missing = (check.needs ?? []).filter((need) => !target.capabilities.has(need));
  const anyOf = check.needsAnyOf ?? [];
  if (anyOf.length > 0 && !anyOf.some((need) => target.capabilities.has(need))) missing.push(...anyOf);
  return missing;
}

export function capabilitiesReport(target: Target, checks: readonly Check[], profile: Profile): CapabilitiesReport {
  const blocked = new Map(checks.map((check) => [check.id, blockedBy(check, target)]));
  const capabilities = ORDER.map((capability): CapabilityLine => {
    const offered = target.capabilities.has(capability);
    const reason = target.missing[capability];
    return {
      capability,
      offered,
      ...(offered || reason === undefined ? {} : { reason }),
      neededBy: checks.filter((check) => blocked.get(check.id)!.includes(capability)).map((check) => check.id),
    };
  });
  const skipped = [...blocked.values()].filter((missing) => missing.length > 0).length;
  return { target: target.url, environment: target.environment, profile, capabilities, runnable: checks.length - skipped, skipped };
}

export function capabilitiesText(report: CapabilitiesReport): string {
  const lines = [`Target ${report.target} (${report.environment}), Reference ${report.profile}`, ''];
  for (const line of report.capabilities) {
    const mark = line.offered ? 'yes' : 'no ';
    const needs = line.neededBy.length === 0 ? '' : ` — ${line.neededBy.length} check(s) skipped: ${line.neededBy.join(', ')}`;
    lines.push(`  ${mark} ${line.capability.padEnd(20)}${line.offered ? '' : ` ${line.reason ?? ''}`}${needs}`);
  }
  lines.push('', `${report.runnable} of ${report.runnable + report.skipped} selected checks can run; ${report.skipped} would be SKIPPED.`);
  lines.push('Checks may still skip at run time for what only the run shows (no corridor without solvers, no cursor replay…).');
  return `${lines.join('\n')}\n`;
}
