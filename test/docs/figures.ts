import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REQUIREMENTS, allChecks, everyCheck, selectChecks } from '../../conformance/index.js';
import { catalogue } from '../../scenarios/index.js';
import { FAULT_KINDS } from '../../src/contracts/fault-kinds.js';
import { FAULT_CATALOGUE } from '../support/conformance/fault-catalogue.js';

/**
 * The counts the README and docs quote (scenarios, checks, requirements, fault kinds), computed from the code that
 * defines them. In Markdown a figure is written `<!-- fig:NAME -->VALUE<!-- /fig -->`: the comment is invisible
 * when rendered, and `npm run docs:figures` rewrites VALUE; the test beside this file fails when one is stale, so a
 * count in prose cannot drift from the catalogue it counts. Timings are not here: they come from `npm run bench`,
 * whose report regenerates README.md's performance table.
 */
export function currentFigures(): Record<string, number> {
  const levels = (level: string) => REQUIREMENTS.filter((r) => r.level === level).length;
  const faults = FAULT_CATALOGUE.filter((entry) => entry.benign !== true);
  return {
    scenarios: catalogue.length,
    'conformance-checks': everyCheck().length,
    'conformance-checks-a': selectChecks(allChecks(), 'A').length,
    'conformance-checks-b': selectChecks(allChecks(), 'B').length,
    requirements: REQUIREMENTS.length,
    'requirements-must': levels('MUST'),
    'requirements-should': levels('SHOULD'),
    'requirements-not-checkable': levels('NOT-CHECKABLE'),
    'fault-kinds': FAULT_KINDS.length,
    'fault-catalogue': faults.length,
    'fault-catalogue-http': faults.filter((entry) => entry.channel === 'http').length,
    'fault-catalogue-ws': faults.filter((entry) => entry.channel === 'ws').length,
    'fault-catalogue-webhook': faults.filter((entry) => entry.channel === 'webhook').length,
    'fault-catalogue-b': faults.filter((entry) => entry.profile === 'B').length,
    'fault-catalogue-benign': FAULT_CATALOGUE.length - faults.length,
  };
}

/** Markdown files that quote figures. */
export const FIGURE_DOCS = ['README.md', 'docs/conformance.md', 'docs/scenarios.md', 'docs/faults.md', 'docs/reference-b.md'];

const MARKER = /<!-- fig:([a-z0-9-]+) -->([^<]*)<!-- \/fig -->/g;

export interface QuotedFigure {
  doc: string;
  name: string;
  quoted: string;
  current: number | undefined;
}

export function quotedFigures(root: string, docs: readonly string[] = FIGURE_DOCS): QuotedFigure[] {
  const figures = currentFigures();
  return docs.flatMap((doc) =>
    [...readFileSync(join(root, doc), 'utf8').matchAll(MARKER)].map(([, name = '', quoted = '']) => ({
      doc,
      name,
      quoted,
      current: figures[name],
    })),
  );
}

/** Rewrites every quoted figure with its current value; returns the docs it changed. */
export function writeFigures(root: string, docs: readonly string[] = FIGURE_DOCS): string[] {
  const figures = currentFigures();
  const changed: string[] = [];
  for (const doc of docs) {
    const path = join(root, doc);
    const before = readFileSync(path, 'utf8');
    const after = before.replace(MARKER, (whole, name: string) =>
      figures[name] === undefined ? whole : `<!-- fig:${name} -->${figures[name]}<!-- /fig -->`,
    );
    if (after !== before) {
      writeFileSync(path, after);
      changed.push(doc);
    }
  }
  return changed;
}
