import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogue } from './catalogue/index.js';
import { inconclusive } from './core/errors.js';
import { defineScenario } from './core/scenario.js';
import { INVARIANTS } from './invariants/monitor.js';
import { describeFailure } from './report/console.js';
import { junitReport } from './report/junit.js';
import { ScenarioSession } from './runner/session.js';
import { expectOrder, order, quote } from './steps/index.js';
import { settled } from './catalogue/timelines.js';

/**
 * The whole catalogue against one in-process sandbox, as `sandbox scenario run` plays it (own sandboxes for the
 * scenarios that ask for one), one test per scenario, in catalogue order.
 */
let session: ScenarioSession;

beforeAll(() => {
  session = new ScenarioSession({ seed: 1 });
});

afterAll(async () => {
  await session?.close();
});

describe('scenario catalogue', () => {
  for (const scenario of catalogue) {
    it(scenario.name, async () => {
      const result = await session.run(scenario);
      expect(result.status, describeFailure(result)).toBe('passed');
      expect(result.invariantChecks).toBeGreaterThanOrEqual(scenario.steps.length);
    }, 120_000);
  }
});

describe('a scenario that must fail', () => {
  it('reports a wrong expectation as a failure with the expected and the seen timeline side by side', async () => {
    const wrong = defineScenario({
      name: 'deliberately-wrong-expectation',
      title: 'expects a refund of an order that settles',
      tags: ['self-test'],
      actors: { takers: ['alice'], streams: { live: { topics: ['orders:*'] } } },
      steps: [
        quote('q', { taker: 'alice' }),
        order('o', { quote: 'q' }),
        expectOrder(
          'o',
          (context) => ({
            ...settled('o', { webhooks: false })(context),
            status: 'Refunded',
            ws: ['order.created', 'order.failed', 'compliance.event'],
          }),
          {
            timeoutMs: 1_500,
          },
        ),
      ],
    });
    const result = await session.run(wrong);
    expect(result.status).toBe('failed');
    expect(result.failure?.step).toBe('expect order o');
    expect(result.failure?.message).toMatch(/did not reach the expected timeline within 1500 ms/);
    const diff = result.failure!.details!;
    expect(diff).toMatch(/✗ status\s+Refunded\s+Claimed/);
    expect(diff).toMatch(
      /✗ ws live\s+order\.created → order\.failed → compliance\.event\s+order\.created → order\.settled → compliance\.event/,
    );
    // What did match is shown as matching, so the reader sees exactly where the timelines part.
    expect(diff).toMatch(/ {2}chain\s+Open → OutputFilled → AttestationRecorded → Finalised\s+=/);
    const printed = describeFailure(result);
    expect(printed).toContain('failed at: expect order o');
    expect(printed).toContain('expected');
    expect(printed).toContain('seen');
    expect(result.steps.map((s) => s.status)).toEqual(['passed', 'passed', 'failed']);
  }, 60_000);

  it('stops at the step after which an invariant breaks: tokens sent straight to the escrow break its accounting', async () => {
    const donation = defineScenario({
      name: 'escrow-donation-breaks-accounting',
      title: 'a transfer into the escrow that no order explains',
      tags: ['self-test'],
      // Its own sandbox: the broken accounting must not follow the catalogue's shared one.
      requires: { ownTarget: true },
      actors: { takers: ['mallory'] },
      steps: [
        {
          title: 'mallory sends 1 USDC straight to the escrow',
          async run(context) {
            const { encodeFunctionData, erc20Abi } = await import('viem');
            const { ChainSender } = await import('./actors/chain-sender.js');
            const { contractOf, tokenOf } = await import('./actors/chain-clients.js');
            const alpha = context.chain(0);
            const mallory = context.taker('mallory');
            await mallory.ensureFunded(alpha, 'USDC', 1_000_000n);
            const sender = new ChainSender(mallory.privateKey, alpha.chainId, alpha.rpcUrl);
            const data = encodeFunctionData({
              abi: erc20Abi,
              functionName: 'transfer',
              args: [contractOf(alpha, 'InputSettlerEscrow'), 1_000_000n],
            });
            await sender.send(tokenOf(alpha, 'USDC').address, data);
          },
        },
        { title: 'never reached', run: async () => undefined },
      ],
    });
    const result = await session.run(donation);
    expect(result.status).toBe('failed');
    expect(result.failure?.step).toBe('mallory sends 1 USDC straight to the escrow');
    expect(result.failure?.message).toBe('invariant broken after this step: escrow-accounting');
    expect(result.failure?.details).toMatch(/escrow-accounting: alpha USDC: escrowed 0 ≠ claimed 0 \+ refunded 0 \+ open 1000000/);
    expect(result.steps.map((s) => s.status)).toEqual(['failed', 'not run']);
  }, 60_000);

  it('skips, with its reason, a scenario whose step could not reach what it checks; the later steps do not run', async () => {
    const unreachable = defineScenario({
      name: 'inconclusive-step',
      title: 'a step that cannot reach what it checks',
      tags: ['self-test'],
      steps: [
        { title: 'reachable', run: async () => 'done' },
        { title: 'needs a quieter machine', run: async () => inconclusive('the burst could not empty the bucket') },
        { title: 'never reached', run: async () => undefined },
      ],
    });
    const result = await session.run(unreachable);
    expect(result.status).toBe('skipped');
    expect(result.reason).toBe('inconclusive at "needs a quieter machine": the burst could not empty the bucket');
    expect(result.failure).toBeUndefined();
    expect(result.steps.map((s) => s.status)).toEqual(['passed', 'skipped', 'not run']);
    const xml = junitReport({
      seed: 1,
      runSalt: session.runSalt,
      target: result.target,
      startedAt: new Date().toISOString(),
      durationMs: result.durationMs,
      summary: { total: 1, passed: 0, failed: 0, skipped: 1 },
      invariants: INVARIANTS,
      scenarios: [result],
    });
    expect(xml).toContain('skipped="1"');
    expect(xml).toContain('<skipped message="inconclusive at &quot;needs a quieter machine&quot;');
  }, 60_000);
});
