/**
 * The contracts on real anvil chains, driven by viem exactly as a client would: deployed through the CREATE2
 * deployer with Permit2's code at its canonical address (by the devnet), orders signed with `signTypedData` over
 * the src/contracts payloads, the TS order id checked against the settler's `orderIdentifier`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Address,
  type Hex,
  type PublicClient,
  createPublicClient,
  createWalletClient,
  encodeAbiParameters,
  erc20Abi,
  http,
  parseEventLogs,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { startSandbox, type Sandbox } from '../sandbox/sandbox.js';
import type { ChainInfo } from './deployment.js';
import {
  InputOracleArtifact,
  InputSettlerCompactArtifact,
  InputSettlerEscrowArtifact,
  OutputOracleArtifact,
  OutputSettlerArtifact,
  ResourceLockArtifact,
} from './artifacts/index.js';
import {
  type StandardOrder,
  addressToBytes32,
  compactClaimSignatures,
  compactOrderTypedData,
  eip3009OpenSignature,
  eip3009OrderTypedData,
  encodeFillDescription,
  orderIdentifier,
  permit2OpenSignature,
  permit2OrderTypedData,
  toAbiOrder,
} from './index.js';
import { buildStandardOrder, compactLockTag } from './standard-order.js';

const GAS = 1_500_000n;
const AMOUNT = 25_000_000_000n; // 25,000 tokens at 6 decimals
const OUTPUT = 24_990_000_000n;

let sandbox: Sandbox;
let origin: ChainInfo;
let destination: ChainInfo;

function clients(chain: ChainInfo, privateKey: Hex) {
  const viemChain = {
    id: chain.chainId,
    name: chain.name,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [chain.rpcUrl] } },
  } as const;
  const account = privateKeyToAccount(privateKey);
  const transport = http(chain.rpcUrl);
  return {
    account,
    public: createPublicClient({ chain: viemChain, transport, pollingInterval: 10 }) as PublicClient,
    wallet: createWalletClient({ chain: viemChain, transport, account, pollingInterval: 10 }),
  };
}

function token(chain: ChainInfo, symbol: string): Address {
  const found = chain.tokens.find((t) => t.symbol === symbol);
  if (!found) throw new Error(`no ${symbol} on ${chain.name}`);
  return found.address;
}

async function chainNow(chain: ChainInfo): Promise<number> {
  const c = clients(chain, sandbox.manifest.accounts.deployer[0]!.privateKey);
  return Number((await c.public.getBlock()).timestamp);
}

async function send(client: ReturnType<typeof clients>, request: Parameters<ReturnType<typeof clients>['wallet']['writeContract']>[0]) {
  const hash = await client.wallet.writeContract({ gas: GAS, ...request } as never);
  const receipt = await client.public.waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success') throw new Error(`transaction ${hash} reverted`);
  return receipt;
}

async function balance(chain: ChainInfo, tokenAddress: Address, owner: Address): Promise<bigint> {
  return clients(chain, sandbox.manifest.accounts.deployer[0]!.privateKey).public.readContract({
    address: tokenAddress,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [owner],
  });
}

/** Solver fills on the destination; the oracle relayer carries the proof to the origin. Returns solve params. */
async function fillAndAttest(order: StandardOrder, orderId: Hex, solverKey: Hex) {
  const solver = clients(destination, solverKey);
  const output = order.outputs[0]!;
  const outputToken = `0x${output.token.slice(26)}` as Address;
  await send(solver, {
    address: outputToken,
    abi: erc20Abi,
    functionName: 'approve',
    args: [destination.contracts.OutputSettler!, output.amount],
  });
  const fill = await send(solver, {
    address: destination.contracts.OutputSettler!,
    abi: OutputSettlerArtifact.abi,
    functionName: 'fill',
    args: [
      orderId,
      { ...output },
      order.fillDeadline,
      encodeAbiParameters([{ type: 'bytes32' }], [addressToBytes32(solver.account.address)]),
    ],
  });
  const [filled] = parseEventLogs({ abi: OutputSettlerArtifact.abi, logs: fill.logs, eventName: 'OutputFilled' });
  expect(filled!.args.orderId).toBe(orderId);

  const relayerKey = sandbox.manifest.accounts.oracleRelayer[0]!.privateKey;
  const payloadOwner = clients(destination, relayerKey);
  const submit = await send(payloadOwner, {
    address: destination.contracts.OutputOracle!,
    abi: OutputOracleArtifact.abi,
    functionName: 'submit',
    args: [destination.contracts.OutputSettler!, [encodeFillDescription(filled!.args.solver, orderId, filled!.args.timestamp, output)]],
  });
  const [proven] = parseEventLogs({ abi: OutputOracleArtifact.abi, logs: submit.logs, eventName: 'OutputAttested' });
  await send(clients(origin, relayerKey), {
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
  return [{ timestamp: filled!.args.timestamp, solver: filled!.args.solver }];
}

function terms(lockType: 'Permit2Escrow' | 'EIP3009Escrow' | 'ResourceLock', now: number, symbol = 'USDC') {
  return {
    originChain: origin,
    destinationChain: destination,
    inputToken: token(origin, symbol),
    outputToken: token(destination, symbol),
    inputAmount: AMOUNT,
    outputAmount: OUTPUT,
    lockType,
    fillDeadline: now + 600,
    expires: now + 900,
  };
}

beforeAll(async () => {
  sandbox = await startSandbox({ chains: 2 });
  [origin, destination] = sandbox.manifest.chains as [ChainInfo, ChainInfo];
}, 120_000);

afterAll(async () => {
  await sandbox?.stop();
});

describe('contracts on a real devnet', () => {
  it('has every contract at the same address on both chains and Permit2 at the canonical address', async () => {
    expect(origin.contracts).toEqual(destination.contracts);
    expect(origin.contracts.Permit2).toBe('0x000000000022D473030F116dDEE9F6B43aC78BA3');
    const code = await clients(origin, sandbox.manifest.accounts.deployer[0]!.privateKey).public.getCode({
      address: origin.contracts.Permit2!,
    });
    expect(code && code.length > 1000).toBe(true);
  });

  it('Permit2Escrow: open → fill → attest → finalise pays the solver and the taker', async () => {
    const takerKey = sandbox.manifest.accounts.takers[0]!.privateKey;
    const solverKey = sandbox.manifest.accounts.solvers[0]!.privateKey;
    const taker = clients(origin, takerKey);
    const solverAddress = privateKeyToAccount(solverKey).address;
    const order = buildStandardOrder(terms('Permit2Escrow', await chainNow(origin)), taker.account.address, 1001n);
    const escrow = origin.contracts.InputSettlerEscrow!;

    const orderId = orderIdentifier(order, escrow);
    const onchainId = await taker.public.readContract({
      address: escrow,
      abi: InputSettlerEscrowArtifact.abi,
      functionName: 'orderIdentifier',
      args: [toAbiOrder(order)],
    });
    expect(onchainId).toBe(orderId);

    const signature = await taker.account.signTypedData(permit2OrderTypedData(order, escrow) as never);
    const relayer = clients(origin, sandbox.manifest.accounts.serviceRelayer[0]!.privateKey);
    const takerBefore = await balance(origin, token(origin, 'USDC'), taker.account.address);
    await send(relayer, {
      address: escrow,
      abi: InputSettlerEscrowArtifact.abi,
      functionName: 'openFor',
      args: [toAbiOrder(order), taker.account.address, permit2OpenSignature(signature)],
    });
    expect(await balance(origin, token(origin, 'USDC'), taker.account.address)).toBe(takerBefore - AMOUNT);

    const recipientBefore = await balance(destination, token(destination, 'USDC'), taker.account.address);
    const solveParams = await fillAndAttest(order, orderId, solverKey);
    expect(await balance(destination, token(destination, 'USDC'), taker.account.address)).toBe(recipientBefore + OUTPUT);

    const solverBefore = await balance(origin, token(origin, 'USDC'), solverAddress);
    await send(clients(origin, solverKey), {
      address: escrow,
      abi: InputSettlerEscrowArtifact.abi,
      functionName: 'finalise',
      args: [toAbiOrder(order), solveParams, addressToBytes32(solverAddress), '0x'],
    });
    expect(await balance(origin, token(origin, 'USDC'), solverAddress)).toBe(solverBefore + AMOUNT);
    expect(
      await taker.public.readContract({
        address: escrow,
        abi: InputSettlerEscrowArtifact.abi,
        functionName: 'orderStatus',
        args: [orderId],
      }),
    ).toBe(2);
  });

  it('EIP3009Escrow: open, then refund only after expiry', async () => {
    const takerKey = sandbox.manifest.accounts.takers[1]!.privateKey;
    const taker = clients(origin, takerKey);
    const order = buildStandardOrder(terms('EIP3009Escrow', await chainNow(origin)), taker.account.address, 1002n);
    const escrow = origin.contracts.InputSettlerEscrow!;
    const orderId = orderIdentifier(order, escrow);
    const usdc = origin.tokens.find((t) => t.symbol === 'USDC')!;
    const signature = await taker.account.signTypedData(
      eip3009OrderTypedData(order, 0, { name: usdc.name, version: '2', address: usdc.address }, escrow, orderId) as never,
    );
    const before = await balance(origin, usdc.address, taker.account.address);
    const relayer = clients(origin, sandbox.manifest.accounts.serviceRelayer[0]!.privateKey);
    await send(relayer, {
      address: escrow,
      abi: InputSettlerEscrowArtifact.abi,
      functionName: 'openFor',
      args: [toAbiOrder(order), taker.account.address, eip3009OpenSignature([signature])],
    });
    expect(await balance(origin, usdc.address, taker.account.address)).toBe(before - AMOUNT);

    // At expires the refund still reverts (it needs now > expires); one second later it pays the user.
    const now = await chainNow(origin);
    await sandbox.advanceTime(order.expires - now - 1);
    await expect(
      send(relayer, { address: escrow, abi: InputSettlerEscrowArtifact.abi, functionName: 'refund', args: [toAbiOrder(order)] }),
    ).rejects.toThrow();
    await sandbox.advanceTime(2);
    await send(relayer, { address: escrow, abi: InputSettlerEscrowArtifact.abi, functionName: 'refund', args: [toAbiOrder(order)] });
    expect(await balance(origin, usdc.address, taker.account.address)).toBe(before);
    expect(
      await taker.public.readContract({
        address: escrow,
        abi: InputSettlerEscrowArtifact.abi,
        functionName: 'orderStatus',
        args: [orderId],
      }),
    ).toBe(3);
  });

  it('ResourceLock: deposit → fill → attest → claim through the Compact subset', async () => {
    const takerKey = sandbox.manifest.accounts.takers[2]!.privateKey;
    const solverKey = sandbox.manifest.accounts.solvers[1]!.privateKey;
    const taker = clients(origin, takerKey);
    const solverAddress = privateKeyToAccount(solverKey).address;
    const usdc = token(origin, 'USDC');
    const lock = origin.contracts.ResourceLock!;
    const lockTag = compactLockTag(origin.contracts.AlwaysOkAllocator!);
    await send(taker, { address: usdc, abi: erc20Abi, functionName: 'approve', args: [lock, AMOUNT] });
    await send(taker, {
      address: lock,
      abi: ResourceLockArtifact.abi,
      functionName: 'depositERC20',
      args: [usdc, lockTag, AMOUNT, taker.account.address],
    });

    const order = buildStandardOrder(terms('ResourceLock', await chainNow(origin)), taker.account.address, 1003n);
    const settler = origin.contracts.InputSettlerCompact!;
    const orderId = orderIdentifier(order, settler);
    expect(
      await taker.public.readContract({
        address: settler,
        abi: InputSettlerCompactArtifact.abi,
        functionName: 'orderIdentifier',
        args: [toAbiOrder(order)],
      }),
    ).toBe(orderId);
    const [lockId] = order.inputs[0]!;
    expect(
      await taker.public.readContract({
        address: lock,
        abi: ResourceLockArtifact.abi,
        functionName: 'balanceOf',
        args: [taker.account.address, lockId],
      }),
    ).toBe(AMOUNT);

    const sponsorSignature = await taker.account.signTypedData(compactOrderTypedData(order, lock, settler) as never);
    const solveParams = await fillAndAttest(order, orderId, solverKey);
    const solverBefore = await balance(origin, usdc, solverAddress);
    await send(clients(origin, solverKey), {
      address: settler,
      abi: InputSettlerCompactArtifact.abi,
      functionName: 'finalise',
      args: [toAbiOrder(order), compactClaimSignatures(sponsorSignature), solveParams, addressToBytes32(solverAddress), '0x'],
    });
    expect(await balance(origin, usdc, solverAddress)).toBe(solverBefore + AMOUNT);
    expect(
      await taker.public.readContract({
        address: lock,
        abi: ResourceLockArtifact.abi,
        functionName: 'balanceOf',
        args: [taker.account.address, lockId],
      }),
    ).toBe(0n);
  });
});
