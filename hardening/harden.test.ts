import { describe, expect, it } from 'vitest';
import { runHardening } from './main.js';

/**
 * The short hardening run (`npm run harden -- --quick`): every campaign, small, on real chains and a real service
 * process. The figures must meet their goals, and each campaign must have done real work, so a campaign that
 * silently ran nothing cannot pass.
 */
describe('hardening campaigns (quick)', () => {
  it('crash, tamper, fuzz, load, chain and failover meet their goals', async () => {
    const report = await runHardening({ quick: true, seed: 1, log: (line) => process.env.HARDEN_LOG && process.stderr.write(`${line}\n`) });
    const details = JSON.stringify(
      {
        failed: report.failed,
        crash: report.crash?.problems,
        fuzz: report.fuzz?.samples.slice(0, 10),
        tamper: report.tamper?.misses,
        rate: report.load?.rateLimit,
      },
      null,
      2,
    );
    expect(report.failed, details).toEqual([]);
    expect({
      lost: report.lost,
      stuck: report.stuck,
      duplicateRelays: report.duplicateRelays,
      undelivered: report.undelivered,
      serverErrors: report.serverErrors,
      nonFormatErrors: report.nonFormatErrors,
      crashes: report.crashes,
      tamperDetectedPct: report.tamperDetectedPct,
    }).toEqual({
      lost: 0,
      stuck: 0,
      duplicateRelays: 0,
      undelivered: 0,
      serverErrors: 0,
      nonFormatErrors: 0,
      crashes: 0,
      tamperDetectedPct: 100,
    });
    expect(report.ledgerVerifies).toBe(true);
    expect(report.noAnswer).toBe(0);
    expect(report.authBypasses).toBe(0);
    expect(report.rateLimitEnforced, details).toBe(true);
    expect(report.duplicateTerminalEvents).toBe(0);

    // The campaigns did what they claim.
    expect(report.lifecycles).toBe(6);
    expect(report.kills).toBeGreaterThanOrEqual(2);
    expect(report.crash!.settled + report.crash!.refunded).toBe(6);
    expect(report.crash!.refunded).toBeGreaterThanOrEqual(1);
    expect(report.crash!.webhookEvents).toBeGreaterThan(20);
    expect(report.crash!.relaysByKind.openFor).toBeGreaterThanOrEqual(3);
    // The chain campaign: JSON-RPC calls dropped by fault switches instead of kills, on chains of its own.
    expect(report.chain!.lifecycles).toBe(6);
    expect(report.chain!.settled + report.chain!.refunded).toBe(6);
    expect(report.chain!.rpcFaultsSet).toBeGreaterThanOrEqual(2);
    expect(report.chain!.rpcFaultsFired).toBeGreaterThanOrEqual(2);
    // Lifecycle #3 is refunded because a reorg took its fill away (outcome mismatches would count it otherwise).
    expect([report.chain!.reorgsSet, report.chain!.reorgsFired]).toEqual([1, 1]);
    expect(report.chain!.outcomeMismatches).toBe(0);
    // Lifecycle #5 meets a halted destination chain and still settles.
    expect(report.chain!.halts).toBe(1);
    expect([report.chain!.lost, report.chain!.stuck, report.chain!.duplicateRelays, report.chain!.undelivered]).toEqual([0, 0, 0, 0]);
    // The failover campaign: two instances of a cluster on Postgres, the holder of the singleton work SIGKILLed.
    // Six one at a time, then six at once with the holder killed among them.
    expect(report.failover!.lifecycles).toBe(12);
    expect(report.failover!.settled + report.failover!.refunded).toBe(12);
    expect([report.failover!.inFlight, report.failover!.inFlightKills]).toEqual([6, 1]);
    expect(report.failover!.problems).toEqual([]);
    expect(report.failover!.outcomeMismatches).toBe(0);
    expect(report.failover!.kills).toBeGreaterThanOrEqual(1);
    expect(report.failover!.takeoverMs).toHaveLength(report.failover!.kills);
    for (const took of report.failover!.takeoverMs) expect(took).toBeLessThan(5_000);
    expect(report.failover!.relaysByKind.openFor).toBeGreaterThanOrEqual(3);
    // A keyed request replayed after every take-over answers the first answer, whichever instance takes it.
    expect(report.failover!.idempotencyReplays).toBe(report.failover!.kills);
    expect(report.failover!.idempotencyMismatches).toBe(0);
    expect([report.failover!.lost, report.failover!.stuck, report.failover!.duplicateRelays, report.failover!.undelivered]).toEqual([
      0, 0, 0, 0,
    ]);
    expect(report.tamperMutations).toBeGreaterThan(300);
    expect(report.fuzzRequests).toBe(1_000);
    expect(report.fuzz!.routes).toBeGreaterThan(30);
    expect(report.wsFrames).toBeGreaterThan(50);
    expect(report.load!.rateLimit.floodLimited).toBeGreaterThan(0);
    expect(report.load!.rateLimit.otherKeyLimited).toBe(0);
    expect(report.quotesRps).toBeGreaterThan(0);
    expect(report.orderReadsRps).toBeGreaterThan(0);
  }, 240_000);
});
