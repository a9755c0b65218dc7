import { createServer, type Server } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPublicClient, encodeFunctionData, erc20Abi, http, parseAbi, type Address } from 'viem';
import { afterAll, describe, expect, it } from 'vitest';
import { CANONICAL_PERMIT2 } from '../contracts/order.js';
import { FUNDING, PERMIT2_ADDRESS } from './deployment.js';
import { ConfigError } from '../contracts/errors/config-error.js';
import { PortInUseError, SandboxAlreadyRunningError, StateMismatchError } from './errors.js';
import type { SandboxManifest } from '../contracts/deployment.js';
import { advanceSandboxTime } from './chain-time.js';
import { readManifest } from './manifest-file.js';
import { type Devnet, type SandboxChain, startDevnet } from './devnet.js';
import { viemChain } from '../contracts/viem-chain.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function started(promise: Promise<Devnet>): Promise<Devnet> {
  const sandbox = await promise;
  cleanups.push(() => sandbox.stop());
  return sandbox;
}

// viemChain carries the RPC URL: `http()` without an argument must reach the right chain.
const client = (chain: SandboxChain) => createPublicClient({ chain: viemChain(chain.info), transport: http() });
const token = (manifest: SandboxManifest, symbol: string): Address => {
  const found = manifest.chains[0]?.tokens.find((t) => t.symbol === symbol);
  if (!found) throw new Error(`no ${symbol}`);
  return found.address;
};

/** Sends a token transfer from an anvil dev account (unlocked: the sandbox passes its mnemonic to anvil). */
async function transfer(chain: SandboxChain, tokenAddress: Address, from: Address, to: Address, amount: bigint) {
  const { encodeFunctionData } = await import('viem');
  const data = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, amount] });
  const receipt = await chain.rpc.call<{ status: string }>('eth_sendTransactionSync', [{ from, to: tokenAddress, data, gas: '0x30000' }]);
  expect(receipt.status).toBe('0x1');
}

/**
 * Sends 1-unit USDC transfers from `from` to `to` one after another until `done()` says so, and records every one
 * that got a successful receipt. A call that gets no answer (the chain stopping, or down) is tried again after 20 ms.
 */
function keepTransferring(
  chain: SandboxChain,
  usdc: Address,
  from: Address,
  to: Address,
  timeoutMs: number,
  done: (receipts: readonly string[]) => boolean,
): { receipts: string[]; finished: Promise<void> } {
  const data = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, 1n] });
  const receipts: string[] = [];
  const finished = (async () => {
    while (!done(receipts)) {
      try {
        const receipt = await chain.rpc.call<{ transactionHash: string; status: string }>(
          'eth_sendTransactionSync',
          [{ from, to: usdc, data, gas: '0x30000' }],
          { timeoutMs },
        );
        if (receipt.status === '0x1') receipts.push(receipt.transactionHash);
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  })();
  return { receipts, finished };
}

/** The transactions of `hashes` the chain has no receipt for. */
async function missingReceipts(chain: SandboxChain, hashes: readonly string[]): Promise<string[]> {
  const missing: string[] = [];
  for (const hash of hashes) if ((await chain.rpc.call('eth_getTransactionReceipt', [hash])) === null) missing.push(hash);
  return missing;
}

describe('startDevnet', () => {
  it('runs two sandboxes side by side, each with two chains at local chain ids on their own ports', async () => {
    const [a, b] = await Promise.all([started(startDevnet()), started(startDevnet())]);
    const ports = [...a.chains, ...b.chains].map((c) => c.port);
    expect(new Set(ports).size).toBe(4);
    for (const sandbox of [a, b]) {
      expect(sandbox.chains.map((c) => [c.name, c.chainId])).toEqual([
        ['alpha', 31337],
        ['beta', 31338],
      ]);
      for (const chain of sandbox.chains) expect(await client(chain).getChainId()).toBe(chain.chainId);
    }
    // A transaction in one sandbox is invisible in the other.
    const [alphaA, alphaB] = [a.chains[0] as SandboxChain, b.chains[0] as SandboxChain];
    const taker = a.manifest.accounts.takers[0]?.address as Address;
    const solver = a.manifest.accounts.solvers[0]?.address as Address;
    const usdc = token(a.manifest, 'USDC');
    await transfer(alphaA, usdc, taker, solver, 5n);
    const balance = (chain: SandboxChain) =>
      client(chain).readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [taker] });
    expect(await balance(alphaB)).toBe((await balance(alphaA)) + 5n);
    // Each has its own state folder and manifest.
    expect(a.stateDir).not.toBe(b.stateDir);
    expect(JSON.parse(readFileSync(join(a.stateDir, 'sandbox.json'), 'utf8')).chains[0].rpcUrl).toBe(alphaA.rpcUrl);
  });

  it('places every contract at the same address on every chain and every run, also when deploying from scratch', async () => {
    const cached = await started(startDevnet());
    // An empty cache forces a real deployment through the CREATE2 deployer instead of loading the cached genesis.
    const scratch = await started(startDevnet({ cacheDir: tempDir('sandbox-cache-'), chains: 3 }));
    const [first] = cached.manifest.chains;
    for (const chain of [...cached.manifest.chains, ...scratch.manifest.chains]) {
      expect(chain.contracts).toEqual(first?.contracts);
      expect(chain.tokens).toEqual(first?.tokens);
    }
    expect(scratch.manifest.accounts).toEqual(cached.manifest.accounts);
    expect(scratch.manifest.deployment?.id).toBe(cached.manifest.deployment?.id);
    expect(first?.contracts.Permit2).toBe(PERMIT2_ADDRESS);
    expect(PERMIT2_ADDRESS).toBe(CANONICAL_PERMIT2);

    for (const chain of [...cached.chains, ...scratch.chains]) {
      const codes = await Promise.all(Object.values(chain.info.contracts).map((address) => client(chain).getCode({ address })));
      for (const code of codes) expect(code?.length ?? 0).toBeGreaterThan(2);
    }
    // The same runtime code for the same chain id in both runs (immutables such as EIP-712's cached chain id
    // make it differ between chain ids).
    const codeOf = (chain: SandboxChain, address: Address) => client(chain).getCode({ address });
    for (const address of Object.values(first?.contracts ?? {})) {
      for (const [i, chain] of cached.chains.entries()) {
        expect(await codeOf(scratch.chains[i] as SandboxChain, address)).toBe(await codeOf(chain, address));
      }
    }
  });

  it('deploys the tokens, the Permit2 domain and the funding the manifest describes', async () => {
    const sandbox = await started(startDevnet());
    const { manifest } = sandbox;
    expect(manifest.environment).toBe('sandbox');
    expect(manifest.chains[0]?.tokens.map((t) => [t.symbol, t.decimals, t.eip3009])).toEqual([
      ['USDC', 6, true],
      ['USDT', 6, false],
    ]);
    expect(Object.keys(manifest.accounts)).toEqual(['deployer', 'serviceRelayer', 'oracleRelayer', 'solvers', 'takers']);
    expect(manifest.accounts.solvers).toHaveLength(3);
    expect(manifest.accounts.takers).toHaveLength(5);
    expect(manifest.accounts.deployer[0]?.address).toBe('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266');
    const addresses = Object.values(manifest.accounts)
      .flat()
      .map((a) => a.address);
    expect(new Set(addresses).size).toBe(11);

    for (const chain of sandbox.chains) {
      const rpc = client(chain);
      const domain = await rpc.readContract({
        address: PERMIT2_ADDRESS,
        abi: parseAbi(['function DOMAIN_SEPARATOR() view returns (bytes32)']),
        functionName: 'DOMAIN_SEPARATOR',
      });
      const { hashDomain } = await import('viem');
      expect(domain).toBe(
        hashDomain({
          domain: { name: 'Permit2', chainId: BigInt(chain.chainId), verifyingContract: PERMIT2_ADDRESS },
          types: {
            EIP712Domain: [
              { name: 'name', type: 'string' },
              { name: 'chainId', type: 'uint256' },
              { name: 'verifyingContract', type: 'address' },
            ],
          },
        }),
      );
      for (const t of chain.info.tokens) {
        const read = <T>(functionName: 'decimals' | 'symbol') =>
          rpc.readContract({ address: t.address, abi: erc20Abi, functionName }) as Promise<T>;
        expect(await read<number>('decimals')).toBe(6);
        expect(await read<string>('symbol')).toBe(t.symbol);
        for (const taker of manifest.accounts.takers) {
          expect(await rpc.readContract({ address: t.address, abi: erc20Abi, functionName: 'balanceOf', args: [taker.address] })).toBe(
            FUNDING.tokensPerTaker * 10n ** 6n,
          );
          expect(
            await rpc.readContract({
              address: t.address,
              abi: erc20Abi,
              functionName: 'allowance',
              args: [taker.address, PERMIT2_ADDRESS],
            }),
          ).toBe(2n ** 256n - 1n);
        }
        for (const solver of manifest.accounts.solvers) {
          expect(await rpc.readContract({ address: t.address, abi: erc20Abi, functionName: 'balanceOf', args: [solver.address] })).toBe(
            FUNDING.tokensPerSolver * 10n ** 6n,
          );
        }
      }
      const relayer = await rpc.readContract({
        address: chain.info.contracts.InputOracle as Address,
        abi: parseAbi(['function relayer() view returns (address)']),
        functionName: 'relayer',
      });
      expect(relayer).toBe(manifest.accounts.oracleRelayer[0]?.address);
      expect(await rpc.getBalance({ address: manifest.accounts.serviceRelayer[0]?.address as Address })).toBe(
        FUNDING.etherPerAccount * 10n ** 18n,
      );
    }
  });

  it('keeps balances, contracts and chain time across stop and start, and starts clean with fresh', async () => {
    const stateDir = tempDir('sandbox-state-');
    const first = await startDevnet({ stateDir });
    const { manifest } = first;
    const usdt = token(manifest, 'USDT');
    const [taker, solver] = [manifest.accounts.takers[1]?.address as Address, manifest.accounts.solvers[2]?.address as Address];
    const beta = first.chains[1] as SandboxChain;
    await transfer(beta, usdt, taker, solver, 123_456n);
    const moved = await first.advanceTime(7 * 24 * 3600);
    const headBefore = await client(beta).getBlock();
    await first.stop();
    expect(JSON.parse(readFileSync(join(stateDir, 'chains', 'beta', 'meta.json'), 'utf8')).timeOffsetSeconds).toBe(moved[1]?.offsetSeconds);

    const second = await started(startDevnet({ stateDir }));
    const betaAgain = second.chains[1] as SandboxChain;
    const balanceOf = (chain: SandboxChain, who: Address) =>
      client(chain).readContract({ address: usdt, abi: erc20Abi, functionName: 'balanceOf', args: [who] });
    expect(await balanceOf(betaAgain, taker)).toBe(FUNDING.tokensPerTaker * 10n ** 6n - 123_456n);
    expect(await balanceOf(betaAgain, solver)).toBe(FUNDING.tokensPerSolver * 10n ** 6n + 123_456n);
    expect(second.manifest.chains[1]?.contracts).toEqual(manifest.chains[1]?.contracts);
    const headAfter = await client(betaAgain).getBlock();
    expect(headAfter.number).toBe(headBefore.number);
    // The week moved forward stays: a new block is not older than the saved head.
    const [, betaTime] = await second.advanceTime(0);
    expect(betaTime?.timestamp).toBeGreaterThanOrEqual(Number(headBefore.timestamp));
    expect(betaTime?.timestamp).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000) + 7 * 24 * 3600 - 5);
    await second.stop();

    const fresh = await started(startDevnet({ stateDir, fresh: true }));
    expect(await balanceOf(fresh.chains[1] as SandboxChain, taker)).toBe(FUNDING.tokensPerTaker * 10n ** 6n);
    const [, freshTime] = await fresh.chainTime();
    expect(freshTime?.offsetSeconds).toBe(0);
  });

  it('keeps every transaction a sender got a receipt for across a restart of its chain, also one sent during the save', async () => {
    const sandbox = await started(startDevnet({ stateDir: tempDir('sandbox-state-') }));
    const beta = sandbox.chains[1] as SandboxChain;
    const usdc = token(sandbox.manifest, 'USDC');
    const [taker, solver] = [
      sandbox.manifest.accounts.takers[2]?.address as Address,
      sandbox.manifest.accounts.solvers[1]?.address as Address,
    ];
    const before = await client(beta).readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [solver] });
    // Transfers one after the other for as long as the restart lasts: some are mined before the save, some are sent
    // while it runs, some are refused while the chain is down.
    let restarted = false;
    const { receipts, finished } = keepTransferring(beta, usdc, taker, solver, 5_000, (sent) => restarted && sent.length >= 5);
    while (receipts.length < 3) await new Promise((resolve) => setTimeout(resolve, 5));
    await sandbox.restartChain(beta.chainId);
    restarted = true;
    await finished;

    const after = await client(beta).readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [solver] });
    const missing = await missingReceipts(beta, receipts);
    expect(missing, `${missing.length} of ${receipts.length} receipted transfers gone after the restart`).toEqual([]);
    expect(after - before).toBe(BigInt(receipts.length));
  });

  it('a final save then close (how `sandbox up` stops) keeps every transaction a sender got a receipt for', async () => {
    const stateDir = tempDir('sandbox-state-');
    const first = await startDevnet({ stateDir });
    const beta = first.chains[1] as SandboxChain;
    const usdc = token(first.manifest, 'USDC');
    const [taker, solver] = [first.manifest.accounts.takers[3]?.address as Address, first.manifest.accounts.solvers[2]?.address as Address];
    const before = await client(beta).readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [solver] });
    // Transfers one after the other until the chain is gone: some are mined before the save, some while it runs.
    let closed = false;
    const { receipts, finished } = keepTransferring(beta, usdc, taker, solver, 2_000, () => closed);
    while (receipts.length < 3) await new Promise((resolve) => setTimeout(resolve, 5));
    await first.save({ final: true });
    await first.close();
    closed = true;
    await finished;

    const second = await started(startDevnet({ stateDir }));
    const betaAgain = second.chains[1] as SandboxChain;
    const after = await client(betaAgain).readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [solver] });
    const missing = await missingReceipts(betaAgain, receipts);
    expect(missing, `${missing.length} of ${receipts.length} receipted transfers gone after the stop`).toEqual([]);
    expect(after - before).toBe(BigInt(receipts.length));
  });

  it('advances the time of all chains together and mines a block on each', async () => {
    const sandbox = await started(startDevnet({ chains: 3 }));
    const before = await sandbox.chainTime();
    // Chains that drifted apart (one moved alone) are brought together.
    await sandbox.chains[2]?.rpc.call('evm_increaseTime', [50]);
    const after = await sandbox.advanceTime(3600);
    expect(after.map((t) => t.offsetSeconds)).toEqual([3650, 3650, 3650]);
    for (const [i, time] of after.entries()) {
      expect(time.blockNumber).toBe((before[i]?.blockNumber ?? 0) + 1);
      expect(time.timestamp).toBeGreaterThanOrEqual((before[i]?.timestamp ?? 0) + 3650);
    }
    const stamps = after.map((t) => t.timestamp);
    expect(Math.max(...stamps) - Math.min(...stamps)).toBeLessThanOrEqual(1);
    // From another process's point of view: through the manifest.
    const later = await advanceSandboxTime(readManifest(sandbox.stateDir, { requireRunning: true }), 60);
    expect(later.map((t) => t.offsetSeconds)).toEqual([3710, 3710, 3710]);
    await expect(sandbox.advanceTime(-1)).rejects.toThrow(RangeError);
    await expect(sandbox.advanceTime(1.5)).rejects.toThrow(RangeError);
  });
});

describe('chains from a configuration', () => {
  it('runs custom names and ids, one chain or several', async () => {
    const sandbox = await started(
      startDevnet({
        chains: [
          { name: 'left', chainId: 900001, port: 0 },
          { name: 'right', chainId: 900002, port: 0 },
        ],
      }),
    );
    expect(sandbox.manifest.chains.map((c) => `${c.name}:${c.chainId}`)).toEqual(['left:900001', 'right:900002']);
    expect(await client(sandbox.chains[1] as SandboxChain).getChainId()).toBe(900002);
    const single = await started(startDevnet({ chains: 1 }));
    expect(single.chains).toHaveLength(1);
  });

  it('reads the manifest of a running sandbox, and refuses a stopped one when asked', async () => {
    const stateDir = tempDir('sandbox-manifest-');
    const sandbox = await startDevnet({ stateDir });
    expect(readManifest(stateDir, { requireRunning: true })).toEqual(sandbox.manifest);
    await sandbox.stop();
    expect(() => readManifest(stateDir, { requireRunning: true })).toThrow(/No sandbox is running/);
    expect(readManifest(stateDir).chains).toHaveLength(2);
    expect(() => readManifest(tempDir('sandbox-empty-'))).toThrow(/No sandbox is running/);
  });
});

describe('startDevnet refuses', () => {
  it('a second sandbox on the same state folder', async () => {
    const stateDir = tempDir('sandbox-lock-');
    const first = await started(startDevnet({ stateDir }));
    const error = await startDevnet({ stateDir }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SandboxAlreadyRunningError);
    expect((error as Error).message).toContain(`already running on state folder ${first.stateDir}`);
    expect((error as Error).message).toContain(`pid ${process.pid}`);
    // The refused start did not disturb the running one.
    expect(await client(first.chains[0] as SandboxChain).getChainId()).toBe(31337);
  });

  it('a port in use, naming the port and the flag that changes it, and leaves nothing running', async () => {
    const server: Server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const port = (server.address() as { port: number }).port;
    const stateDir = tempDir('sandbox-port-');
    const error = await startDevnet({
      stateDir,
      chains: [
        { name: 'alpha', chainId: 31337, port: 0 },
        { name: 'beta', chainId: 31338, port },
      ],
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PortInUseError);
    expect((error as Error).message).toBe(`Port ${port} is already in use (chain beta). Choose other ports with --chain-ports.`);
    // The lock was released: the folder is usable at once.
    const retry = await started(startDevnet({ stateDir }));
    expect(retry.chains).toHaveLength(2);
  });

  it('chain ids of public networks unless allowed, and duplicate names, leaving no temporary folder', async () => {
    const { readdirSync } = await import('node:fs');
    // A private temp folder, so that other test processes' sandboxes do not show up in it.
    const privateTmp = tempDir('sandbox-tmp-');
    const previousTmp = process.env.TMPDIR;
    process.env.TMPDIR = privateTmp;
    try {
      await expect(startDevnet({ chains: [{ name: 'main', chainId: 1, port: 0 }] })).rejects.toThrow(ConfigError);
      await expect(startDevnet({ chains: [{ name: 'base', chainId: 8453, port: 0 }] })).rejects.toThrow(/public network/);
      await expect(
        startDevnet({
          chains: [
            { name: 'a', chainId: 31337, port: 0 },
            { name: 'a', chainId: 31338, port: 0 },
          ],
        }),
      ).rejects.toThrow(/used twice/);
      expect(readdirSync(privateTmp)).toEqual([]);
    } finally {
      if (previousTmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = previousTmp;
    }
  });

  it('saved state of another deployment or chain id', async () => {
    const stateDir = tempDir('sandbox-mismatch-');
    await (await startDevnet({ stateDir })).stop();
    const metaPath = join(stateDir, 'chains', 'alpha', 'meta.json');
    const meta = JSON.parse(readFileSync(metaPath, 'utf8'));
    writeFileSync(metaPath, JSON.stringify({ ...meta, deploymentId: 'something-else' }));
    const error = await startDevnet({ stateDir }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StateMismatchError);
    expect((error as Error).message).toMatch(/chain alpha .* contracts, accounts or funding plan changed.*--fresh/);
    await expect(startDevnet({ stateDir, chains: [{ name: 'beta', chainId: 99999, port: 0 }] })).rejects.toThrow(
      /saved with chain id 31338, now 99999/,
    );
    for (const c of (await started(startDevnet({ stateDir, fresh: true }))).chains) expect(c.port).toBeGreaterThan(0);
  });
});
