import { describe, expect, it } from 'vitest';
import type { ChainInfo } from '../../contracts/deployment.js';
import { ConfigError, resolveServiceConfig } from '../config.js';
import { sampleChains, startTestService } from '../../../test/support/service/service.js';
import { buildCorridors, CorridorCatalogue } from './catalogue.js';

const options = { minNotionalUsd: 10_000, maxNotionalUsd: 1_000_000, oracleContract: 'InputOracle' };

function threeChains(): ChainInfo[] {
  const [alpha, beta] = sampleChains();
  const gamma: ChainInfo = {
    ...beta!,
    name: 'gamma',
    chainId: 31_337_003,
    tokens: [
      { symbol: 'USDC', name: 'USDC', address: '0x00000000000000000000000000000000000000c3', decimals: 18, eip3009: false },
      { symbol: 'USDT', name: 'USDT', address: '0x00000000000000000000000000000000000000d3', decimals: 6, eip3009: false },
    ],
  };
  return [alpha!, beta!, gamma];
}

describe('corridor catalogue', () => {
  it('has one corridor per ordered chain pair and shared symbol', () => {
    const ids = buildCorridors(threeChains(), options).map((c) => c.id);
    expect(ids).toEqual([
      'alpha:USDC-beta:USDC',
      'alpha:USDC-gamma:USDC',
      'alpha:USDT-gamma:USDT',
      'beta:USDC-alpha:USDC',
      'beta:USDC-gamma:USDC',
      'gamma:USDC-alpha:USDC',
      'gamma:USDT-alpha:USDT',
      'gamma:USDC-beta:USDC',
    ]);
  });

  it('states tokens, bounds in the input token units, oracle and lock types', () => {
    const corridors = buildCorridors(threeChains(), options);
    const alphaBeta = corridors.find((c) => c.id === 'alpha:USDC-beta:USDC')!;
    expect(alphaBeta).toEqual({
      id: 'alpha:USDC-beta:USDC',
      originChainId: 31_337_001,
      destinationChainId: 31_337_002,
      inputToken: { address: '0x00000000000000000000000000000000000000c1', symbol: 'USDC', decimals: 6 },
      outputToken: { address: '0x00000000000000000000000000000000000000c2', symbol: 'USDC', decimals: 6 },
      minNotional: '10000000000',
      maxNotional: '1000000000000',
      oracle: '0x00000000000000000000000000000000000000a1',
      lockTypes: ['Permit2Escrow', 'ResourceLock', 'EIP3009Escrow'],
    });
    const usdt = corridors.find((c) => c.id === 'alpha:USDT-gamma:USDT')!;
    expect(usdt.lockTypes).toEqual(['Permit2Escrow', 'ResourceLock']);
    const eighteen = corridors.find((c) => c.id === 'gamma:USDC-alpha:USDC')!;
    expect(eighteen.minNotional).toBe('10000' + '0'.repeat(18));
    expect(eighteen.lockTypes).toEqual(['Permit2Escrow', 'ResourceLock']);
  });

  it('reports the live solver count from its provider', () => {
    const counts = new Map([['alpha:USDC-beta:USDC', 3]]);
    const catalogue = new CorridorCatalogue(sampleChains(), { ...options, solverCount: (id) => counts.get(id) ?? 0 });
    expect(catalogue.get('alpha:USDC-beta:USDC')!.solverCount).toBe(3);
    counts.set('alpha:USDC-beta:USDC', 4);
    expect(catalogue.list().find((c) => c.id === 'alpha:USDC-beta:USDC')!.solverCount).toBe(4);
    catalogue.setSolverCount(() => 7);
    expect(catalogue.get('beta:USDC-alpha:USDC')!.solverCount).toBe(7);
    expect(catalogue.get('nope')).toBeUndefined();
    const found = catalogue.find(
      31_337_001,
      '0x00000000000000000000000000000000000000C1',
      31_337_002,
      '0x00000000000000000000000000000000000000c2',
    );
    expect(found?.id).toBe('alpha:USDC-beta:USDC');
    expect(
      catalogue.find(31_337_001, '0x00000000000000000000000000000000000000d1', 31_337_002, '0x00000000000000000000000000000000000000c2'),
    ).toBeUndefined();
  });

  it('names the missing oracle contract', () => {
    const chains = sampleChains().map((chain) => ({ ...chain, contracts: { Permit2: chain.contracts.Permit2! } }));
    expect(() => buildCorridors(chains, options)).toThrow(ConfigError);
    expect(() => buildCorridors(chains, options)).toThrow(/InputOracle.*Permit2/);
  });

  it('is served at GET /api/v1/corridors with the live solver count of the auction', async () => {
    const t = await startTestService({ chains: sampleChains(), corridors: { maxNotionalUsd: 50_000 } });
    try {
      const response = await t.request('GET', '/api/v1/corridors', { key: null });
      expect(response.status).toBe(200);
      expect(response.body.corridors.map((c: { id: string }) => c.id)).toEqual(['alpha:USDC-beta:USDC', 'beta:USDC-alpha:USDC']);
      expect(response.body.corridors[0]).toMatchObject({ solverCount: 0, maxNotional: '50000000000' });
    } finally {
      await t.stop();
    }
  });
});

describe('service config', () => {
  const base = { environment: 'sandbox' as const, chains: sampleChains() };

  it('applies the spec defaults', () => {
    const config = resolveServiceConfig(base);
    expect(config).toMatchObject({
      storePath: ':memory:',
      host: '127.0.0.1',
      port: 0,
      rateLimit: { credential: { perSecond: 100, burst: 1_000 }, anonymous: { perSecond: 100, burst: 1_000 } },
      idempotencyTtlMs: 86_400_000,
      keyRotationGraceMs: 86_400_000,
      bodyLimitBytes: 102_400,
      corridors: { minNotionalUsd: 10_000, maxNotionalUsd: 1_000_000, oracleContract: 'InputOracle' },
      version: 'v1',
    });
  });

  it.each([
    [{ environment: 'staging' }, /environment/],
    [{ port: 70_000 }, /port/],
    [{ rateLimit: { perSecond: 10, burst: 5 } }, /burst/],
    [{ rateLimit: { perSecond: 0 } }, /rateLimit/],
    [{ idempotencyTtlMs: -1 }, /idempotencyTtlMs/],
    [{ corridors: { minNotionalUsd: 10, maxNotionalUsd: 5 } }, /maxNotionalUsd/],
    [{ auth: { jwtSecret: 'short' } }, /jwtSecret/],
    [{ chains: [...sampleChains(), sampleChains()[0]!] }, /appears twice/],
    [{ chains: [{ ...sampleChains()[0]!, name: 'Alpha Chain' }] }, /lowercase/],
  ])('rejects bad setting #%# (%s)', (override, message) => {
    expect(() => resolveServiceConfig({ ...base, ...(override as object) })).toThrow(message);
  });
});
