import { describe, expect, it } from 'vitest';
import { EscrowLedger } from './escrow-accounting.js';

const USDC = '0x00000000000000000000000000000000000000aa';
const USDT = '0x00000000000000000000000000000000000000bb';

describe('escrow accounting', () => {
  it('holds while every opened amount is claimed, refunded or still held', () => {
    const ledger = new EscrowLedger();
    ledger.open('0x01', '0xuser', [[USDC, 100n]]);
    ledger.open('0x02', '0xuser', [
      [USDC, 50n],
      [USDT, 7n],
    ]);
    expect(ledger.check(USDC, 150n, 0n)).toBeUndefined();
    ledger.close('0x01', 'claimed');
    ledger.close('0x02', 'refunded');
    expect(ledger.check(USDC, 0n, 0n)).toBeUndefined();
    expect(ledger.check(USDT, 0n, 0n)).toBeUndefined();
    expect(ledger.totals.get(USDC)).toEqual({ escrowed: 150n, claimed: 100n, refunded: 50n });
  });

  it('names a balance that does not match (missing or extra funds)', () => {
    const ledger = new EscrowLedger();
    ledger.open('0x01', '0xuser', [[USDC, 100n]]);
    expect(ledger.check(USDC, 99n, 0n)).toMatch(/escrowed 100 ≠ claimed 0 \+ refunded 0 \+ open 99/);
    expect(ledger.check(USDC, 101n, 0n)).toMatch(/open 101/);
    // Funds held before observation began are the baseline, not a discrepancy.
    expect(ledger.check(USDC, 130n, 30n)).toBeUndefined();
  });

  it('flags a second payout and a second open, and counts closings of unknown orders', () => {
    const ledger = new EscrowLedger();
    ledger.open('0x01', '0xuser', [[USDC, 100n]]);
    ledger.open('0x01', '0xuser', [[USDC, 100n]]);
    ledger.close('0x01', 'claimed');
    ledger.close('0x01', 'refunded');
    ledger.close('0x99', 'refunded');
    expect(ledger.problems).toEqual(['order 0x01 was opened twice', 'order 0x01 paid out twice: claimed, then refunded']);
    expect(ledger.unknownClosings).toBe(1);
    expect(ledger.check(USDC, 0n, 0n)).toBeUndefined();
  });
});
