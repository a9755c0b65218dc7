import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/devnet/dist.js';
import { currentFigures, quotedFigures, writeFigures } from './figures.js';

// `npm run docs:figures` runs this file with SANDBOX_WRITE_FIGURES=1: it rewrites the quoted figures first, the way
// `vitest -u` rewrites snapshots, and the checks below then hold.
if (process.env.SANDBOX_WRITE_FIGURES === '1') {
  const changed = writeFigures(ROOT);
  console.log(changed.length === 0 ? 'docs figures: all current' : `docs figures rewritten in ${changed.join(', ')}`);
}

describe('figures quoted in README.md and docs/', () => {
  it('every quoted figure names a figure the code computes', () => {
    const unknown = quotedFigures(ROOT).filter((figure) => figure.current === undefined);
    expect(unknown.map((figure) => `${figure.doc}: fig:${figure.name}`)).toEqual([]);
  });

  it('every quoted figure equals what the catalogues hold today (run `npm run docs:figures` after changing them)', () => {
    const stale = quotedFigures(ROOT).filter((figure) => figure.current !== undefined && figure.quoted !== String(figure.current));
    expect(stale.map((figure) => `${figure.doc}: fig:${figure.name} says ${figure.quoted}, is ${figure.current}`)).toEqual([]);
  });

  it('the README quotes the counts a newcomer reads first', () => {
    const names = new Set(quotedFigures(ROOT, ['README.md']).map((figure) => figure.name));
    for (const name of ['scenarios', 'conformance-checks', 'requirements']) expect(names).toContain(name);
  });

  it('the figures are real counts of the catalogues (not zero, consistent with each other)', () => {
    const figures = currentFigures();
    expect(figures.scenarios).toBeGreaterThan(0);
    expect(figures['requirements-must'] + figures['requirements-should'] + figures['requirements-not-checkable']).toBe(
      figures.requirements,
    );
    expect(figures['fault-catalogue-http'] + figures['fault-catalogue-ws'] + figures['fault-catalogue-webhook']).toBe(
      figures['fault-catalogue'],
    );
    expect(figures['conformance-checks-a']).toBeLessThanOrEqual(figures['conformance-checks']);
  });
});
