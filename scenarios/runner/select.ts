import type { Scenario } from '../core/scenario.js';
import { BaseError } from '../../src/contracts/errors/base-error.js';

/** A mistake in what the user asked for (unknown name, bad option): `sandbox scenario run` exits 2. */
export class ScenarioUsageError extends BaseError {
  override readonly name = 'ScenarioUsageError';
  override readonly code = 'usage_error';
}

function globMatches(pattern: string, name: string): boolean {
  return new RegExp(
    `^${pattern
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\-]/g, '\\$&'))
      .join('.*')}$`,
  ).test(name);
}

/**
 * What `sandbox scenario run [names…]` runs: every scenario without names; otherwise those named exactly, matched by
 * a glob (`success-*`) or carrying a tag (`tag:refund`), in catalogue order. A selector matching nothing is a usage
 * error that lists what exists.
 */
export function selectScenarios(catalogue: readonly Scenario[], selectors: readonly string[]): Scenario[] {
  if (selectors.length === 0) return [...catalogue];
  const chosen = new Set<Scenario>();
  for (const selector of selectors) {
    const matches = catalogue.filter((scenario) =>
      selector.startsWith('tag:')
        ? scenario.tags.includes(selector.slice(4))
        : selector.includes('*')
          ? globMatches(selector, scenario.name)
          : scenario.name === selector,
    );
    if (matches.length === 0) {
      throw new ScenarioUsageError(`no scenario matches "${selector}". Scenarios: ${catalogue.map((s) => s.name).join(', ')}`);
    }
    for (const match of matches) chosen.add(match);
  }
  return catalogue.filter((scenario) => chosen.has(scenario));
}

export type ReportKind = 'junit' | 'json';

/** `--report junit=FILE,json=FILE` */
export function parseReportSpec(value: string | undefined): Partial<Record<ReportKind, string>> {
  if (value === undefined) return {};
  const reports: Partial<Record<ReportKind, string>> = {};
  for (const part of value
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [kind, ...rest] = part.split('=');
    const file = rest.join('=');
    if ((kind !== 'junit' && kind !== 'json') || file === '')
      throw new ScenarioUsageError(`--report takes junit=FILE,json=FILE; cannot read ${JSON.stringify(part)}`);
    reports[kind] = file;
  }
  return reports;
}

/** `--seed`: a non-negative safe integer. */
export function parseSeed(value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const seed = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(seed))
    throw new ScenarioUsageError(`--seed must be a non-negative integer, got ${JSON.stringify(value)}`);
  return seed;
}
