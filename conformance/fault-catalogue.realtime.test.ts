import { describe, expect, it } from 'vitest';
import { FAULT_CATALOGUE } from '../test/support/conformance/fault-catalogue.js';
import { runCatalogue, survivorsText } from '../test/support/conformance/catalogue-run.js';

/**
 * The suite must see what a deployment gets wrong and nothing else: the WebSocket and webhook faults and benign variants of the catalogue,
 * each put by the fault proxy between the suite and our correct sandbox (the catalogue is split in two files so
 * both halves run in parallel).
 */
describe('fault catalogue: WebSocket and webhook faults and benign variants', () => {
  it('the suite reports every fault and raises no false alarm', async () => {
    const entries = FAULT_CATALOGUE.filter((e) => e.channel !== 'http');
    const figures = await runCatalogue('realtime', entries, 3);
    expect(figures.falseAlarms).toEqual([]);
    expect(figures.survivors, survivorsText(figures)).toEqual([]);
  }, 600_000);
});
