import { privateKeyToAccount, generatePrivateKey } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReferenceSolver, strategyFromSeed } from '../../src/solvers/index.js';
import type { SandboxManifest } from '../../src/contracts/deployment.js';
import { verifyDocument, generateSigningKey } from '../core/signing.js';
import { startOwnSandbox, type OwnSandbox } from '../../test/support/conformance/own-sandbox.js';
import { rpcCall } from '../wire/rpc.js';
import { certifySolver, fundSolver, solverAddressFrom } from './solver.js';

/** The certification sandbox (no reference solver of its own) with the solver under test connecting to it. */
let own: OwnSandbox;

beforeAll(async () => {
  own = await startOwnSandbox({ solvers: 0 });
}, 120_000);
afterAll(async () => {
  await own?.stop();
});

function solverUnderTest(behaviour: ConstructorParameters<typeof ReferenceSolver>[0]['behaviour'], index: number): ReferenceSolver {
  const manifest = own.sandbox.manifest as SandboxManifest;
  return new ReferenceSolver({
    name: `solver-under-test-${index}`,
    serviceUrl: own.url,
    apiKey: own.apiKey,
    chains: manifest.chains,
    account: manifest.accounts.solvers[index]!,
    strategy: strategyFromSeed(99, index),
    behaviour,
  });
}

describe('certify solver', () => {
  it('funds the solver address on every chain (gas and each token)', async () => {
    const address = privateKeyToAccount(generatePrivateKey()).address;
    await fundSolver(own.file, address, 1_000n);
    for (const chain of own.file.chains!) {
      const { result: wei } = await rpcCall<string>(chain.rpcUrl, 'eth_getBalance', [address, 'latest']);
      expect(BigInt(wei!)).toBeGreaterThan(0n);
      for (const token of chain.tokens) {
        const data = `0x70a08231${address.slice(2).toLowerCase().padStart(64, '0')}`;
        const { result } = await rpcCall<string>(chain.rpcUrl, 'eth_call', [{ to: token.address, data }, 'latest']);
        expect(BigInt(result!)).toBe(1_000n * 10n ** BigInt(token.decimals));
      }
    }
    expect(solverAddressFrom(generatePrivateKey())).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(() => solverAddressFrom('not-a-key')).toThrow(/--solver-key/);
  }, 60_000);

  it('certifies an honest solver: quotes, fills before the deadline, claims after attestation, answers pings', async () => {
    const manifest = own.sandbox.manifest as SandboxManifest;
    const solver = solverUnderTest({}, 0);
    await solver.start();
    try {
      const run = await certifySolver({
        url: own.url,
        apiKey: own.apiKey,
        sandbox: own.file,
        solverAddress: manifest.accounts.solvers[0]!.address,
        solverId: solver.solverId,
        rfqs: 2,
        waitMs: 10_000,
        signingKey: generateSigningKey(),
      });
      const failing = run.results.filter((r) => r.status !== 'PASSED').map((r) => `${r.id} ${r.status}: ${r.message}`);
      expect(failing).toEqual([]);
      expect(run.exitCode).toBe(0);
      expect(verifyDocument(run.report)).toMatchObject({ valid: true });
    } finally {
      await solver.stop();
    }
  }, 120_000);

  it('fails a solver that quotes but never fills, on the fill and the claim', async () => {
    const manifest = own.sandbox.manifest as SandboxManifest;
    const solver = solverUnderTest({ fill: 'never' }, 1);
    await solver.start();
    try {
      const run = await certifySolver({
        url: own.url,
        apiKey: own.apiKey,
        sandbox: own.file,
        solverAddress: manifest.accounts.solvers[1]!.address,
        solverId: solver.solverId,
        rfqs: 1,
        waitMs: 10_000,
        selection: { exclude: ['solver.answers-pings'] },
      });
      const status = Object.fromEntries(run.results.map((r) => [r.id, r.status]));
      expect(status['solver.connects']).toBe('PASSED');
      expect(status['solver.quotes']).toBe('PASSED');
      expect(status['solver.fills-before-deadline']).toBe('FAILED');
      expect(status['solver.claims-after-attestation']).toBe('FAILED');
      expect(run.exitCode).toBe(1);
    } finally {
      await solver.stop();
    }
  }, 120_000);

  it('fails when no solver connects in time', async () => {
    const run = await certifySolver({
      url: own.url,
      apiKey: own.apiKey,
      sandbox: own.file,
      solverId: 'slv_nobody',
      waitMs: 500,
      selection: { only: ['solver.connects'] },
    });
    expect(run.results[0]).toMatchObject({ status: 'FAILED' });
    expect(run.results[0]!.message).toMatch(/no solver connected/);
  }, 30_000);
});
