/**
 * The hardening run: one sandbox (two anvil chains) for all campaigns; the crash campaign on its own service
 * process and store; the tamper campaign on the ledger the crash campaign left; the fuzz and load campaigns on a
 * second service process with the reference solvers. `runHardening` returns every figure; the headline ones are
 * flat at the top of the report.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Address } from 'viem';
import { RestClient } from '../src/clients/rest-client.js';
import type { SandboxManifest } from '../src/contracts/deployment.js';
import { startSandbox } from '../src/sandbox/sandbox.js';
import { TestTaker } from '../test/support/settlement/taker.js';
import { startReferenceSolvers } from '../src/solvers/index.js';
import { type CrashFigures, runCrashCampaign } from './crash.js';
import { type FuzzFigures, runFuzzCampaign, signInForJwt } from './fuzz.js';
import { type LoadFigures, runLoadCampaign } from './load.js';
import { ServiceChild } from './service-child.js';
import { type Secret, scanFiles, storeFiles } from './support/secrets.js';
import { sleep } from './support/wire.js';
import { type TamperFigures, runTamperCampaign } from './tamper.js';
import { startScratchPostgres } from '../src/sandbox/postgres-component.js';

export type Campaign = 'crash' | 'fuzz' | 'load' | 'tamper' | 'chain' | 'failover';
export const CAMPAIGNS: readonly Campaign[] = ['crash', 'tamper', 'fuzz', 'load', 'chain', 'failover'];

export interface HardenOptions {
  quick: boolean;
  seed: number;
  campaigns?: readonly Campaign[];
  /** Keep the work folder (stores, logs) for inspection. */
  keep?: boolean;
  log?: (line: string) => void;
}

/** The figures with a goal; each is checked by `failedGoals`. */
export interface HeadlineFigures {
  lost: number;
  stuck: number;
  duplicateRelays: number;
  undelivered: number;
  serverErrors: number;
  nonFormatErrors: number;
  crashes: number;
  tamperDetectedPct: number;
  ledgerVerifies: boolean;
  noAnswer: number;
  authBypasses: number;
  rateLimitEnforced: boolean;
  duplicateTerminalEvents: number;
  /** Secrets the campaigns handled (API keys, session token, signing keys, private keys) found in the service logs. */
  secretsInLogs: number;
  /** Fuzz answers carrying Access-Control-Allow-Origin (the policy: no cross-origin reads). */
  corsGrants: number;
  /** Credentials found in the store's files (webhook signing keys and the JWT key are stored by design, not counted). */
  secretsInStore: number;
}

export interface HardenReport extends HeadlineFigures {
  quick: boolean;
  seed: number;
  campaigns: Campaign[];
  startedAt: string;
  wallMs: number;
  /** Throughput and latency of the load campaign's highest rate of each route, memory growth. */
  quotesRps: number | null;
  quotesP99Ms: number | null;
  orderReadsRps: number | null;
  orderReadsP99Ms: number | null;
  heapGrowthMb: number | null;
  fuzzRequests: number;
  wsFrames: number;
  tamperMutations: number;
  kills: number;
  lifecycles: number;
  failed: string[];
  /** Where secrets were found: kind and file (never the secret itself). */
  secretHits: Array<{ kind: string; file: string }>;
  crash?: Omit<CrashFigures, 'results'> & {
    results: Array<{ index: number; plan: string; kill: string | null; finalStatus?: string; wallMs: number; error?: string }>;
  };
  /** The chain campaign: the crash campaign's lifecycles with `chain.rpc-drop` fault switches instead of kills. */
  chain?: Omit<CrashFigures, 'results'>;
  /** The failover campaign: the lifecycles on two service instances, the singleton holder SIGKILLed instead. */
  failover?: Omit<CrashFigures, 'results'>;
  tamper?: TamperFigures;
  fuzz?: FuzzFigures;
  load?: LoadFigures;
  workDir?: string;
}

export const GOALS: ReadonlyArray<[keyof HeadlineFigures, (value: number | boolean) => boolean, string]> = [
  ['lost', (v) => v === 0, '0'],
  ['stuck', (v) => v === 0, '0'],
  ['duplicateRelays', (v) => v === 0, '0'],
  ['undelivered', (v) => v === 0, '0'],
  ['serverErrors', (v) => v === 0, '0'],
  ['nonFormatErrors', (v) => v === 0, '0'],
  ['crashes', (v) => v === 0, '0'],
  ['tamperDetectedPct', (v) => v === 100, '100'],
  ['ledgerVerifies', (v) => v === true, 'true'],
  ['noAnswer', (v) => v === 0, '0'],
  ['authBypasses', (v) => v === 0, '0'],
  ['rateLimitEnforced', (v) => v === true, 'true'],
  ['duplicateTerminalEvents', (v) => v === 0, '0'],
  ['corsGrants', (v) => v === 0, '0'],
  ['secretsInLogs', (v) => v === 0, '0'],
  ['secretsInStore', (v) => v === 0, '0'],
];

/** A lifecycle campaign after the crash campaign (chain, failover): its figures count towards the same goals. */
function addLifecycleFigures(report: HardenReport, figures: CrashFigures): void {
  report.lost += figures.lost;
  report.stuck += figures.stuck;
  report.duplicateRelays += figures.duplicateRelays;
  report.undelivered += figures.undelivered;
  report.duplicateTerminalEvents += figures.duplicateTerminalEvents;
  report.ledgerVerifies = report.ledgerVerifies && figures.ledgerVerifies;
  report.crashes += figures.crashes;
}

export async function runHardening(options: HardenOptions): Promise<HardenReport> {
  const log = options.log ?? (() => undefined);
  const campaigns = CAMPAIGNS.filter((c) => options.campaigns === undefined || options.campaigns.includes(c));
  const started = Date.now();
  const dir = mkdtempSync(join(tmpdir(), 'harden-'));
  const report: HardenReport = {
    quick: options.quick,
    seed: options.seed,
    campaigns: [...campaigns],
    startedAt: new Date(started).toISOString(),
    wallMs: 0,
    lost: 0,
    stuck: 0,
    duplicateRelays: 0,
    undelivered: 0,
    serverErrors: 0,
    nonFormatErrors: 0,
    crashes: 0,
    tamperDetectedPct: 100,
    ledgerVerifies: true,
    noAnswer: 0,
    authBypasses: 0,
    rateLimitEnforced: true,
    duplicateTerminalEvents: 0,
    secretsInLogs: 0,
    secretsInStore: 0,
    corsGrants: 0,
    quotesRps: null,
    quotesP99Ms: null,
    orderReadsRps: null,
    orderReadsP99Ms: null,
    heapGrowthMb: null,
    fuzzRequests: 0,
    wsFrames: 0,
    tamperMutations: 0,
    kills: 0,
    lifecycles: 0,
    failed: [],
    secretHits: [],
  };
  // `stored: true`: kept readable in the store by design (webhook signing keys sign every delivery).
  const secrets: Array<Secret & { stored?: boolean }> = [];
  const logs: string[] = [];
  const stores: string[] = [];
  log(`hardening (${options.quick ? 'quick' : 'full'}, seed ${options.seed}): ${campaigns.join(', ')}; work folder ${dir}`);
  const sandbox = await startSandbox({ stateDir: join(dir, 'sandbox'), persist: false });
  for (const [role, accounts] of Object.entries(sandbox.manifest.accounts)) {
    for (const account of accounts) secrets.push({ kind: `${role} private key`, value: account.privateKey });
  }
  if (sandbox.manifest.mnemonic !== undefined) secrets.push({ kind: 'mnemonic', value: sandbox.manifest.mnemonic });
  try {
    let ledgerStore: string | undefined;
    if (campaigns.includes('crash') || campaigns.includes('tamper')) {
      const crashing = campaigns.includes('crash');
      log(crashing ? 'crash campaign' : 'writing a ledger for the tamper campaign');
      const crash = await runCrashCampaign({
        sandbox,
        dir: join(dir, 'crash'),
        lifecycles: crashing ? (options.quick ? 6 : 20) : 3,
        seed: options.seed,
        killShare: crashing ? 0.7 : 0,
        onSecret: (kind, value) => secrets.push({ kind, value, stored: kind === 'webhook signing key' }),
        log,
      });
      ledgerStore = join(dir, 'crash', 'service', 'service.sqlite');
      logs.push(join(dir, 'crash', 'service', 'service.log'));
      stores.push(...storeFiles(ledgerStore));
      if (crashing) {
        const { results, ...rest } = crash;
        report.crash = {
          ...rest,
          results: results.map((r) => ({
            index: r.plan.index,
            plan: `${r.plan.lockType}/${r.plan.rail}/${r.plan.outcome}`,
            kill: r.plan.kill ? `${r.plan.kill.at}+${r.plan.kill.delayMs}ms` : null,
            ...(r.finalStatus === undefined ? {} : { finalStatus: r.finalStatus }),
            wallMs: r.wallMs,
            ...(r.error === undefined ? {} : { error: r.error }),
          })),
        };
        Object.assign(report, {
          lost: crash.lost,
          stuck: crash.stuck,
          duplicateRelays: crash.duplicateRelays,
          undelivered: crash.undelivered,
          ledgerVerifies: crash.ledgerVerifies,
          duplicateTerminalEvents: crash.duplicateTerminalEvents,
          kills: crash.kills,
          lifecycles: crash.lifecycles,
        });
        report.crashes += crash.crashes;
        log(
          `  crash: ${crash.lifecycles} lifecycles (${crash.settled} settled, ${crash.refunded} refunded), ${crash.kills} SIGKILLs; ` +
            `lost ${crash.lost}, stuck ${crash.stuck}, duplicate deposit relays ${crash.duplicateRelays} ` +
            `(oracle legs and refunds repeated by design: ${
              Object.entries(crash.repeatedRelays)
                .filter(([k, n]) => k !== 'openFor' && n > 0)
                .map(([k, n]) => `${k} ${n}`)
                .join(', ') || 'none'
            }), undelivered ${crash.undelivered}/${crash.webhookEvents}, ledger ${crash.ledgerVerifies ? 'verifies' : 'BROKEN'}`,
        );
      }
    }

    if (campaigns.includes('chain')) {
      log('chain campaign (JSON-RPC calls dropped and fills reorganised away by fault switches)');
      // Chains of its own: the crash campaign's takers spent Permit2 nonces there that a new store does not know.
      const chainSandbox = await startSandbox({ stateDir: join(dir, 'chain-sandbox'), persist: false });
      const chain = await runCrashCampaign({
        sandbox: chainSandbox,
        dir: join(dir, 'chain'),
        lifecycles: options.quick ? 6 : 20,
        seed: options.seed + 1,
        killShare: 0.8,
        faults: 'rpc',
        onSecret: (kind, value) => secrets.push({ kind, value, stored: kind === 'webhook signing key' }),
        log,
      }).finally(() => chainSandbox.stop());
      logs.push(join(dir, 'chain', 'service', 'service.log'));
      stores.push(...storeFiles(join(dir, 'chain', 'service', 'service.sqlite')));
      const { results: _results, ...figures } = chain;
      report.chain = figures;
      // The headline figures hold for every lifecycle campaign.
      addLifecycleFigures(report, chain);
      log(
        `  chain: ${chain.lifecycles} lifecycles (${chain.settled} settled, ${chain.refunded} refunded), ${chain.rpcFaultsSet} fault switches, ` +
          `${chain.rpcFaultsFired} JSON-RPC calls dropped, ${chain.reorgsFired}/${chain.reorgsSet} fills reorganised away, ${chain.halts} destination halts; lost ${chain.lost}, stuck ${chain.stuck}, duplicate deposit relays ${chain.duplicateRelays}, ` +
          `undelivered ${chain.undelivered}/${chain.webhookEvents}, ledger ${chain.ledgerVerifies ? 'verifies' : 'BROKEN'}`,
      );
    }

    if (campaigns.includes('failover')) {
      log('failover campaign (two service instances on Postgres; the holder of the singleton work SIGKILLed)');
      // Chains and a Postgres server of its own: a new store must not meet Permit2 nonces spent by another campaign.
      const failoverSandbox = await startSandbox({ stateDir: join(dir, 'failover-sandbox'), persist: false });
      const postgres = await startScratchPostgres({ prefix: 'harden-failover-' }).catch(async (error: unknown) => {
        await failoverSandbox.stop();
        throw error;
      });
      const failover = await runCrashCampaign({
        sandbox: failoverSandbox,
        dir: join(dir, 'failover'),
        lifecycles: options.quick ? 6 : 20,
        seed: options.seed + 2,
        killShare: 0.7,
        failover: { databaseUrl: postgres.url, instances: 2, inFlight: options.quick ? 6 : 20, inFlightKills: options.quick ? 1 : 3 },
        onSecret: (kind, value) => secrets.push({ kind, value, stored: kind === 'webhook signing key' }),
        log,
      }).finally(async () => {
        await failoverSandbox.stop();
        await postgres.stop();
      });
      logs.push(
        ...[1, 2, 3, 4, 5, 6, 7, 8].map((n) => join(dir, 'failover', 'service', `service.${n}.log`)).filter((file) => existsSync(file)),
      );
      const { results: _results, ...figures } = failover;
      report.failover = figures;
      addLifecycleFigures(report, failover);
      const slowest = failover.takeoverMs.length === 0 ? 0 : Math.max(...failover.takeoverMs);
      log(
        `  failover: ${failover.lifecycles} lifecycles (${failover.settled} settled, ${failover.refunded} refunded; ${failover.inFlight} of them in flight at once, with ${failover.inFlightKills} kills among them), ${failover.kills} SIGKILLs of the singleton holder, ` +
          `take-over within ${slowest} ms at most, idempotent replays ${failover.idempotencyReplays - failover.idempotencyMismatches}/${failover.idempotencyReplays} identical; lost ${failover.lost}, stuck ${failover.stuck}, duplicate deposit relays ${failover.duplicateRelays}, ` +
          `undelivered ${failover.undelivered}/${failover.webhookEvents}, ledger ${failover.ledgerVerifies ? 'verifies' : 'BROKEN'}`,
      );
    }

    if (campaigns.includes('tamper') && ledgerStore !== undefined) {
      log('tamper campaign');
      const tamper = await runTamperCampaign({
        storePath: ledgerStore,
        dir: join(dir, 'tamper'),
        seed: options.seed,
        entries: options.quick ? 2 : 6,
        mutationsPerByte: options.quick ? 1 : 8,
        log,
      });
      report.tamper = tamper;
      report.tamperDetectedPct = tamper.tamperDetectedPct;
      report.tamperMutations = tamper.mutations;
      log(
        `  tamper: ${tamper.mutations} single-byte changes over ${tamper.entriesSampled} entries, ${tamper.tamperDetectedPct} % detected (${tamper.ineffective} changed nothing SQLite reads)`,
      );
    }

    if (campaigns.includes('fuzz') || campaigns.includes('load')) {
      const service = new ServiceChild({ sandboxDir: sandbox.stateDir, dir: join(dir, 'edge'), logLevel: 'debug' });
      await service.start();
      logs.push(join(dir, 'edge', 'service', 'service.log'));
      stores.push(...storeFiles(join(dir, 'edge', 'service', 'service.sqlite')));
      for (const key of service.api.apiKeys) secrets.push({ kind: 'API key', value: key });
      const solvers = await startReferenceSolvers({ manifest: { ...sandbox.manifest, api: service.api }, count: 3 });
      try {
        const newKey = async (idempotencyKey?: string) => {
          const answer = await fetch(`${service.api.url}/api/v1/sandbox/keys`, {
            method: 'POST',
            headers: {
              Authorization: `Bearer ${service.api.apiKeys[0]}`,
              ...(idempotencyKey === undefined ? {} : { 'Idempotency-Key': idempotencyKey }),
            },
          });
          if (answer.status !== 201) throw new Error(`key creation answered ${answer.status}`);
          const key = ((await answer.json()) as { key: string }).key;
          secrets.push({ kind: idempotencyKey === undefined ? 'API key' : 'API key (kept as an idempotent response)', value: key });
          return key;
        };
        // Its response is kept for replays: sealed, so the key must not be readable in the store.
        await newKey('harden-sealed-response');
        if (campaigns.includes('fuzz')) {
          log('fuzz campaign');
          const keys = [service.api.apiKeys[0]!, await newKey(), await newKey(), await newKey()];
          const jwt = await signInForJwt(service.api.url, sandbox.manifest.accounts.takers[4]!.privateKey);
          if (jwt !== undefined) secrets.push({ kind: 'session token (JWT)', value: jwt });
          let reviving: Promise<boolean> | undefined;
          const revive = () =>
            (reviving ??= (async () => {
              await sleep(300);
              if (service.running) return false;
              log(
                `  fuzz: the service died (${JSON.stringify(
                  service.crashes
                    .at(-1)
                    ?.stderrTail.split('\n')
                    .find((l) => /Error/.test(l)) ?? '',
                )}); starting it again`,
              );
              await service.start();
              return true;
            })().finally(() => (reviving = undefined)));
          const fuzz = await runFuzzCampaign({
            url: service.api.url,
            revive,
            requests: options.quick ? 1_000 : 10_000,
            seed: options.seed,
            credentials: { apiKeys: keys, ...(jwt === undefined ? {} : { jwt }) },
            log,
          });
          report.fuzz = fuzz;
          report.serverErrors += fuzz.serverErrors + fuzz.wsServerErrors;
          report.nonFormatErrors += fuzz.nonFormatErrors + fuzz.wsNonFormat;
          report.noAnswer += fuzz.noAnswer;
          report.authBypasses += fuzz.authBypasses;
          report.corsGrants += fuzz.corsGrants;
          report.fuzzRequests = fuzz.requests;
          report.wsFrames = fuzz.wsFrames;
          if (!fuzz.healthyAfter) report.failed.push('the service was not healthy after the fuzz campaign');
          log(
            `  fuzz: ${fuzz.requests} requests over ${fuzz.routes} routes and ${fuzz.wsFrames} WebSocket frames; ` +
              `5xx ${fuzz.serverErrors + fuzz.wsServerErrors}, not in format ${fuzz.nonFormatErrors + fuzz.wsNonFormat}, unanswered ${fuzz.noAnswer}, auth bypasses ${fuzz.authBypasses}`,
          );
        }
        if (campaigns.includes('load')) {
          log('load campaign');
          const keys = await Promise.all(Array.from({ length: 14 }, () => newKey()));
          const { quoteBody, orderIds } = await placeOrders(sandbox.manifest, service.api.url, keys[0]!, 2);
          const load = await runLoadCampaign({ service, apiKeys: keys, quoteBody, orderIds, quick: options.quick, log });
          report.load = load;
          report.serverErrors += load.serverErrors;
          report.rateLimitEnforced = load.rateLimit.enforced;
          // The highest rate reached: the unthrottled step in a full run, the top planned rate in a quick one.
          const top = (route: 'quotes' | 'orders') =>
            load.steps
              .filter((s) => s.route === route)
              .sort((a, b) => a.throughputRps - b.throughputRps)
              .at(-1);
          report.quotesRps = top('quotes')?.throughputRps ?? null;
          report.quotesP99Ms = top('quotes')?.p99Ms ?? null;
          report.orderReadsRps = top('orders')?.throughputRps ?? null;
          report.orderReadsP99Ms = top('orders')?.p99Ms ?? null;
          report.heapGrowthMb = load.memory.heapGrowthMb;
          log(
            `  load: heap ${load.memory.heapBeforeMb} → ${load.memory.heapAfterMb} MB after ${load.memory.requests} requests; rate limit ${load.rateLimit.enforced ? 'enforced' : 'NOT enforced'}`,
          );
        }
      } finally {
        await solvers.stop();
        await service.stop();
        report.crashes += service.crashes.length;
      }
    }
    // Scanned once every service has stopped and flushed its log.
    const inLogs = scanFiles(logs, secrets);
    const inStore = scanFiles(
      stores,
      secrets.filter((secret) => secret.stored !== true),
    );
    report.secretsInLogs = inLogs.length;
    report.secretsInStore = inStore.length;
    report.secretHits = [...inLogs, ...inStore].map((hit) => ({ kind: hit.kind, file: hit.file.slice(dir.length + 1) }));
    log(`secrets: ${secrets.length} handled; ${inLogs.length} found in ${logs.length} log file(s), ${inStore.length} in the stores' files`);
  } finally {
    await sandbox.stop();
    if (options.keep === true) report.workDir = dir;
    else rmSync(dir, { recursive: true, force: true });
  }
  report.wallMs = Date.now() - started;
  report.failed.push(...failedGoals(report));
  return report;
}

/** The headline figures that missed their goal, as `name = value (goal …)`. */
export function failedGoals(figures: HeadlineFigures): string[] {
  return GOALS.filter(([name, ok]) => !ok(figures[name])).map(([name, , goal]) => `${name} = ${String(figures[name])} (goal ${goal})`);
}

/** Real orders (quote, EIP-712 signature, relay) for the load campaign to read, and a quote body solvers answer. */
async function placeOrders(
  manifest: SandboxManifest,
  url: string,
  apiKey: string,
  count: number,
): Promise<{ quoteBody: Record<string, unknown>; orderIds: string[] }> {
  const [alpha, beta] = manifest.chains;
  const usdc = (chain: typeof alpha) => chain!.tokens.find((t) => t.symbol === 'USDC')!.address as Address;
  const quoteBody = {
    originChainId: alpha!.chainId,
    destinationChainId: beta!.chainId,
    inputToken: usdc(alpha),
    outputToken: usdc(beta),
    inputAmount: '12000000000',
  };
  const rest = new RestClient({ baseUrl: url, apiKey });
  const orderIds: string[] = [];
  for (let i = 0; i < count; i++) {
    // Taker 4: the crash campaign's service (its own store, its own nonces) never signed for it on these chains.
    const taker = new TestTaker(manifest.accounts.takers[4]!.privateKey, rest, manifest.chains);
    const quote = (await taker.quote({ ...quoteBody, lockType: 'Permit2Escrow', settlementPath: 'direct' })).quotes[0]!;
    const created = await rest.createOrder({
      quoteId: quote.quoteId,
      signature: await taker.sign(quote.typedData),
      nonce: quote.nonce!,
      user: taker.address,
    });
    orderIds.push(created.orderId);
  }
  return { quoteBody, orderIds };
}
