import { describe, expect, it } from 'vitest';
import { everyCheck } from '../index.js';
import { allChecks } from '../checks/index.js';
import { coverage, REQUIREMENTS, requirementLink, strictestLevel } from './index.js';

describe('requirement catalogue', () => {
  it('has unique, well-formed ids with text and a section', () => {
    const ids = REQUIREMENTS.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const r of REQUIREMENTS) {
      expect(r.id).toMatch(/^[ABXP]-[A-Z]+-\d{3}$/);
      expect(r.text.length).toBeGreaterThan(10);
      expect(r.section.length).toBeGreaterThan(2);
      expect(['MUST', 'SHOULD', 'NOT-CHECKABLE']).toContain(r.level);
    }
  });

  it('lists the spec\'s "not shown" statements as not checkable', () => {
    const notCheckable = REQUIREMENTS.filter((r) => r.level === 'NOT-CHECKABLE');
    expect(notCheckable.length).toBeGreaterThanOrEqual(10);
    expect(notCheckable.every((r) => /not shown|not observable/i.test(r.text))).toBe(true);
  });

  it('gives every MUST and SHOULD at least one check, and checks name only known requirements', () => {
    const report = coverage(everyCheck());
    expect(report.unknownReferences).toEqual([]);
    expect(report.uncoveredMust).toEqual([]);
    expect(report.uncoveredShould).toEqual([]);
  });

  it('covers the deployment-facing MUSTs with conformance checks alone (certify modes cover the receiver and solver ones)', () => {
    const report = coverage(allChecks());
    expect(report.uncoveredMust.every((id) => /^X-(WHR|SLV)-/.test(id))).toBe(true);
  });

  it('has unique check ids, each in a profile, each with a title', () => {
    const checks = everyCheck();
    expect(new Set(checks.map((c) => c.id)).size).toBe(checks.length);
    for (const c of checks) {
      expect(c.profiles.length).toBeGreaterThan(0);
      expect(c.title.length).toBeGreaterThan(5);
    }
  });

  it('decides failure severity by the strictest requirement and links clauses to their section', () => {
    expect(strictestLevel(['X-IDM-006', 'X-IDM-001'])).toBe('MUST');
    expect(strictestLevel(['X-IDM-006'])).toBe('SHOULD');
    const r = REQUIREMENTS.find((x) => x.id === 'X-PAG-004')!;
    expect(requirementLink(r)).toBe('conventions.md#pagination');
  });
});
