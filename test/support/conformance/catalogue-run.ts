/**
 * Runs part of the fault catalogue against our own sandbox through the fault proxy and judges the suite: a fault
 * is killed when a check of its area reports it (FAILED for a MUST, WARNING for a SHOULD), a benign variant or a
 * faultless run that reports anything is a false alarm. Figures go to test-artifacts/fault-catalogue-<part>.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { runConformance } from '../../../conformance/run.js';
import type { SandboxFile } from '../../../conformance/deployment/sandbox-file.js';
import { FaultProxy } from './fault-proxy.js';
import type { CatalogueEntry } from './fault-catalogue.js';
import { startOwnSandbox } from './own-sandbox.js';

export interface Verdict {
  name: string;
  channel: string;
  profile: 'A' | 'B';
  benign: boolean;
  area: string[];
  ms: number;
  /** Checks that reported the fault: `id STATUS`. */
  reported: string[];
  reasons: string[];
  /** Conformance runs it took: a fault no check reported is run once more before it counts as a survivor. */
  runs: number;
  /**
   * Checks of its area its last run skipped, `id: why`: a survivor whose checks were skipped was not looked at, which
   * is a different finding from one the checks looked at and passed.
   */
  skipped: string[];
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

/** One conformance run to judge: a fault of the catalogue, or none (the area as it is, for false alarms). */
interface Job {
  entry: CatalogueEntry | undefined;
  area: string[];
  profile: 'A' | 'B';
}

/**
 * Runs `entries` in `lanes` independent lanes, each with its own sandbox and proxy, taking jobs from one queue: a
 * fault mostly makes the suite wait for what never comes (a missing acknowledgement waits out every timeout), so
 * lanes overlap those waits, and a lane that drew a long one does not hold up the jobs behind it.
 */
export async function runCatalogue(part: string, entries: readonly CatalogueEntry[], lanes = 1): Promise<CatalogueFigures> {
  const started = Date.now();
  const verdicts: Verdict[] = [];
  // Each area once without a fault first: what it reports there is not the faults' doing.
  const areaKey = (e: CatalogueEntry) => `${e.profile ?? 'A'}|${e.area.join(',')}`;
  const queue: Job[] = [
    ...[...new Set(entries.map(areaKey))].map((key) => {
      const [profile, area] = key.split('|') as ['A' | 'B', string];
      return { entry: undefined, area: area.split(','), profile };
    }),
    ...entries.map((entry): Job => ({ entry, area: entry.area, profile: entry.profile ?? 'A' })),
  ];
  await Promise.all(Array.from({ length: Math.min(lanes, queue.length) }, () => runLane(queue, verdicts)));
  return figuresOf(part, verdicts, started);
}

async function runLane(queue: Job[], verdicts: Verdict[]): Promise<void> {
  const own = await startOwnSandbox();
  await solversAnswering(own.url);
  const proxy = await FaultProxy.start(own.url);
  try {
    const sandbox: SandboxFile = { ...own.file, api: { ...own.file.api, url: proxy.url } };
    for (let job = queue.shift(); job !== undefined; job = queue.shift()) {
      const { entry, area, profile } = job;
      proxy.fault = entry?.fault;
      const at = Date.now();
      // A run the suite refuses to finish (the target stops answering, exit 2) has noticed the fault too.
      let skipped: string[] = [];
      const judge = async () => {
        const outcome = await runConformance({ profile, sandbox, seed: 11, selection: { only: area } }).catch((error: Error) => error);
        if (outcome instanceof Error) return [{ id: 'run', status: 'ERROR', message: outcome.message }];
        skipped = outcome.report.results.filter((r) => r.status === 'SKIPPED').map((r) => `${r.id}: ${r.message}`.slice(0, 300));
        return outcome.report.results.filter((r) => r.status === 'FAILED' || r.status === 'WARNING');
      };
      let reported = await judge();
      let runs = 1;
      // A fault must survive two runs to count as a survivor: one of the realtime part's faults (an rfq.created
      // naming another RFQ) once went unreported in a fresh-clone CI run (its run as quick as the others), where every
      // earlier CI run had reported it. The summary names the faults only a second run reported.
      // A benign run is judged once: a false alarm is one whenever it happens.
      if (reported.length === 0 && entry !== undefined && entry.benign !== true) {
        reported = await judge();
        runs = 2;
      }
      verdicts.push({
        name: entry?.fault.name ?? `no fault (${area.join(', ')}, profile ${profile})`,
        channel: entry?.channel ?? 'none',
        profile,
        benign: entry === undefined || entry.benign === true,
        area,
        ms: Date.now() - at,
        reported: reported.map((r) => `${r.id} ${r.status}`),
        reasons: reported.map((r) => `${r.id}: ${r.message}`.slice(0, 300)),
        runs,
        skipped,
      });
    }
  } finally {
    await proxy.stop();
    await own.stop();
  }
}

/**
 * Waits until the sandbox's solvers answer a quote: lanes start their sandboxes together, and on a busy machine the
 * first auction windows can close before a freshly started solver answers, which is no fault of anything judged.
 */
async function solversAnswering(url: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const corridors = (await (await fetch(`${url}/api/v1/corridors`)).json()) as {
    corridors?: Array<{
      solverCount: number;
      minNotional: string;
      originChainId: number;
      destinationChainId: number;
      inputToken: { address: string };
      outputToken: { address: string };
    }>;
  };
  const corridor = corridors.corridors?.find((c) => c.solverCount > 0);
  if (corridor === undefined) return;
  const body = JSON.stringify({
    inputToken: corridor.inputToken.address,
    outputToken: corridor.outputToken.address,
    inputAmount: ((BigInt(corridor.minNotional) * 11n) / 10n).toString(),
    originChainId: corridor.originChainId,
    destinationChainId: corridor.destinationChainId,
  });
  while (Date.now() < deadline) {
    const response = await fetch(`${url}/api/v1/quotes`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
    if (response.status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Each survivor with how long its runs took and what they skipped: the assertion's message when one is left. */
export function survivorsText(figures: CatalogueFigures): string {
  return figures.verdicts
    .filter((v) => !v.benign && v.reported.length === 0)
    .map((v) => `${v.name} (${v.runs} runs, ${v.ms} ms; skipped: ${v.skipped.join(' | ') || 'none'})`)
    .join('\n');
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
      `survivors: ${figures.survivors.join(', ') || 'none'}; reported only by a second run: ` +
      `${
        killed
          .filter((v) => v.runs > 1)
          .map((v) => v.name)
          .join(', ') || 'none'
      }`,
  );
  return figures;
}
