/**
 * An outside check of OIF compatibility: a solver and an indexer written only from upstream's sources
 * (openintentsframework/oif-contracts at 5323b1b), with ethers v6 instead of viem, against `sandbox up --solvers 0`.
 * The ABI below is human-readable signatures copied from upstream's interfaces and contracts; nothing of ours is
 * imported except what starts the sandbox. The service is only reached over HTTP, as any client would.
 *
 * Covered: open and openFor (self), discovery from `Open` logs, fill, the fill record read both ways, the
 * attestation (`OutputProven` on the input oracle and `isProven`), finalise, finaliseWithSignature (AllowOpen) and
 * a refund after expiry; the service picks the on-chain orders up (`GET /api/v1/orders/ord_<order id hex>`).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AbiCoder,
  Contract,
  Interface,
  JsonRpcProvider,
  type Log,
  TypedDataEncoder,
  Wallet,
  keccak256,
  solidityPacked,
  zeroPadValue,
} from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultChains } from '../../src/devnet/chain-config.js';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { runSandbox } from '../../src/sandbox/run.js';
import {
  ERC20_ABI,
  ESCROW_ABI,
  INPUT_ORACLE_ABI,
  type Order,
  OUTPUT_SETTLER_ABI,
  fillDescription,
  id32,
  mandateOutputHash,
  mined,
  orderIdentifier,
  until,
} from './upstream-oif.js';

// ---- sandbox -------------------------------------------------------------------------------------------------

let sandbox: Sandbox;
let stateDir: string;
let apiUrl: string;
let origin: { chainId: bigint; provider: JsonRpcProvider; contracts: Record<string, string>; usdc: string };
let destination: { chainId: bigint; provider: JsonRpcProvider; contracts: Record<string, string>; usdc: string };
let takerKey: string;
let solverKey: string;
let strangerKey: string;

async function apiOrder(onchainOrderId: string): Promise<{ orderId: string; onchainOrderId: string; status: string } | undefined> {
  const response = await fetch(`${apiUrl}/api/v1/orders/ord_${onchainOrderId.slice(2).toLowerCase()}`);
  if (response.status === 404) return undefined;
  return (await response.json()) as { orderId: string; onchainOrderId: string; status: string };
}

async function apiStatus(onchainOrderId: string, status: string) {
  return until(async () => {
    const order = await apiOrder(onchainOrderId);
    return order?.status === status ? order : undefined;
  }, `the service to report ${status}`);
}

beforeAll(async () => {
  stateDir = await mkdtemp(join(tmpdir(), 'oif-interop-'));
  sandbox = await runSandbox({ stateDir, chains: defaultChains(2, 'any'), fresh: true, solvers: 0 }, () => {});
  const { manifest } = sandbox;
  apiUrl = manifest.api!.url.replace(/\/api\/v1\/?$/, '');
  const side = (index: number) => {
    const chain = manifest.chains[index]!;
    return {
      chainId: BigInt(chain.chainId),
      provider: new JsonRpcProvider(chain.rpcUrl, Number(chain.chainId), {
        staticNetwork: true,
        polling: true,
        pollingInterval: 50,
        cacheTimeout: -1,
      }),
      contracts: chain.contracts as Record<string, string>,
      usdc: chain.tokens.find((t) => t.symbol === 'USDC')!.address,
    };
  };
  origin = side(0);
  destination = side(1);
  takerKey = manifest.accounts.takers[4]!.privateKey;
  solverKey = manifest.accounts.solvers[0]!.privateKey;
  strangerKey = manifest.accounts.takers[3]!.privateKey;
}, 180_000);

afterAll(async () => {
  origin?.provider.destroy();
  destination?.provider.destroy();
  await sandbox?.stop();
  if (stateDir) await rm(stateDir, { recursive: true, force: true });
});

// ---- the third-party flow ------------------------------------------------------------------------------------

let nonce = BigInt(Date.now()) * 1000n;

async function newOrder(amount: bigint, fillWindow = 600, refundWindow = 600): Promise<Order> {
  const taker = new Wallet(takerKey);
  const now = (await origin.provider.getBlock('latest'))!.timestamp;
  return {
    user: taker.address,
    nonce: nonce++,
    originChainId: origin.chainId,
    expires: now + fillWindow + refundWindow,
    fillDeadline: now + fillWindow,
    inputOracle: origin.contracts.InputOracle!,
    inputs: [[BigInt(origin.usdc), amount]],
    outputs: [
      {
        oracle: id32(destination.contracts.OutputOracle!),
        settler: id32(destination.contracts.OutputSettler!),
        chainId: destination.chainId,
        token: id32(destination.usdc),
        amount: amount - amount / 100n,
        recipient: id32(taker.address),
        callbackData: '0x',
        context: '0x',
      },
    ],
  };
}

/** Opens with `open` or `openFor` (self: sponsor = caller, empty signature) and finds the order from its Open log. */
async function openOnChain(order: Order, how: 'open' | 'openFor'): Promise<string> {
  const taker = new Wallet(takerKey, origin.provider);
  const token = new Contract(origin.usdc, ERC20_ABI, taker);
  await mined(token.getFunction('approve')(origin.contracts.InputSettlerEscrow!, order.inputs[0]![1]));
  const escrow = new Contract(origin.contracts.InputSettlerEscrow!, ESCROW_ABI, taker);
  const receipt =
    how === 'open'
      ? await mined(escrow.getFunction('open')(order))
      : await mined(escrow.getFunction('openFor')(order, taker.address, '0x'));

  // Indexer: discover the order from Open logs only.
  const iface = new Interface(ESCROW_ABI);
  const logs = await origin.provider.getLogs({
    address: origin.contracts.InputSettlerEscrow!,
    topics: [iface.getEvent('Open')!.topicHash],
    fromBlock: receipt.blockNumber,
    toBlock: receipt.blockNumber,
  });
  const parsed = logs
    .map((log: Log) => iface.parseLog(log)!)
    .find((p) => p.args.order.user === order.user && p.args.order.nonce === order.nonce);
  expect(parsed).toBeDefined();
  const orderId = parsed!.args.orderId as string;
  const seen = parsed!.args.order;
  expect(seen.inputs[0][1]).toBe(order.inputs[0]![1]);
  expect(seen.outputs[0].recipient).toBe(order.outputs[0]!.recipient);
  expect(orderId).toBe(orderIdentifier(order, origin.chainId, origin.contracts.InputSettlerEscrow!));
  expect(await escrow.getFunction('orderIdentifier')(order)).toBe(orderId);
  expect(await escrow.getFunction('orderStatus')(orderId)).toBe(1n);
  return orderId;
}

/** Solver: fills the single output, reads the fill record both ways, waits for the attestation on the origin. */
async function fillAndAwaitProof(order: Order, orderId: string) {
  const solver = new Wallet(solverKey, destination.provider);
  const output = order.outputs[0]!;
  const token = new Contract(destination.usdc, ERC20_ABI, solver);
  await mined(token.getFunction('approve')(destination.contracts.OutputSettler!, output.amount));
  const settler = new Contract(destination.contracts.OutputSettler!, OUTPUT_SETTLER_ABI, solver);
  const solverId = id32(solver.address);
  const fillerData = AbiCoder.defaultAbiCoder().encode(['bytes32'], [solverId]);
  const receipt = await mined(settler.getFunction('fill')(orderId, output, order.fillDeadline, fillerData));
  const filled = receipt.logs.map((log) => settler.interface.parseLog(log)).find((p) => p?.name === 'OutputFilled')!;
  const timestamp = Number(filled.args.timestamp);
  expect(filled.args.solver).toBe(solverId);

  const record = keccak256(solidityPacked(['bytes32', 'uint32'], [solverId, timestamp]));
  expect(await settler.getFunction('getFillRecord(bytes32,bytes32)')(orderId, mandateOutputHash(output))).toBe(record);
  expect(
    await settler.getFunction(`getFillRecord(bytes32,(bytes32,bytes32,uint256,bytes32,uint256,bytes32,bytes,bytes))`)(orderId, output),
  ).toBe(record);

  // The attestation reaches the origin chain's input oracle (the service relays it): OutputProven and isProven.
  const payloadHash = keccak256(fillDescription(solverId, orderId, timestamp, output));
  const inputOracle = new Contract(origin.contracts.InputOracle!, INPUT_ORACLE_ABI, origin.provider);
  const proven = await until(async () => {
    const logs = await inputOracle.queryFilter(inputOracle.filters.OutputProven!(), 0, 'latest');
    return logs.map((log) => inputOracle.interface.parseLog(log)!).find((p) => p.args.payloadHash === payloadHash);
  }, 'OutputProven on the input oracle');
  expect(proven.args.chainid).toBe(destination.chainId);
  expect(proven.args.remoteIdentifier).toBe(output.oracle);
  expect(proven.args.application).toBe(output.settler);
  expect(await inputOracle.getFunction('isProven')(destination.chainId, output.oracle, output.settler, payloadHash)).toBe(true);
  return [{ timestamp, solver: solverId }];
}

describe('OIF upstream interop (ethers v6, sandbox --solvers 0)', () => {
  it('open → discover via Open → fill → fill record both ways → OutputProven/isProven → finalise', async () => {
    const order = await newOrder(20_000_000n);
    const orderId = await openOnChain(order, 'open');
    const listed = await apiStatus(orderId, 'Deposited');
    expect(listed.orderId).toBe(`ord_${orderId.slice(2)}`);
    expect(listed.onchainOrderId).toBe(orderId);

    const solveParams = await fillAndAwaitProof(order, orderId);
    const solver = new Wallet(solverKey, origin.provider);
    const escrow = new Contract(origin.contracts.InputSettlerEscrow!, ESCROW_ABI, solver);
    const before = await new Contract(origin.usdc, ERC20_ABI, origin.provider).getFunction('balanceOf')(solver.address);
    const receipt = await mined(escrow.getFunction('finalise')(order, solveParams, id32(solver.address), '0x'));
    expect(receipt.logs.some((log) => escrow.interface.parseLog(log)?.name === 'Finalised')).toBe(true);
    const after = await new Contract(origin.usdc, ERC20_ABI, origin.provider).getFunction('balanceOf')(solver.address);
    expect(after - before).toBe(order.inputs[0]![1]);
    expect(await escrow.getFunction('orderStatus')(orderId)).toBe(2n);
    await apiStatus(orderId, 'Claimed');
  }, 120_000);

  it('openFor → fill → finaliseWithSignature: the owner signs AllowOpen, a stranger submits', async () => {
    const order = await newOrder(15_000_000n);
    const orderId = await openOnChain(order, 'openFor');
    const solveParams = await fillAndAwaitProof(order, orderId);

    const owner = new Wallet(solverKey);
    const escrowAddress = origin.contracts.InputSettlerEscrow!;
    const domain = { name: 'OIFEscrow', version: '1', chainId: origin.chainId, verifyingContract: escrowAddress };
    const stranger = new Wallet(strangerKey, origin.provider);
    const escrow = new Contract(escrowAddress, ESCROW_ABI, stranger);
    expect(await escrow.getFunction('DOMAIN_SEPARATOR')()).toBe(TypedDataEncoder.hashDomain(domain));

    const vault = Wallet.createRandom().address;
    const types = {
      AllowOpen: [
        { name: 'orderId', type: 'bytes32' },
        { name: 'destination', type: 'bytes32' },
        { name: 'call', type: 'bytes' },
      ],
    };
    const signature = await owner.signTypedData(domain, types, { orderId, destination: id32(vault), call: '0x' });
    await mined(escrow.getFunction('finaliseWithSignature')(order, solveParams, id32(vault), '0x', signature));
    expect(await new Contract(origin.usdc, ERC20_ABI, origin.provider).getFunction('balanceOf')(vault)).toBe(order.inputs[0]![1]);
    await apiStatus(orderId, 'Claimed');
  }, 120_000);

  it('openFor with a Permit2 batch witness signature (0x00 ‖ sig), relayed by someone else', async () => {
    const order = await newOrder(7_000_000n);
    const taker = new Wallet(takerKey);
    const escrowAddress = origin.contracts.InputSettlerEscrow!;
    // Upstream's Permit2WitnessType: PermitBatchWitnessTransferFrom with the Permit2Witness witness.
    const domain = { name: 'Permit2', chainId: origin.chainId, verifyingContract: '0x000000000022D473030F116dDEE9F6B43aC78BA3' };
    const types = {
      PermitBatchWitnessTransferFrom: [
        { name: 'permitted', type: 'TokenPermissions[]' },
        { name: 'spender', type: 'address' },
        { name: 'nonce', type: 'uint256' },
        { name: 'deadline', type: 'uint256' },
        { name: 'witness', type: 'Permit2Witness' },
      ],
      TokenPermissions: [
        { name: 'token', type: 'address' },
        { name: 'amount', type: 'uint256' },
      ],
      Permit2Witness: [
        { name: 'user', type: 'address' },
        { name: 'expires', type: 'uint32' },
        { name: 'inputOracle', type: 'address' },
        { name: 'outputs', type: 'MandateOutput[]' },
      ],
      MandateOutput: [
        { name: 'oracle', type: 'bytes32' },
        { name: 'settler', type: 'bytes32' },
        { name: 'chainId', type: 'uint256' },
        { name: 'token', type: 'bytes32' },
        { name: 'amount', type: 'uint256' },
        { name: 'recipient', type: 'bytes32' },
        { name: 'callbackData', type: 'bytes' },
        { name: 'context', type: 'bytes' },
      ],
    };
    const message = {
      permitted: order.inputs.map(([id, amount]) => ({ token: zeroPadValue(`0x${id.toString(16)}`, 20), amount })),
      spender: escrowAddress,
      nonce: order.nonce,
      deadline: order.fillDeadline,
      witness: { user: order.user, expires: order.expires, inputOracle: order.inputOracle, outputs: order.outputs },
    };
    const signature = await taker.signTypedData(domain, types, message);
    const relayer = new Wallet(strangerKey, origin.provider);
    const escrow = new Contract(escrowAddress, ESCROW_ABI, relayer);
    const receipt = await mined(escrow.getFunction('openFor')(order, taker.address, `0x00${signature.slice(2)}`));
    const open = receipt.logs.map((log) => escrow.interface.parseLog(log)).find((p) => p?.name === 'Open')!;
    expect(open.args.orderId).toBe(orderIdentifier(order, origin.chainId, escrowAddress));
    expect(await escrow.getFunction('orderStatus')(open.args.orderId)).toBe(1n);
    await apiStatus(open.args.orderId, 'Deposited');
  }, 120_000);

  it('refund after expiry returns the inputs to the user', async () => {
    const order = await newOrder(5_000_000n, 60, 60);
    const orderId = await openOnChain(order, 'open');
    await apiStatus(orderId, 'Deposited');
    const taker = new Wallet(takerKey, origin.provider);
    const escrow = new Contract(origin.contracts.InputSettlerEscrow!, ESCROW_ABI, taker);
    await expect(escrow.getFunction('refund').staticCall(order)).rejects.toThrow();

    const now = (await origin.provider.getBlock('latest'))!.timestamp;
    await origin.provider.send('evm_setNextBlockTimestamp', [order.expires + 1 > now ? order.expires + 1 : now + 1]);
    await origin.provider.send('evm_mine', []);
    const before = await new Contract(origin.usdc, ERC20_ABI, origin.provider).getFunction('balanceOf')(taker.address);
    const receipt = await mined(escrow.getFunction('refund')(order));
    expect(receipt.logs.some((log) => escrow.interface.parseLog(log)?.name === 'Refunded')).toBe(true);
    const after = await new Contract(origin.usdc, ERC20_ABI, origin.provider).getFunction('balanceOf')(taker.address);
    expect(after - before).toBe(order.inputs[0]![1]);
    expect(await escrow.getFunction('orderStatus')(orderId)).toBe(3n);
    await apiStatus(orderId, 'Refunded');
  }, 120_000);
});
