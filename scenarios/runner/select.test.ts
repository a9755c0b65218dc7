import { describe, expect, it } from 'vitest';
import { defineScenario } from '../core/scenario.js';
import { parseReportSpec, parseSeed, ScenarioUsageError, selectScenarios } from './select.js';

const catalogue = ['success-permit2-direct', 'success-permit2-compliant', 'refund-solver-never-fills'].map((name) =>
  defineScenario({ name, title: name, tags: name.startsWith('success') ? ['success'] : ['refund'], steps: [] }),
);

describe('scenario selection', () => {
  it('runs everything without names, keeps catalogue order, and de-duplicates', () => {
    expect(selectScenarios(catalogue, []).map((s) => s.name)).toEqual(catalogue.map((s) => s.name));
    expect(selectScenarios(catalogue, ['refund-solver-never-fills', 'success-*', 'tag:success']).map((s) => s.name)).toEqual([
      'success-permit2-direct',
      'success-permit2-compliant',
      'refund-solver-never-fills',
    ]);
  });

  it('refuses a selector that matches nothing and lists the scenarios', () => {
    expect(() => selectScenarios(catalogue, ['succes-permit2-direct'])).toThrow(ScenarioUsageError);
    expect(() => selectScenarios(catalogue, ['tag:nope'])).toThrow(/Scenarios: success-permit2-direct, success-permit2-compliant/);
  });

  it('reads --report and --seed, refusing what it cannot read', () => {
    expect(parseReportSpec('junit=out/a.xml,json=b.json')).toEqual({ junit: 'out/a.xml', json: 'b.json' });
    expect(parseReportSpec(undefined)).toEqual({});
    for (const bad of ['html=x.html', 'junit', 'junit=', 'json']) expect(() => parseReportSpec(bad)).toThrow(ScenarioUsageError);
    expect(parseSeed('42', 1)).toBe(42);
    expect(parseSeed(undefined, 7)).toBe(7);
    for (const bad of ['-1', '1.5', 'abc', '']) expect(() => parseSeed(bad, 1)).toThrow(ScenarioUsageError);
  });

  it('refuses a scenario name that is not kebab-case', () => {
    expect(() => defineScenario({ name: 'Bad Name', title: '', tags: [], steps: [] })).toThrow(/kebab-case/);
  });
});
