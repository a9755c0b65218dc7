import type { RunReport } from '../runner/result.js';

/** The run as JSON (bigints as decimal strings): `--json` on stdout and `--report json=FILE`. */
export function jsonReport(report: RunReport): string {
  return `${JSON.stringify(report, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value), 2)}\n`;
}
