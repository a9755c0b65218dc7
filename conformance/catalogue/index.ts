import { REQUIREMENTS, type Level, type Requirement } from './requirements.js';

export { REQUIREMENTS, type Level, type Requirement } from './requirements.js';

const byId = new Map(REQUIREMENTS.map((requirement) => [requirement.id, requirement]));

export function requirement(id: string): Requirement | undefined {
  return byId.get(id);
}

/** The generation a requirement belongs to, from its id prefix. */
export function requirementProfiles(id: string): Array<'A' | 'B'> {
  if (id.startsWith('A-')) return ['A'];
  if (id.startsWith('B-')) return ['B'];
  if (id.startsWith('P-')) return ['A'];
  return ['A', 'B'];
}

/** Where the clause lives, for links in reports: the spec file and its section heading. */
export function requirementLink(req: Requirement): string {
  const file = req.source === 'conventions' ? 'conventions.md' : 'interface.md';
  const anchor = req.section
    .split('/')
    .pop()!
    .trim()
    .toLowerCase()
    .replace(/\(.*?\)/g, '')
    .trim()
    .replace(/[^a-z0-9 -]/g, '')
    .replace(/\s+/g, '-');
  return `${file}#${anchor}`;
}

export interface CoverageEntry {
  requirement: Requirement;
  checks: string[];
}

export interface CoverageReport {
  entries: CoverageEntry[];
  /** MUST requirements without a check: the catalogue's promise is that this is empty. */
  uncoveredMust: string[];
  uncoveredShould: string[];
  notCheckable: string[];
  /** Requirement ids named by checks but absent from the catalogue (typos). */
  unknownReferences: Array<{ check: string; requirement: string }>;
}

/** Which checks test which requirement. */
export function coverage(checks: ReadonlyArray<{ id: string; requirements: readonly string[] }>): CoverageReport {
  const entries = REQUIREMENTS.map((req) => ({ requirement: req, checks: [] as string[] }));
  const index = new Map(entries.map((entry) => [entry.requirement.id, entry]));
  const unknownReferences: CoverageReport['unknownReferences'] = [];
  for (const check of checks) {
    for (const id of check.requirements) {
      const entry = index.get(id);
      if (entry) entry.checks.push(check.id);
      else unknownReferences.push({ check: check.id, requirement: id });
    }
  }
  const uncovered = (level: Level) =>
    entries.filter((e) => e.requirement.level === level && e.checks.length === 0).map((e) => e.requirement.id);
  return {
    entries,
    uncoveredMust: uncovered('MUST'),
    uncoveredShould: uncovered('SHOULD'),
    notCheckable: entries.filter((e) => e.requirement.level === 'NOT-CHECKABLE').map((e) => e.requirement.id),
    unknownReferences,
  };
}

/** The strictest level among a check's requirements decides whether its failure is FAILED or a WARNING. */
export function strictestLevel(ids: readonly string[]): Level {
  const levels = ids.map((id) => byId.get(id)?.level);
  if (levels.includes('MUST')) return 'MUST';
  if (levels.includes('SHOULD')) return 'SHOULD';
  return 'NOT-CHECKABLE';
}
