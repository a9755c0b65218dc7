/**
 * Runs part of the fault catalogue against our own sandbox through the fault proxy and judges the suite: a fault
 * is killed when a check of its area reports it (FAILED for a MUST, WARNING for a SHOULD), a benign variant or a
 * faultless run that reports anything is a false alarm. Figures go to test-artifacts/fault-catalogue-<part>.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { runConformance } from '../../../conformance/run.js';
import type { SandboxFile } from '../../../conformance/deployment/sandbox-file.js';
import { FaultProxy } from './fault-proxy.js';
import { resetCatalogueState, type CatalogueEntry } from './fault-catalogue.js';
import { startOwnSandbox } from './own-sandbox.js';

export interface Verdict {
  name: string;
  channel: string;
  benign: boolean;
  area: string[];
  ms: number;
  /** Checks that reported the fault: `id STATUS`. */
  reported: string[];
  reasons: string[];
}

export interface CatalogueFigures {
  part: string;
  faults: number;
  killed: number;
  killRate: number;
  survivors: string[];
  benignRuns: number;
  falseAlarms: string[];
  ms: number;
  verdicts: Verdict[];
}

/**
 * Runs `entries` in `lanes` independent lanes, each with its own sandbox and proxy (entry i goes to lane i mod
 * lanes): a fault mostly makes the suite wait for what never comes, so lanes overlap those waits.
 */
export async function runCatalogue(part: string, entries: readonly CatalogueEntry[], lanes = 1): Promise<CatalogueFigures> {
  const started = Date.now();
  const verdicts: Verdict[] = [];
  const parts = Array.from({ length: lanes }, (_, lane) => entries.filter((_e, i) => i % lanes === lane));
  await Promise.all(parts.map((laneEntries) => runLane(laneEntries, verdicts)));
  return figuresOf(part, verdicts, started);
}

async function runLane(entries: readonly CatalogueEntry[], verdicts: Verdict[]): Promise<void> {
  const own = await startOwnSandbox();
  const proxy = await FaultProxy.start(own.url);
  try {
    const sandbox: SandboxFile = { ...own.file, api: { ...own.file.api, url: proxy.url } };
    const judge = async (entry: CatalogueEntry | undefined, area: string[]) => {
      resetCatalogueState();
      proxy.fault = entry?.fault;
      const at = Date.now();
      const outcome = await runConformance({ profile: 'A', sandbox, seed: 11, selection: { only: area } });
      const reported = outcome.report.results.filter((r) => r.status === 'FAILED' || r.status === 'WARNING');
      verdicts.push({
        name: entry?.fault.name ?? `no fault (${area.join(', ')})`,
        channel: entry?.channel ?? 'none',
        benign: entry === undefined || entry.benign === true,
        area,
        ms: Date.now() - at,
        reported: reported.map((r) => `${r.id} ${r.status}`),
        reasons: reported.map((r) => `${r.id}: ${r.message}`.slice(0, 300)),
      });
    };
    // Each area once without a fault first: what it reports there is not the faults' doing.
    for (const area of new Set(entries.map((e) => e.area.join(',')))) await judge(undefined, area.split(','));
    for (const entry of entries) await judge(entry, entry.area);
  } finally {
    await proxy.stop();
    await own.stop();
  }
}

function figuresOf(part: string, verdicts: Verdict[], started: number): CatalogueFigures {
  const faults = verdicts.filter((v) => !v.benign);
  const killed = faults.filter((v) => v.reported.length > 0);
  const figures: CatalogueFigures = {
    part,
    faults: faults.length,
    killed: killed.length,
    killRate: faults.length === 0 ? 1 : killed.length / faults.length,
    survivors: faults.filter((v) => v.reported.length === 0).map((v) => v.name),
    benignRuns: verdicts.length - faults.length,
    falseAlarms: verdicts.filter((v) => v.benign && v.reported.length > 0).map((v) => `${v.name}: ${v.reasons.join(' | ')}`),
    ms: Date.now() - started,
    verdicts,
  };
  // Files are written from one process per part, so a plain write is enough.
  mkdirSync('test-artifacts', { recursive: true });
  writeFileSync(`test-artifacts/fault-catalogue-${part}.json`, `${JSON.stringify(figures, null, 2)}\n`);
  console.log(
    `fault catalogue (${part}): ${figures.killed}/${figures.faults} killed (${(figures.killRate * 100).toFixed(1)} %), ` +
      `${figures.falseAlarms.length} false alarms in ${figures.benignRuns} faultless and benign runs, ${(figures.ms / 1000).toFixed(0)} s; ` +
      `survivors: ${figures.survivors.join(', ') || 'none'}`,
  );
  return figures;
}
