import { describe, expect, it } from 'vitest';
import type { RfqDetails } from '../clients/solver-stream-client.js';
import { priceRfq, solverNameFromSeed, strategyFromSeed, type PricingStrategy } from './strategy.js';

const rfq = (overrides: Partial<RfqDetails> = {}): RfqDetails => ({
  id: 'rfq_x',
  pair: 'USDC/USDC',
  side: 'sell',
  amount: '25000',
  corridor: 'alpha:USDC-beta:USDC',
  deadline: 0,
  complianceAttestation: null,
  originChainId: 31_337,
  destinationChainId: 31_338,
  inputToken: '0x01',
  outputToken: '0x02',
  inputDecimals: 6,
  outputDecimals: 6,
  inputAmount: '25000000000',
  swapType: 'exactInput',
  lockTypes: ['Permit2Escrow'],
  lockType: 'Permit2Escrow',
  settlementPath: 'direct',
  fillDeadline: 0,
  expires: 0,
  respondBy: new Date(0).toISOString(),
  minOutputAmount: '24500000000',
  ...overrides,
});

const strategy: PricingStrategy = { marginBps: 4, gasCost: 0.5, latencyMs: 0, inventory: 1_000_000, confidence: 1 };
const plenty = 10n ** 30n;

describe('reference solver pricing', () => {
  it('the same seed gives the same strategies and names; another seed differs', () => {
    expect(strategyFromSeed(1, 0)).toEqual(strategyFromSeed(1, 0));
    expect(solverNameFromSeed(1, 2)).toBe(solverNameFromSeed(1, 2));
    expect(strategyFromSeed(1, 0)).not.toEqual(strategyFromSeed(2, 0));
    const s = strategyFromSeed(42, 1);
    expect(s.marginBps).toBeGreaterThanOrEqual(1);
    expect(s.marginBps).toBeLessThanOrEqual(12);
    expect(s.latencyMs).toBeLessThanOrEqual(25);
  });

  it('exactInput: input less margin less gas, in output units', () => {
    // 25,000 × (1 − 4 bp) − 0.50 = 24,989.50
    expect(priceRfq(strategy, rfq(), plenty)).toEqual({ outputAmount: '24989500000' });
    // 18-decimal output: the same price scaled.
    expect(priceRfq(strategy, rfq({ outputDecimals: 18, minOutputAmount: undefined }), plenty)).toEqual({
      outputAmount: `24989500000${'0'.repeat(12)}`,
    });
  });

  it('exactOutput: the input needed, rounded up', () => {
    const quote = priceRfq(
      strategy,
      rfq({ swapType: 'exactOutput', inputAmount: undefined, outputAmount: '25000000000', minOutputAmount: undefined }),
      plenty,
    );
    // (25,000 + 0.50) / (1 − 4 bp) = 25,010.5042... → rounded up to the unit.
    expect(quote).toEqual({ inputAmount: '25010504202' });
  });

  it('declines beyond its inventory or outside the RFQ limits', () => {
    expect(priceRfq(strategy, rfq(), 24_000_000_000n)).toBeUndefined();
    expect(priceRfq({ ...strategy, marginBps: 300 }, rfq(), plenty)).toBeUndefined();
    expect(
      priceRfq(
        strategy,
        rfq({ swapType: 'exactOutput', inputAmount: undefined, outputAmount: '25000000000', maxInputAmount: '25000000000' }),
        plenty,
      ),
    ).toBeUndefined();
  });
});
