import { describe, expect, it } from 'vitest';
import { buildJourney, timelineFromSettlement } from './journey.js';
import type { OrderView } from './orders.js';

const chains = [
  { name: 'alpha', chainId: 31337 },
  { name: 'beta', chainId: 31338 },
];
const base: OrderView = { id: 'ord_1', originChainId: 31337, destinationChainId: 31338, createdAt: Date.UTC(2030, 0, 1) };
const tx = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;

describe('buildJourney', () => {
  it('places each stage on its chain: the fill on the destination, the rest on the origin', () => {
    const steps = buildJourney(
      {
        ...base,
        status: 'Claimed',
        originTxHash: tx(1),
        destinationTxHash: tx(2),
        oracleAttestationHash: tx(3),
        settledAt: Date.UTC(2030, 0, 1, 0, 1),
      },
      [],
      chains,
    );
    expect(steps.map((s) => [s.stage, s.state, s.chain?.name, s.txHash])).toEqual([
      ['rfq', 'done', undefined, undefined],
      ['deposited', 'done', 'alpha', tx(1)],
      ['filled', 'done', 'beta', tx(2)],
      ['attested', 'done', 'alpha', tx(3)],
      ['claimed', 'done', 'alpha', undefined],
    ]);
    expect(steps[4]!.at).toBe(Date.UTC(2030, 0, 1, 0, 1));
  });

  it('prefers the settlement timeline (times, hashes, blocks, chains) over what the order detail implies', () => {
    const timeline = timelineFromSettlement({
      timeline: [
        { stage: 'rfq', at: '2030-01-01T00:00:00.000Z' },
        { stage: 'deposited', at: '2030-01-01T00:00:01.000Z', txHash: tx(1), blockNumber: 7 },
        { stage: 'filled', at: '2030-01-01T00:00:02.000Z', txHash: tx(2), chainId: 31338, block: '0x9' },
        { stage: 'attested', at: '2030-01-01T00:00:03.000Z', txHash: tx(3), oracleHash: tx(4) },
        { stage: 'bogus', at: 'x' },
      ],
    });
    expect(timeline).toHaveLength(4);
    const steps = buildJourney({ ...base, status: 'Attested' }, timeline, chains);
    expect(steps.map((s) => [s.stage, s.state, s.blockNumber])).toEqual([
      ['rfq', 'done', undefined],
      ['deposited', 'done', 7],
      ['filled', 'done', 9],
      ['attested', 'done', undefined],
      ['claimed', 'pending', undefined],
    ]);
    expect(steps[3]!.oracleHash).toBe(tx(4));
    expect(steps[2]!.at).toBe(Date.UTC(2030, 0, 1, 0, 0, 2));
    expect(steps[4]!.note).toMatch(/claim/);
  });

  it('notes what the first pending step waits for, and only that one', () => {
    const steps = buildJourney({ ...base, status: 'Deposited', originTxHash: tx(1), fillDeadline: Date.UTC(2030, 0, 1, 1) }, [], chains);
    expect(steps.map((s) => s.state)).toEqual(['done', 'done', 'pending', 'pending', 'pending']);
    expect(steps[2]!.note).toMatch(/fill deadline 2030-01-01T01:00:00.000Z/);
    expect(steps[3]!.note).toBeUndefined();
  });

  it('ends a refunded order in a refund on the origin chain, the unreached stages skipped', () => {
    const steps = buildJourney(
      { ...base, status: 'Refunded', originTxHash: tx(1), refundTxHash: tx(5) },
      [{ stage: 'refunded', at: Date.UTC(2030, 0, 2) }],
      chains,
    );
    expect(steps.map((s) => [s.stage, s.state])).toEqual([
      ['rfq', 'done'],
      ['deposited', 'done'],
      ['filled', 'skipped'],
      ['attested', 'skipped'],
      ['refunded', 'done'],
    ]);
    expect(steps[4]).toMatchObject({ chain: { name: 'alpha' }, txHash: tx(5), at: Date.UTC(2030, 0, 2) });
    expect(steps.some((s) => s.stage === 'claimed')).toBe(false);
  });

  it('names unknown chains by id', () => {
    const steps = buildJourney({ ...base, status: 'Deposited', originChainId: 5 }, [], chains);
    expect(steps[1]!.chain).toEqual({ name: 'chain 5', chainId: 5 });
  });
});
