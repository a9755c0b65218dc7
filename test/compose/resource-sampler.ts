import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** What one part of the composition used while sampled: CPU in percent of one core, memory in MiB. */
export interface PartUsage {
  samples: number;
  cpuMeanPercent: number;
  cpuPeakPercent: number;
  memoryPeakMiB: number;
}

/** `12.5MiB / 23.5GiB` → 12.5 (the usage side of `docker stats`' MemUsage). */
function mebibytes(usage: string): number {
  const match = /^([\d.]+)\s*([KMG]i?B|B)/.exec(usage.trim());
  if (!match) return Number.NaN;
  const scale: Record<string, number> = { B: 1 / 1_048_576, KiB: 1 / 1_024, KB: 1 / 1_024, MiB: 1, MB: 1, GiB: 1_024, GB: 1_024 };
  return Number(match[1]) * (scale[match[2]!] ?? Number.NaN);
}

/**
 * Samples `docker stats` of the composition's containers back to back (each call takes the engine about a second)
 * until stopped: the figures of what a replica costs under load and at rest in docs/deployment.md.
 */
export class ResourceSampler {
  private readonly usage = new Map<string, { cpu: number[]; memory: number[] }>();
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly docker: string,
    /** Service name by container id. */
    private readonly parts: ReadonlyMap<string, string>,
  ) {}

  start(): this {
    this.stopped = false;
    this.running = this.loop();
    return this;
  }

  async stop(): Promise<Record<string, PartUsage>> {
    this.stopped = true;
    await this.running;
    const result: Record<string, PartUsage> = {};
    for (const [name, { cpu, memory }] of this.usage) {
      const round = (n: number) => Math.round(n * 10) / 10;
      result[name] = {
        samples: cpu.length,
        cpuMeanPercent: round(cpu.reduce((a, b) => a + b, 0) / Math.max(cpu.length, 1)),
        cpuPeakPercent: round(Math.max(...cpu)),
        memoryPeakMiB: round(Math.max(...memory)),
      };
    }
    this.usage.clear();
    return result;
  }

  private async loop(): Promise<void> {
    const ids = [...this.parts.keys()];
    while (!this.stopped) {
      // A container that is down (killed mid-run) is left out of the answer, not an error of the sampling.
      const answer = await run(this.docker, ['stats', '--no-stream', '--format', '{{.ID}}\t{{.CPUPerc}}\t{{.MemUsage}}', ...ids], {
        encoding: 'utf8',
      }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
      for (const line of answer.stdout.split('\n')) {
        const [id, cpu, memory] = line.split('\t');
        if (!id || cpu === undefined || memory === undefined) continue;
        const name = [...this.parts.entries()].find(([full]) => full.startsWith(id))?.[1];
        const cpuPercent = Number.parseFloat(cpu);
        const mib = mebibytes(memory);
        if (name === undefined || Number.isNaN(cpuPercent) || Number.isNaN(mib) || mib === 0) continue;
        const entry = this.usage.get(name) ?? { cpu: [], memory: [] };
        entry.cpu.push(cpuPercent);
        entry.memory.push(mib);
        this.usage.set(name, entry);
      }
    }
  }
}
