import { describe, expect, it } from 'vitest';
import { FAULT_CATALOGUE } from '../test/support/conformance/fault-catalogue.js';
import { runCatalogue, survivorsText } from '../test/support/conformance/catalogue-run.js';

/**
 * The suite must see what a deployment gets wrong and nothing else: the HTTP faults and benign variants of the catalogue,
 * each put by the fault proxy between the suite and our correct sandbox (the catalogue is split in two files so
 * both halves run in parallel).
 */
describe('fault catalogue: HTTP faults and benign variants', () => {
  it('the suite reports every fault and raises no false alarm', async () => {
    const entries = FAULT_CATALOGUE.filter((e) => e.channel === 'http');
    const figures = await runCatalogue('http', entries, 3);
    expect(figures.falseAlarms).toEqual([]);
    expect(figures.survivors, survivorsText(figures)).toEqual([]);
  }, 600_000);
});

describe('fault catalogue: size', () => {
  it('holds at least 100 faults across HTTP, WebSocket and webhook deliveries (15 under profile B), and 10 benign variants', () => {
    const faults = FAULT_CATALOGUE.filter((e) => !e.benign);
    const benign = FAULT_CATALOGUE.filter((e) => e.benign);
    expect(faults.length).toBeGreaterThanOrEqual(100);
    expect(faults.filter((e) => e.profile === 'B').length).toBeGreaterThanOrEqual(15);
    expect(benign.length).toBeGreaterThanOrEqual(10);
    expect(new Set(faults.map((e) => e.channel))).toEqual(new Set(['http', 'ws', 'webhook']));
    expect(new Set(benign.map((e) => e.channel))).toEqual(new Set(['http', 'ws', 'webhook']));
    const names = FAULT_CATALOGUE.map((e) => e.fault.name);
    expect(new Set(names).size).toBe(names.length);
  });
});
