/**
 * Reference solvers on a real devnet and a real service: they register, quote over the socket, fill the orders
 * they are assigned on the destination chain and claim on the origin chain once attested. The test plays the
 * parts the orders and settlement modules will play (open the escrow, tell the winner, relay the attestation).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Address, type Chain, createPublicClient, createWalletClient, erc20Abi, type Hex, http, parseEventLogs } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { RestClient, type QuoteResponse } from '../clients/rest-client.js';
import { bytes32ToAddress } from '../contracts/order.js';
import { standardOrderFromWire } from '../contracts/standard-order-wire.js';
import { TestClock } from '../clock/index.js';
import {
  InputOracleArtifact,
  InputSettlerEscrowArtifact,
  OutputOracleArtifact,
  OutputSettlerArtifact,
} from '../contracts/artifacts/index.js';
import {
  encodeFillDescription,
  toAbiOrder,
  permit2OpenSignature,
  type SolveParams,
  type StandardOrder,
  addressToBytes32,
} from '../contracts/index.js';
import { typedDataFromJson } from '../contracts/typed-data.js';
import type { ChainInfo, SandboxManifest } from '../contracts/deployment.js';
import { startSandbox, type Sandbox } from '../sandbox/sandbox.js';
import { SANDBOX_POLLING_INTERVAL, viemChain } from '../contracts/viem-chain.js';
import { createService, type Service } from '../service/app.js';
import type { AuctionModule } from '../service/auction/module.js';
import { devnetChainTime } from '../sandbox/service-component.js';
import { BRIDGE_BURN_ADDRESS, type ReferenceSolvers, SolverInventory, startReferenceSolvers, type SolverEvent } from './index.js';
import type { InventoryReport } from './inventory.js';
import { sandboxStablecoinAbi } from '../contracts/stablecoin.js';

let sandbox: Sandbox;
let service: Service;
let manifest: SandboxManifest;
let auction: AuctionModule;
let rest: RestClient;
let solvers: ReferenceSolvers;
let origin: ChainInfo;
let destination: ChainInfo;

function client(chain: ChainInfo, privateKey: Hex) {
  const account = privateKeyToAccount(privateKey);
  const viem: Chain = viemChain(chain);
  return {
    account,
    public: createPublicClient({ chain: viem, transport: http(chain.rpcUrl), pollingInterval: SANDBOX_POLLING_INTERVAL }),
    wallet: createWalletClient({ chain: viem, transport: http(chain.rpcUrl), account, pollingInterval: SANDBOX_POLLING_INTERVAL }),
  };
}

async function send(c: ReturnType<typeof client>, request: Record<string, unknown>) {
  const hash = await c.wallet.writeContract({ gas: 1_500_000n, ...request } as never);
  const receipt = await c.public.waitForTransactionReceipt({ hash, pollingInterval: SANDBOX_POLLING_INTERVAL });
  if (receipt.status !== 'success') throw new Error(`${hash} reverted`);
  return receipt;
}

const usdc = (chain: ChainInfo): Address => chain.tokens.find((t) => t.symbol === 'USDC')!.address;
const balance = (chain: ChainInfo, owner: Address) =>
  client(chain, manifest.accounts.deployer[0]!.privateKey).public.readContract({
    address: usdc(chain),
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [owner],
  });

function events(solverIndex: number): SolverEvent[] {
  const seen: SolverEvent[] = [];
  solvers.solvers[solverIndex]!.onEvent((event) => seen.push(event));
  return seen;
}

async function until<T>(probe: () => T | undefined | Promise<T | undefined>, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The taker's side plus what the orders module does: quote for the taker, sign, open the escrow, accept the quote. */
async function openOrder(takerIndex: number, quotes?: QuoteResponse) {
  const taker = client(origin, manifest.accounts.takers[takerIndex]!.privateKey);
  const response =
    quotes ??
    (await rest.requestQuotes({
      inputToken: usdc(origin),
      outputToken: usdc(destination),
      inputAmount: '25000000000',
      originChainId: origin.chainId,
      destinationChainId: destination.chainId,
      user: taker.account.address,
    }));
  const best = response.quotes[0]!;
  const detail = await rest.getQuote(best.quoteId, { user: taker.account.address });
  const signature = await taker.account.signTypedData(typedDataFromJson(detail.typedData) as never);
  const order = standardOrderFromWire(detail.standardOrder);
  const relayer = client(origin, manifest.accounts.serviceRelayer[0]!.privateKey);
  await send(relayer, {
    address: origin.contracts.InputSettlerEscrow!,
    abi: InputSettlerEscrowArtifact.abi,
    functionName: 'openFor',
    args: [toAbiOrder(order), taker.account.address, permit2OpenSignature(signature)],
  });
  const orderId = `ord_test${takerIndex}${Date.now()}`;
  expect(auction.quoteBook.accept(best.quoteId, orderId, service.clock.now())).toBe(true);
  return {
    orderId,
    order,
    onchainOrderId: detail.onchainOrderId as Hex,
    solverId: best.solverId,
    taker: taker.account.address,
    quoteId: best.quoteId,
  };
}

/** What the settlement engine does after a fill: the oracle relayer carries the proof to the origin chain. */
async function attest(order: StandardOrder, onchainOrderId: Hex, fillTx: Hex): Promise<SolveParams[]> {
  const relayerKey = manifest.accounts.oracleRelayer[0]!.privateKey;
  const dst = client(destination, relayerKey);
  const receipt = await dst.public.getTransactionReceipt({ hash: fillTx });
  const [filled] = parseEventLogs({ abi: OutputSettlerArtifact.abi, logs: receipt.logs, eventName: 'OutputFilled' });
  const output = order.outputs[0]!;
  const submit = await send(dst, {
    address: destination.contracts.OutputOracle!,
    abi: OutputOracleArtifact.abi,
    functionName: 'submit',
    args: [
      destination.contracts.OutputSettler!,
      [encodeFillDescription(filled!.args.solver, onchainOrderId, filled!.args.timestamp, output)],
    ],
  });
  const [proven] = parseEventLogs({ abi: OutputOracleArtifact.abi, logs: submit.logs, eventName: 'OutputAttested' });
  await send(client(origin, relayerKey), {
    address: origin.contracts.InputOracle!,
    abi: InputOracleArtifact.abi,
    functionName: 'receiveAttestation',
    args: [
      BigInt(destination.chainId),
      addressToBytes32(destination.contracts.OutputOracle!),
      proven!.args.application,
      [proven!.args.payload],
    ],
  });
  return [{ timestamp: Number(filled!.args.timestamp), solver: filled!.args.solver }];
}

beforeAll(async () => {
  sandbox = await startSandbox({ chains: 2 });
  [origin, destination] = sandbox.manifest.chains as [ChainInfo, ChainInfo];
  service = await createService({
    environment: 'sandbox',
    chains: sandbox.manifest.chains,
    clock: new TestClock({ ticking: true }),
    chainTime: devnetChainTime(sandbox.chains),
    logger: { level: 'silent' },
  });
  const { workspaceId, apiKey } = service.bootstrapWorkspace('solvers test');
  manifest = { ...sandbox.manifest, api: { url: service.url, wsUrl: service.wsUrl, workspaceId, apiKeys: [apiKey] } };
  auction = service.modules.find((m) => m.name === 'auction') as AuctionModule;
  rest = new RestClient({ baseUrl: service.url, apiKey });
  solvers = await startReferenceSolvers({ manifest, count: 3, seed: 7 });
}, 120_000);

afterAll(async () => {
  await solvers?.stop();
  await service?.stop();
  await sandbox?.stop();
});

describe('reference solvers', () => {
  it('register for every corridor with seeded names and strategies, and all quote', async () => {
    const again = await startReferenceSolvers({ manifest, count: 0, seed: 7 });
    expect(again.solvers).toHaveLength(0);
    const names = solvers.solvers.map((s) => s.name);
    expect(new Set(names).size).toBe(3);
    expect(names[0]).toMatch(/^reference-1 \(/);
    const directory = await rest.listSolvers({ owned: true });
    const corridorCount = (await rest.corridors()).length;
    expect(corridorCount).toBeGreaterThanOrEqual(2);
    expect(directory.data.every((s) => s.connected && s.corridors.length === corridorCount)).toBe(true);
    const response = await rest.requestQuotes({ pair: 'USDC/USDC', side: 'sell', amount: '50000', chain: origin.name });
    expect(response.quotes).toHaveLength(3);
    // Output = input × (1 − margin) − gas: the ranking follows the seeded strategies exactly.
    const expected = solvers.solvers
      .map((s) => ({
        id: s.solverId,
        out:
          (50_000n * 10n ** 6n * BigInt(10_000 - s.strategy.marginBps)) / 10_000n - BigInt(Math.round(s.strategy.gasCost * 100)) * 10_000n,
      }))
      .sort((a, b) => (a.out === b.out ? 0 : a.out > b.out ? -1 : 1));
    expect(response.quotes.map((q) => [q.solverId, q.outputAmount])).toEqual(expected.map((e) => [e.id, e.out.toString()]));
  });

  it('fills an assigned order on the destination chain and claims it on the origin chain once attested', async () => {
    const opened = await openOrder(0);
    const index = solvers.solvers.findIndex((s) => s.solverId === opened.solverId);
    const solver = solvers.solvers[index]!;
    const seen = events(index);
    const takerBefore = await balance(destination, opened.taker);
    const solverOriginBefore = await balance(origin, solver.wallet.address);
    const output = opened.order.outputs[0]!;
    const outputToken = bytes32ToAddress(output.token);
    const decimals = destination.tokens.find((token) => token.address.toLowerCase() === outputToken.toLowerCase())!.decimals;
    const inventory = () => solver.inventoryLeft(destination.chainId, outputToken, decimals);
    const inventoryBefore = inventory();
    expect(
      auction.notifier.notify(opened.solverId, {
        type: 'order.assigned',
        orderId: opened.orderId,
        quoteId: opened.quoteId,
        onchainOrderId: opened.onchainOrderId,
        lockType: 'Permit2Escrow',
        originChainId: origin.chainId,
        destinationChainId: destination.chainId,
        standardOrder: (await rest.getQuote(opened.quoteId)).standardOrder,
        fillDeadline: opened.order.fillDeadline,
      }),
    ).toBe(1);
    const filled = await until(() => seen.find((e): e is Extract<SolverEvent, { type: 'filled' }> => e.type === 'filled'), 'the fill');
    expect(await balance(destination, opened.taker)).toBe(takerBefore + opened.order.outputs[0]!.amount);
    expect(filled.timestamp).toBeLessThanOrEqual(opened.order.fillDeadline);
    // Won and filled, not paid yet: the output is held against its inventory.
    expect(inventory()).toBe(inventoryBefore - output.amount);

    const solveParams = await attest(opened.order, opened.onchainOrderId, filled.txHash);
    expect(solveParams[0]!.solver).toBe(solver.wallet.identifier);
    const attested = {
      type: 'order.attested',
      orderId: opened.orderId,
      onchainOrderId: opened.onchainOrderId,
      lockType: 'Permit2Escrow',
      originChainId: origin.chainId,
      standardOrder: (await rest.getQuote(opened.quoteId)).standardOrder,
      solveParams,
    } as const;
    auction.notifier.notify(opened.solverId, attested);
    await until(() => seen.find((e) => e.type === 'claimed'), 'the claim');
    expect(await balance(origin, solver.wallet.address)).toBe(solverOriginBefore + 25_000_000_000n);
    // Paid on the origin chain: the inventory is whole again, so a long-lived sandbox's solvers keep quoting.
    expect(inventory()).toBe(inventoryBefore);
    const status = await client(origin, manifest.accounts.deployer[0]!.privateKey).public.readContract({
      address: origin.contracts.InputSettlerEscrow!,
      abi: InputSettlerEscrowArtifact.abi,
      functionName: 'orderStatus',
      args: [opened.onchainOrderId],
    });
    expect(status).toBe(2);
    // The attested message recorded the fill: the solver's fill rate is 1.
    expect((await rest.getSolver(opened.solverId)).stats).toMatchObject({ wins: 1, filled: 1, fillRate: 1 });
    // A repeated assignment does not fill twice.
    expect(solver.counters.filled).toBe(1);
    // Ended, the order leaves the solver's hands (a sandbox that lives for weeks does not keep every order), and the
    // attestation sent again (a reconnect, a take-over) is still recognised: no second claim, no failed one.
    expect(solver.ordersInHand).toBe(0);
    const eventsBefore = seen.length;
    auction.notifier.notify(opened.solverId, attested);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(seen.slice(eventsBefore).map((e) => e.type)).toEqual([]);
    expect(solver.counters.claimed).toBe(1);
  });

  it("names the auction's winner in an exclusive output context; another solver's fill reverts ExclusiveTo until then", async () => {
    const opened = await openOrder(2);
    const winner = solvers.solvers.find((s) => s.solverId === opened.solverId)!;
    const output = opened.order.outputs[0]!;
    // 0xe0 ‖ bytes32(winner) ‖ uint32(until): OIF's exclusive limit order.
    expect(output.context.slice(0, 4)).toBe('0xe0');
    expect(output.context.slice(4, 68)).toBe(addressToBytes32(winner.wallet.address).slice(2).toLowerCase());
    const until = Number.parseInt(output.context.slice(68), 16);
    expect(until).toBeGreaterThan(0);
    expect(until).toBeLessThanOrEqual(opened.order.fillDeadline);

    const intruder = client(destination, manifest.accounts.deployer[0]!.privateKey);
    const attempt = intruder.public.simulateContract({
      account: intruder.account,
      address: destination.contracts.OutputSettler!,
      abi: OutputSettlerArtifact.abi,
      functionName: 'fill',
      args: [opened.onchainOrderId, { ...output }, opened.order.fillDeadline, addressToBytes32(intruder.account.address)],
    });
    await expect(attempt).rejects.toThrow(/ExclusiveTo/);
  });

  it('scripted behaviours: decline, silent, late and invalid quotes', async () => {
    const [a, b, c] = solvers.solvers as [(typeof solvers.solvers)[0], (typeof solvers.solvers)[0], (typeof solvers.solvers)[0]];
    try {
      a.setBehaviour({ quote: 'decline' });
      b.setBehaviour({ quote: 'invalid' });
      c.setBehaviour({ quote: 'late' });
      const seenB = events(1);
      const seenC = events(2);
      const none = await rest
        .requestQuotes({ pair: 'USDC/USDC', side: 'sell', amount: '20000', chain: origin.name })
        .catch((e: unknown) => e);
      expect(none).toMatchObject({ status: 422, code: 'corridor_unavailable' });
      await until(() => seenC.find((e) => e.type === 'rejected'), 'the late quote to be rejected', 5_000);
      expect(seenB.find((e) => e.type === 'rejected')).toMatchObject({ code: 'malformed' });
      expect(seenC.find((e) => e.type === 'rejected')).toMatchObject({ code: 'rfq_expired' });
      const view = await rest.getRfq(await latestRfq());
      expect(view.responses.map((r) => r.outcome).sort()).toEqual(['declined', 'rejected', 'silent']);
    } finally {
      for (const solver of solvers.solvers) solver.setBehaviour({});
    }
  });

  it('never fills, or fills late: the late fill lands after the deadline and cannot be claimed', async () => {
    const opened = await openOrder(1);
    const index = solvers.solvers.findIndex((s) => s.solverId === opened.solverId);
    const solver = solvers.solvers[index]!;
    const seen = events(index);
    solver.setBehaviour({ fill: 'late' });
    const assigned = {
      type: 'order.assigned' as const,
      orderId: opened.orderId,
      quoteId: opened.quoteId,
      onchainOrderId: opened.onchainOrderId,
      lockType: 'Permit2Escrow' as const,
      originChainId: origin.chainId,
      destinationChainId: destination.chainId,
      standardOrder: (await rest.getQuote(opened.quoteId)).standardOrder,
      fillDeadline: opened.order.fillDeadline,
    };
    auction.notifier.notify(opened.solverId, assigned);
    await until(() => seen.find((e) => e.type === 'assigned'), 'the assignment');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(seen.find((e) => e.type === 'filled')).toBeUndefined();
    const now = Number((await client(destination, manifest.accounts.deployer[0]!.privateKey).public.getBlock()).timestamp);
    await sandbox.advanceTime(opened.order.fillDeadline - now + 1);
    const filled = await until(() => seen.find((e): e is Extract<SolverEvent, { type: 'filled' }> => e.type === 'filled'), 'the late fill');
    expect(filled.timestamp).toBeGreaterThan(opened.order.fillDeadline);
    const solveParams = await attest(opened.order, opened.onchainOrderId, filled.txHash);
    auction.notifier.notify(opened.solverId, {
      type: 'order.attested',
      orderId: opened.orderId,
      onchainOrderId: opened.onchainOrderId,
      lockType: 'Permit2Escrow',
      originChainId: origin.chainId,
      standardOrder: assigned.standardOrder,
      solveParams,
    });
    await until(() => seen.find((e) => e.type === 'error'), 'the claim to fail');
    expect(seen.find((e) => e.type === 'claimed')).toBeUndefined();

    // `never`: a won order is left alone.
    solver.setBehaviour({ fill: 'never' });
    auction.notifier.notify(opened.solverId, { ...assigned, orderId: `${opened.orderId}-again` });
    await until(() => seen.find((e) => e.type === 'skipped'), 'the skip');
    solver.setBehaviour({});
  });
  it('quotes only what its destination balance holds; a rebalance brings inventory back from the chain its claims piled up on', async () => {
    const index = 2;
    const solver = solvers.solvers[index]!;
    const seen = events(index);
    const units = 10n ** 6n;
    // Its destination inventory gone but 1,000 USDC (as after a run of one-way orders): it must not quote 50,000.
    const held = await balance(destination, solver.wallet.address);
    await solver.wallet.transfer(destination.chainId, usdc(destination), BRIDGE_BURN_ADDRESS, held - 1_000n * units);
    const response = await rest.requestQuotes({ pair: 'USDC/USDC', side: 'sell', amount: '50000', chain: origin.name });
    expect(response.quotes.map((q) => q.solverId)).not.toContain(solver.solverId);
    await until(() => seen.find((e) => e.type === 'declined'), 'the decline');
    expect(seen).toContainEqual(
      expect.objectContaining({
        type: 'declined',
        reason: expect.stringMatching(/^cannot deliver \d+ on chain \d+: holds 1000000000, owes 0 /),
      }),
    );
    expect(seen.filter((e) => e.type === 'short')).toHaveLength(1);

    // A bridge whose arriving half the deployer mints: the shortfall is made up from the origin chain's surplus.
    const deployer = client(destination, manifest.accounts.deployer[0]!.privateKey);
    const reports: InventoryReport[] = [];
    const inventory = new SolverInventory({
      chains: manifest.chains,
      wallet: solver.wallet,
      workingTokens: 100_000,
      bridge: async (chainId, symbol, whole) => {
        expect([chainId, symbol]).toEqual([destination.chainId, 'USDC']);
        await send(deployer, {
          address: usdc(destination),
          abi: sandboxStablecoinAbi,
          functionName: 'mint',
          args: [solver.wallet.address, whole * units],
        });
      },
      report: (event) => reports.push(event),
    });
    const originBefore = await balance(origin, solver.wallet.address);
    await inventory.rebalance(true);
    expect(await balance(destination, solver.wallet.address)).toBe(100_000n * units);
    expect(await balance(origin, solver.wallet.address)).toBe(originBefore - 99_000n * units);
    expect(await balance(origin, BRIDGE_BURN_ADDRESS)).toBe(99_000n * units);
    expect(reports).toEqual([
      {
        type: 'rebalanced',
        symbol: 'USDC',
        fromChainId: origin.chainId,
        toChainId: destination.chainId,
        amount: '99000',
        txHash: expect.any(String),
      },
    ]);
    // Balanced now: nothing more moves.
    await inventory.rebalance(true);
    expect(reports).toHaveLength(1);
  }, 60_000);
});

async function latestRfq(): Promise<string> {
  const row = service.store.db.prepare('SELECT id FROM rfqs ORDER BY created_at DESC, rowid DESC LIMIT 1').get() as { id: string };
  return row.id;
}
