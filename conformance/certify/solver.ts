import { privateKeyToAccount } from 'viem/accounts';
import { encodeFunctionData, parseAbi, type Hex } from 'viem';
import type { CheckContext } from '../core/context.js';
import { buildReport, exitCodeOf, type ConformanceReport } from '../core/report.js';
import { runChecks, type Check } from '../core/runner.js';
import type { Selection } from '../core/selection.js';
import { signDocument, type SigningKey } from '../core/signing.js';
import type { CheckResult } from '../core/types.js';
import { check, PHASE } from '../checks/support/define.js';
import { fieldProblems, hasPrefix, isArray, isIntegerString, isIsoTime, isObject, isTxHash, type Json } from '../checks/support/shape.js';
import { followOrder, runOrderFlow, type OrderFlow } from '../flows/taker.js';
import { chainById, discoverTarget, UsageError, type Target } from '../deployment/discover.js';
import type { SandboxFile } from '../deployment/sandbox-file.js';
import { rpcCall } from '../wire/rpc.js';

/**
 * `sandbox certify solver`: the harness runs a sandbox of its own with no reference solvers, hands the solver
 * under test what it needs to connect (API URL and key, chains, its funded account), waits for it to connect to
 * the solver stream, then plays taker: RFQs, an order on its quote, and it watches the fill, the claim and the
 * heartbeat. Everything is observed over the wire: the API and the chains' JSON-RPC.
 */
export interface SolverParams {
  /** The solver's on-chain address (from `--solver-key`, a private key or an address): funded and checked. */
  solverAddress?: string;
  /** Register-or-find: the solver under test, when several are connected. */
  solverId?: string;
  /** How many RFQs to send. */
  rfqs: number;
}

export interface SolverUnderTest {
  solverId: string;
  name: string;
  corridors: string[];
  address: string | undefined;
}

function params(ctx: CheckContext): SolverParams {
  return ctx.state.params as unknown as SolverParams;
}

/** `--solver-key` may be a private key (0x + 64 hex) or an address (0x + 40 hex); only the address is used. */
export function solverAddressFrom(key: string): string {
  if (/^0x[0-9a-fA-F]{64}$/.test(key)) return privateKeyToAccount(key as Hex).address;
  if (/^0x[0-9a-fA-F]{40}$/.test(key)) return key;
  throw new UsageError('--solver-key must be the 0x-prefixed private key (64 hex) or address (40 hex) the solver fills with');
}

/**
 * Gives the solver's address gas and inventory on every chain of the certification sandbox: native balance with
 * `anvil_setBalance`, each test token minted by the deployer account of sandbox.json.
 */
export async function fundSolver(file: SandboxFile, address: string, tokensPerChain = 10_000_000n): Promise<void> {
  const deployer = file.accounts?.deployer?.[0];
  const { privateKeyToAccount: toAccount } = await import('viem/accounts');
  const { createWalletClient, http, defineChain } = await import('viem');
  for (const chain of file.chains ?? []) {
    await rpcCall(chain.rpcUrl, 'anvil_setBalance', [address, `0x${(10n ** 22n).toString(16)}`]);
    if (!deployer) continue;
    const wallet = createWalletClient({
      account: toAccount(deployer.privateKey),
      chain: defineChain({
        id: chain.chainId,
        name: chain.name,
        nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
        rpcUrls: { default: { http: [chain.rpcUrl] } },
      }),
      transport: http(chain.rpcUrl),
    });
    for (const token of chain.tokens) {
      const data = encodeFunctionData({
        abi: parseAbi(['function mint(address to, uint256 amount)']),
        functionName: 'mint',
        args: [address as Hex, tokensPerChain * 10n ** BigInt(token.decimals)],
      });
      const hash = await wallet.sendTransaction({ to: token.address, data, gas: 200_000n });
      for (let i = 0; i < 100; i += 1) {
        const { result } = await rpcCall<{ status?: string } | null>(chain.rpcUrl, 'eth_getTransactionReceipt', [hash]);
        if (result) break;
        await new Promise((r) => setTimeout(r, 20));
      }
    }
  }
}

async function listSolvers(ctx: CheckContext): Promise<Json[]> {
  const response = await ctx.api('GET', '/solvers', { auth: ctx.key, query: { limit: 100 }, record: false });
  const body = response.json;
  return (isArray(body) ? body : isObject(body) && isArray(body.data) ? body.data : []).filter(isObject);
}

const isConnected = (s: Json) => s.connected === true || (typeof s.connections === 'number' && s.connections > 0);

/** Waits until the solver under test is connected; shared by every check of the mode. */
export function solverUnderTest(ctx: CheckContext, waitMs = 120_000): Promise<SolverUnderTest> {
  return ctx.fixture('solver-under-test', async () => {
    const wanted = params(ctx);
    const deadline = Date.now() + ((ctx.state.params.waitMs as number | undefined) ?? waitMs);
    for (;;) {
      const solvers = await listSolvers(ctx);
      const found = solvers.find(
        (s) =>
          isConnected(s) &&
          (wanted.solverId === undefined || s.solverId === wanted.solverId) &&
          (wanted.solverAddress === undefined ||
            s.address === undefined ||
            s.address === null ||
            String(s.address).toLowerCase() === wanted.solverAddress.toLowerCase()),
      );
      if (found) {
        ctx.note(`solver under test: ${String(found.solverId)} (${String(found.name)})`);
        return {
          solverId: String(found.solverId),
          name: String(found.name),
          corridors: isArray(found.corridors) ? found.corridors.map(String) : [],
          address: typeof found.address === 'string' ? found.address : wanted.solverAddress,
        };
      }
      if (Date.now() > deadline)
        ctx.fail(
          `no solver connected to the solver stream within ${Math.round(((ctx.state.params.waitMs as number | undefined) ?? waitMs) / 1000)} s`,
        );
      await ctx.sleep(250);
    }
  });
}

function corridorOf(ctx: CheckContext, solver: SolverUnderTest) {
  const corridor = ctx.target.corridors.find(
    (c) => solver.corridors.includes(c.id) && chainById(ctx.target, c.originChainId) && chainById(ctx.target, c.destinationChainId),
  );
  if (!corridor) ctx.fail(`the solver registered for ${solver.corridors.join(', ') || 'no corridor'}; none is a corridor of the sandbox`);
  return corridor;
}

/** The order the harness takes on the solver's quote, followed to its end. */
function wonOrder(ctx: CheckContext): Promise<OrderFlow> {
  return ctx.fixture('solver-order', async () => {
    const solver = await solverUnderTest(ctx);
    const corridor = corridorOf(ctx, solver);
    const flow = await runOrderFlow(ctx, "order on the solver's quote", {
      takerIndex: 0,
      solverId: solver.solverId,
      corridor,
      lockType: 'Permit2Escrow',
      timeoutMs: 10_000,
    });
    if (flow.final.status === 'Claimed' || flow.final.status === 'Refunded' || !ctx.target.capabilities.has('clock')) return flow;
    // Not settled after 10 s of wall time: move the clock past the order's expiry, where it can only be refunded.
    const standardOrder = isObject(flow.detail.json) && isObject(flow.detail.json.standardOrder) ? flow.detail.json.standardOrder : {};
    const expires = Number(standardOrder.expires);
    if (Number.isFinite(expires)) await ctx.advanceClock(Math.max(1, Math.ceil(expires - (await ctx.clockNow()) / 1_000) + 2));
    const followed = await followOrder(ctx, flow.orderId, { until: ['Claimed', 'Refunded'], timeoutMs: 15_000, since: flow.createdAtMs });
    return { ...flow, statuses: [...flow.statuses, ...followed.statuses], final: followed.final };
  });
}

export const solverCertificationChecks: Check[] = [
  check({
    id: 'solver.connects',
    title: 'The solver authenticates on the solver stream and subscribes to RFQs',
    requirements: ['X-SLV-001'],
    profiles: ['A', 'B'],
    tags: ['certify', 'solver'],
    needs: ['apiKey'],
    phase: PHASE.platform,
    timeoutMs: 600_000,
    async run(ctx: CheckContext) {
      const solver = await solverUnderTest(ctx);
      ctx.expect('X-SLV-001', solver.corridors.length > 0, 'the solver registered for no corridor');
    },
  }),
  check({
    id: 'solver.quotes',
    title: 'The solver answers every RFQ within the auction window with a valid quote',
    requirements: ['X-SLV-001', 'X-SLV-002'],
    profiles: ['A', 'B'],
    tags: ['certify', 'solver'],
    needs: ['apiKey'],
    phase: PHASE.routes,
    async run(ctx: CheckContext) {
      const solver = await solverUnderTest(ctx);
      const corridor = corridorOf(ctx, solver);
      const factor = [1.1, 2, 5, 1.5, 3];
      for (let i = 0; i < params(ctx).rfqs; i += 1) {
        const min = BigInt(corridor.minNotional);
        const amount = ((min * BigInt(Math.round((factor[i % factor.length] ?? 1.1) * 100))) / 100n).toString();
        const request = {
          inputToken: corridor.inputToken.address,
          outputToken: corridor.outputToken.address,
          inputAmount: amount,
          originChainId: corridor.originChainId,
          destinationChainId: corridor.destinationChainId,
        };
        const response = await ctx.api('POST', '/quotes', { body: request, label: `RFQ ${i + 1}` });
        const quotes = isObject(response.json) && isArray(response.json.quotes) ? (response.json.quotes as Json[]) : [];
        const mine = quotes.find((q) => q.solverId === solver.solverId);
        ctx.expect(
          'X-SLV-001',
          response.status === 200 && mine !== undefined,
          `RFQ ${i + 1} (${amount}): no quote from the solver within the window (POST /quotes answered ${response.status})`,
        );
        if (!mine) continue;
        const problems = fieldProblems(
          mine,
          [
            ['quoteId', (v) => hasPrefix(v, 'qt_'), 'a quote id'],
            ['outputAmount', (v) => isIntegerString(v) && v !== '0', 'a positive integer string'],
            ['expiresAt', isIsoTime, 'an ISO time'],
          ],
          `RFQ ${i + 1} quote`,
        );
        ctx.expect('X-SLV-002', problems.length === 0, problems.join('; '));
        if (typeof mine.latencyMs === 'number') ctx.note(`RFQ ${i + 1}: quoted in ${mine.latencyMs} ms`);
      }
    },
  }),
  check({
    id: 'solver.fills-before-deadline',
    title: 'The won order is filled on the destination chain at or before its fill deadline, by the solver',
    requirements: ['X-SLV-003'],
    profiles: ['A', 'B'],
    tags: ['certify', 'solver', 'flow'],
    needs: ['apiKey', 'fundedAccounts', 'chains'],
    phase: PHASE.flows,
    timeoutMs: 90_000,
    async run(ctx: CheckContext) {
      const flow = await wonOrder(ctx);
      const statuses = flow.statuses.map((s) => s.status);
      ctx.note(`order ${flow.orderId}: ${[String(flow.order.status), ...statuses].join(' → ')}`);
      const hash = flow.final.destinationTxHash;
      ctx.require('X-SLV-003', isTxHash(hash), `the order was never filled (ended ${String(flow.final.status)})`);
      const chain = chainById(ctx.target, flow.corridor.destinationChainId)!;
      const receipt = await rpcCall<{ status?: string; blockNumber?: string; from?: string } | null>(
        chain.rpcUrl,
        'eth_getTransactionReceipt',
        [hash],
        chain.chainId,
      );
      ctx.evidence.push(receipt.evidence);
      ctx.expect('X-SLV-003', receipt.result?.status === '0x1', `the fill ${hash} has no successful receipt`);
      const block = await rpcCall<{ timestamp?: string } | null>(
        chain.rpcUrl,
        'eth_getBlockByNumber',
        [receipt.result?.blockNumber ?? 'latest', false],
        chain.chainId,
      );
      ctx.evidence.push(block.evidence);
      const standardOrder = isObject(flow.detail.json) && isObject(flow.detail.json.standardOrder) ? flow.detail.json.standardOrder : {};
      const deadline = Number(standardOrder.fillDeadline);
      const filledAt = Number(block.result?.timestamp);
      ctx.expect(
        'X-SLV-003',
        Number.isFinite(deadline) && filledAt <= deadline,
        `filled at ${filledAt}, the fill deadline was ${deadline}`,
      );
      const address = params(ctx).solverAddress;
      if (address)
        ctx.expect(
          'X-SLV-003',
          String(receipt.result?.from).toLowerCase() === address.toLowerCase(),
          `the fill was sent by ${receipt.result?.from}, not the solver's ${address}`,
        );
    },
  }),
  check({
    id: 'solver.claims-after-attestation',
    title: 'Once the attestation is recorded the solver claims on the origin chain (order Claimed)',
    requirements: ['X-SLV-004'],
    profiles: ['A', 'B'],
    tags: ['certify', 'solver', 'flow'],
    needs: ['apiKey', 'fundedAccounts', 'chains'],
    phase: PHASE.flows,
    timeoutMs: 90_000,
    async run(ctx: CheckContext) {
      const flow = await wonOrder(ctx);
      let final = flow.final;
      if (final.status !== 'Claimed' && final.status !== 'Refunded')
        final = (await followOrder(ctx, flow.orderId, { until: ['Claimed', 'Refunded'], timeoutMs: 15_000 })).final;
      const seen = flow.statuses.map((s) => s.status);
      ctx.expect('X-SLV-004', final.status === 'Claimed', `the order ended ${String(final.status)}, not Claimed`);
      ctx.expect(
        'X-SLV-004',
        !seen.includes('Claimed') || seen.indexOf('Claimed') > seen.indexOf('Attested') || !seen.includes('Attested'),
        `claimed before the attestation: ${seen.join(' → ')}`,
      );
      const claim = final.claimTxHash;
      const address = params(ctx).solverAddress;
      if (isTxHash(claim) && address) {
        const chain = chainById(ctx.target, flow.corridor.originChainId)!;
        const receipt = await rpcCall<{ from?: string } | null>(chain.rpcUrl, 'eth_getTransactionReceipt', [claim], chain.chainId);
        ctx.evidence.push(receipt.evidence);
        ctx.expect(
          'X-SLV-004',
          String(receipt.result?.from).toLowerCase() === address.toLowerCase(),
          `the claim was sent by ${receipt.result?.from}`,
        );
      }
    },
  }),
  check({
    id: 'solver.answers-pings',
    title: 'The solver answers pings: still connected after three ping intervals of the clock',
    requirements: ['X-SLV-005'],
    profiles: ['A', 'B'],
    tags: ['certify', 'solver', 'timing'],
    needs: ['apiKey'],
    needsAnyOf: ['clock', 'long'],
    phase: PHASE.timing,
    timeoutMs: 150_000,
    async run(ctx: CheckContext) {
      const solver = await solverUnderTest(ctx);
      for (let i = 0; i < 3; i += 1) {
        if (ctx.target.capabilities.has('clock')) {
          await ctx.advanceClock(31);
          await ctx.sleep(300);
        } else await ctx.sleep(31_000);
      }
      // A pong can only travel in real time: a deployment gives the peer some wall time to answer a ping however far
      // its clock jumped (ours: 1 s). Judge only after that, or a solver that never answers passes.
      if (ctx.target.capabilities.has('clock')) await ctx.sleep(PONG_WALL_WINDOW_MS);
      const after = (await listSolvers(ctx)).find((s) => s.solverId === solver.solverId);
      ctx.expect('X-SLV-005', after !== undefined && isConnected(after), 'the solver was disconnected: it did not answer the pings');
    },
  }),
];

/** Wall time after the last clock advance before the pings check judges: the answer window plus a margin. */
const PONG_WALL_WINDOW_MS = 2_000;

export interface SolverCertification {
  report: ConformanceReport;
  results: CheckResult[];
  /** 0 certified, 1 a check failed, 3 checks were skipped (INCOMPLETE). */
  exitCode: 0 | 1 | 3;
}

/** Certifies the solver that connects to the deployment at `url` (the harness's own sandbox). */
export async function certifySolver(options: {
  url: string;
  apiKey: string;
  sandbox: SandboxFile;
  solverAddress?: string;
  solverId?: string;
  rfqs?: number;
  waitMs?: number;
  long?: boolean;
  signingKey?: SigningKey;
  selection?: Selection;
  onTarget?(target: Target): void;
  onResult?(result: CheckResult, index: number, total: number): void;
}): Promise<SolverCertification> {
  const target = await discoverTarget({
    url: options.url,
    profile: 'A',
    apiKey: options.apiKey,
    sandbox: options.sandbox,
    long: options.long ?? false,
  });
  options.onTarget?.(target);
  const outcome = await runChecks({
    target,
    checks: solverCertificationChecks,
    params: {
      solverAddress: options.solverAddress,
      solverId: options.solverId,
      rfqs: options.rfqs ?? 3,
      waitMs: options.waitMs ?? 120_000,
    },
    ...(options.selection === undefined ? {} : { selection: options.selection }),
    ...(options.onResult === undefined ? {} : { onResult: options.onResult }),
  });
  let report = buildReport({ target, outcome, checks: solverCertificationChecks, onlyCovered: true });
  report = { ...report, subject: 'solver' };
  if (options.signingKey) report = signDocument(report, options.signingKey);
  return { report, results: outcome.results, exitCode: exitCodeOf(report.summary.verdict) };
}
