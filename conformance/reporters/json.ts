import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ConformanceReport } from '../core/report.js';

export function writeJsonReport(report: ConformanceReport, path: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(report, null, 2)}\n`);
}
