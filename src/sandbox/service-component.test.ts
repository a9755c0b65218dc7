import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readChainTime } from '../devnet/chain-time.js';
import type { SandboxManifest } from '../contracts/deployment.js';
import { createRpcClient, type RpcClient } from '../devnet/rpc.js';
import type { SandboxChain } from '../sandbox/sandbox.js';
import { stateLayout } from '../devnet/state-dir.js';
import { startTestAnvil, type TestAnvil } from '../../test/support/service/anvil.js';
import { sampleChains } from '../../test/support/service/service.js';
import { serviceLayout, settlementServiceComponent } from './service-component.js';

/**
 * The component as `sandbox up` starts it, on real anvils driven through the devnet's RPC client and
 * chain-time functions (the contracts are not needed by the platform routes).
 */
let anvils: TestAnvil[];
let rpcs: RpcClient[];
let stateDir: string;
let chains: SandboxChain[];
let manifest: SandboxManifest;

beforeAll(async () => {
  anvils = await Promise.all([startTestAnvil(31_337_001), startTestAnvil(31_337_002)]);
  rpcs = anvils.map((anvil) => createRpcClient(anvil.rpcUrl));
  stateDir = mkdtempSync(join(tmpdir(), 'sandbox-component-'));
  const infos = sampleChains().map((chain, i) => ({ ...chain, rpcUrl: anvils[i]!.rpcUrl, wsUrl: anvils[i]!.wsUrl }));
  chains = infos.map((info, i) => ({
    name: info.name,
    chainId: info.chainId,
    rpcUrl: info.rpcUrl,
    wsUrl: info.wsUrl,
    port: Number(new URL(info.rpcUrl).port),
    pid: anvils[i]!.process.pid,
    info,
    rpc: rpcs[i]!,
  }));
  manifest = {
    environment: 'sandbox',
    manifestVersion: 1,
    stateDir,
    chains: infos,
    accounts: { deployer: [], serviceRelayer: [], oracleRelayer: [], solvers: [], takers: [] },
    startedAt: new Date().toISOString(),
  };
});
afterAll(async () => {
  for (const rpc of rpcs ?? []) rpc.close();
  await Promise.all((anvils ?? []).map((anvil) => anvil.stop()));
  rmSync(stateDir, { recursive: true, force: true });
});

function start(fresh = false) {
  return settlementServiceComponent({ logLevel: 'silent' }).start({
    manifest,
    chains,
    layout: stateLayout(stateDir),
    fresh,
    onProgress: () => undefined,
  });
}

describe('settlementServiceComponent', () => {
  it('adds api to sandbox.json, and one clock advance moves service and chains together', async () => {
    const running = await start();
    try {
      const api = running.manifest!.api!;
      expect(api.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(api.apiKeys[0]).toMatch(/^svc_test_/);
      expect(statSync(serviceLayout(stateDir).access).mode & 0o777).toBe(0o600);
      expect((await fetch(`${api.url}/api/v1/health`)).status).toBe(200);

      const before = await readChainTime(chains);
      const response = await fetch(`${api.url}/api/v1/sandbox/clock/advance`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${api.apiKeys[0]}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ duration: '31h' }),
      });
      const moved = (await response.json()) as { chainTime: number; nowMs: number };
      expect(response.status, JSON.stringify(moved)).toBe(200);
      const after = await readChainTime(chains);
      for (let i = 0; i < after.length; i++) {
        const delta = after[i]!.timestamp - before[i]!.timestamp;
        // Chains count whole seconds: the sub-second remainder of an advance is carried to the next one.
        expect(delta).toBeGreaterThanOrEqual(31 * 3_600 - 1);
        expect(delta).toBeLessThanOrEqual(31 * 3_600 + 5);
      }
      // Service clock and chain time agree to within the seconds that pass while the test runs.
      expect(Math.abs(moved.chainTime - Math.floor(moved.nowMs / 1_000))).toBeLessThanOrEqual(3);
    } finally {
      await running.stop();
    }
  });

  it('a restart reuses the workspace and keys, starts its clock at the chains time, and --fresh starts over', async () => {
    const first = JSON.parse(readFileSync(serviceLayout(stateDir).access, 'utf8'));
    const again = await start();
    const api = again.manifest!.api!;
    try {
      expect(api.workspaceId).toBe(first.workspaceId);
      expect(api.apiKeys).toEqual(first.apiKeys);
      const clock = (await (await fetch(`${api.url}/api/v1/sandbox/clock`)).json()) as { nowMs: number };
      const chainNow = Math.max(...(await readChainTime(chains)).map((c) => c.timestamp));
      expect(Math.abs(Math.floor(clock.nowMs / 1_000) - chainNow)).toBeLessThanOrEqual(3);
    } finally {
      await again.stop();
    }
    const fresh = await start(true);
    try {
      expect(fresh.manifest!.api!.workspaceId).not.toBe(first.workspaceId);
    } finally {
      await fresh.stop();
    }
  });
});
