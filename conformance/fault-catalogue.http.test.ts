import { describe, expect, it } from 'vitest';
import { FAULT_CATALOGUE } from '../test/support/conformance/fault-catalogue.js';
import { runCatalogue } from '../test/support/conformance/catalogue-run.js';

/**
 * The suite must see what a deployment gets wrong and nothing else: the HTTP faults and benign variants of the catalogue,
 * each put by the fault proxy between the suite and our correct sandbox (the catalogue is split in two files so
 * both halves run in parallel).
 */
describe('fault catalogue: HTTP faults and benign variants', () => {
  it('the suite reports ≥ 95 % of the faults and raises no false alarm', async () => {
    const entries = FAULT_CATALOGUE.filter((e) => e.channel === 'http');
    const figures = await runCatalogue('http', entries, 3);
    expect(figures.falseAlarms).toEqual([]);
    expect(figures.killRate, `survivors: ${figures.survivors.join(', ')}`).toBeGreaterThanOrEqual(0.95);
  }, 600_000);
});

describe('fault catalogue: size', () => {
  it('holds at least 40 faults across HTTP, WebSocket and webhook deliveries, and benign variants', () => {
    const faults = FAULT_CATALOGUE.filter((e) => !e.benign);
    expect(faults.length).toBeGreaterThanOrEqual(40);
    expect(new Set(faults.map((e) => e.channel))).toEqual(new Set(['http', 'ws', 'webhook']));
    expect(new Set(FAULT_CATALOGUE.filter((e) => e.benign).map((e) => e.channel))).toEqual(new Set(['http', 'ws', 'webhook']));
    expect(new Set(faults.map((e) => e.fault.name)).size).toBe(faults.length);
  });
});
