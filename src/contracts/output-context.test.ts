import { encodePacked } from 'viem';
import { describe, expect, it } from 'vitest';
import { addressToBytes32 } from './order.js';
import { exclusiveLimitContext, readOutputContext } from './output-context.js';

const SOLVER = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';

describe('output contexts (OIF order types)', () => {
  it('writes the exclusive limit order 0xe0 ‖ bytes32(solver) ‖ uint32(until), and reads it back', () => {
    const context = exclusiveLimitContext({ solver: SOLVER, until: 1_800_000_000 });
    expect(context).toHaveLength(2 + 2 * (1 + 32 + 4));
    expect(readOutputContext(context)).toEqual({
      kind: 'exclusive',
      type: '0xe0',
      exclusiveFor: addressToBytes32(SOLVER).toLowerCase(),
      until: 1_800_000_000,
    });
  });

  it('writes the empty limit order without exclusivity, and reads 0x and 0x00 as limit orders', () => {
    expect(exclusiveLimitContext(null)).toBe('0x');
    expect(readOutputContext('0x')).toEqual({ kind: 'limit' });
    expect(readOutputContext('0x00')).toEqual({ kind: 'limit' });
  });

  it('reads the exclusive Dutch auction (0xe1: exclusive until its start time), the Dutch auction and unknown types', () => {
    const e1 = encodePacked(
      ['bytes1', 'bytes32', 'uint32', 'uint32', 'uint256'],
      ['0xe1', addressToBytes32(SOLVER), 1_700_000_100, 1_700_000_200, 5n],
    );
    expect(readOutputContext(e1)).toMatchObject({ kind: 'exclusive', type: '0xe1', until: 1_700_000_100 });
    const dutch = encodePacked(['bytes1', 'uint32', 'uint32', 'uint256'], ['0x01', 1, 2, 3n]);
    expect(readOutputContext(dutch)).toEqual({ kind: 'dutch' });
    expect(readOutputContext('0x7f00')).toEqual({ kind: 'unknown', type: '0x7f' });
    // Too short to hold its solver and deadline: not read as exclusive.
    expect(readOutputContext('0xe0ff')).toEqual({ kind: 'unknown', type: '0xe0' });
  });
});
