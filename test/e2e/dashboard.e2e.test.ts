/**
 * The dashboard in a real browser (Debian's headless Chromium through playwright-core) against a real sandbox:
 * two anvil chains with the contracts, the settlement service, the page at `/` of the API port.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, type Page, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiInfo } from '../../src/devnet/manifest.js';
import { type Sandbox, startSandbox } from '../../src/devnet/sandbox.js';
import { DashboardModule } from '../../src/service/dashboard/module.js';
import { settlementServiceComponent } from '../../src/service/sandbox-component.js';

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
const ARTIFACTS = join(process.cwd(), 'test-artifacts');
if (!hasChromium) {
  console.warn(`dashboard e2e SKIPPED: ${CHROMIUM} is missing (install Debian's chromium: apt-get install -y chromium)`);
}

const UI_TIMEOUT_MS = 20_000;

let sandbox: Sandbox;
let api: ApiInfo;
let context: BrowserContext;
let page: Page;
let userDataDir: string;
const pageErrors: string[] = [];
const consoleErrors: string[] = [];

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${api.url}${path}`, {
    method,
    headers: { Authorization: `Bearer ${api.apiKeys[0]}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: await response.json().catch(() => undefined) };
}

/** `2030-01-01 00:00:05 UTC` → ms. */
function clockShown(text: string | null): number {
  const ms = Date.parse(`${(text ?? '').replace(' UTC', '').replace(' ', 'T')}Z`);
  if (Number.isNaN(ms)) throw new Error(`the page shows no clock time: ${text}`);
  return ms;
}

async function screenshot(name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, name), fullPage: true });
}

describe.skipIf(!hasChromium)(`dashboard in headless Chromium (${CHROMIUM})`, () => {
  beforeAll(async () => {
    // The page under test is the one the build script makes (what `npm install` serves).
    execFileSync(process.execPath, ['scripts/build-dashboard.mjs', '--quiet'], { stdio: 'inherit' });
    sandbox = await startSandbox({
      components: [settlementServiceComponent({ logLevel: 'silent', modules: [new DashboardModule()] })],
    });
    api = sandbox.manifest.api!;
    userDataDir = mkdtempSync(join(tmpdir(), 'dashboard-chromium-'));
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      viewport: { width: 1440, height: 1000 },
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.setDefaultTimeout(UI_TIMEOUT_MS);
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    // Nothing outside loopback: any request elsewhere is a bug of the page.
    await context.route(/^(?!https?:\/\/127\.0\.0\.1[:/]|wss?:\/\/127\.0\.0\.1[:/]|data:)/, (route) => {
      pageErrors.push(`request outside loopback: ${route.request().url()}`);
      return route.abort();
    });
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await sandbox?.stop();
    if (userDataDir !== undefined) rmSync(userDataDir, { recursive: true, force: true });
  });

  it('loads from the sandbox with its key, shows both chains and goes live on the WebSocket', async () => {
    const started = performance.now();
    await page.goto(`${api.url}/`);
    await page.locator('#feed[data-state="live"]').waitFor();
    const loadMs = performance.now() - started;

    await expect.poll(() => page.locator('#environment').textContent()).toBe('sandbox');
    for (const chain of sandbox.chains) {
      const row = page.locator(`tr[data-chain="${chain.name}"]`);
      await row.waitFor();
      const head = Number(await row.getAttribute('data-head-block'));
      const actual = Number(await chain.rpc.call<string>('eth_blockNumber'));
      expect(head).toBeGreaterThan(0);
      expect(head).toBeLessThanOrEqual(actual);
      expect(await row.textContent()).toContain(String(chain.chainId));
    }
    await expect.poll(() => page.locator('[data-testid="orders-empty"]').count()).toBe(1);
    expect(loadMs).toBeLessThan(10_000);
    console.info(`dashboard: loaded and live in ${Math.round(loadMs)} ms`);
  });

  it('moves the service clock and both chains with the advance buttons', async () => {
    const shownBefore = clockShown(await page.locator('[data-testid="clock-now"]').textContent());
    const headsBefore = await Promise.all(sandbox.chains.map((chain) => chain.rpc.call<string>('eth_blockNumber').then(Number)));

    await page.locator('button[data-advance="1h"]').click();
    await expect.poll(() => page.locator('[data-testid="advance-result"]').textContent()).toMatch(/^\+1h: \d+ jobs? run$/);
    const shownAfter = clockShown(await page.locator('[data-testid="clock-now"]').textContent());
    expect(shownAfter - shownBefore).toBeGreaterThanOrEqual(3_600_000);
    expect(shownAfter - shownBefore).toBeLessThan(3_600_000 + 30_000);

    const clock = (await call('GET', '/api/v1/sandbox/clock')).body as { nowMs: number };
    expect(Math.abs(clock.nowMs - shownAfter)).toBeLessThan(5_000);
    // Every chain mined a block at the new time, and the chains panel shows it.
    for (const [i, chain] of sandbox.chains.entries()) {
      const head = Number(await chain.rpc.call<string>('eth_blockNumber'));
      expect(head).toBeGreaterThan(headsBefore[i]!);
      await expect.poll(async () => Number(await page.locator(`tr[data-chain="${chain.name}"]`).getAttribute('data-head-block'))).toBeGreaterThanOrEqual(head);
    }

    // A custom duration, and a bad one answered with the service's message.
    await page.locator('[data-testid="advance-custom"]').fill('90s');
    await page.locator('button[data-advance="custom"]').click();
    await expect.poll(() => page.locator('[data-testid="advance-result"]').textContent()).toMatch(/^\+90s: /);
    const errorsBefore = consoleErrors.length;
    await page.locator('[data-testid="advance-custom"]').fill('soon');
    await page.locator('button[data-advance="custom"]').click();
    await expect.poll(() => page.locator('[data-testid="advance-result"]').getAttribute('data-error')).toBe('');
    expect(await page.locator('[data-testid="advance-result"]').textContent()).toMatch(/invalid duration/);
    // Chromium logs the refused request itself; that one is expected.
    expect(consoleErrors.splice(errorsBefore)).toEqual(['Failed to load resource: the server responded with a status of 400 (Bad Request)']);
    // However the advance treated the WebSocket (a long advance outlasts its heartbeat), the feed is live again.
    await page.locator('#feed[data-state="live"]').waitFor();
    await screenshot('dashboard-clock.png');
  });

  it('raised no script errors and reached nothing outside loopback', () => {
    expect(pageErrors).toEqual([]);
    // Missing read routes answer 404 (the page degrades); anything else in the console is a bug.
    expect(consoleErrors.filter((text) => !/status of 404/.test(text))).toEqual([]);
  });
});
