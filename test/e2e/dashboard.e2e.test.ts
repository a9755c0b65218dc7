/**
 * The dashboard in a real browser (Debian's headless Chromium through playwright-core) against a real sandbox:
 * two anvil chains with the contracts, the settlement service, the page at `/` of the API port.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, type Locator, type Page, chromium } from 'playwright-core';
import { depositTypedData, vaultAccount } from '../../src/contracts/deferred-deposit.js';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LockType, RestClient } from '../../src/clients/rest-client.js';
import type { ApiInfo, ChainInfo } from '../../src/contracts/deployment.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/sandbox.js';
import { DashboardModule } from '../../src/service/dashboard/module.js';
import { settlementServiceComponent } from '../../src/sandbox/service-component.js';
import { TestTaker } from '../support/settlement/taker.js';
import { TestReceiver } from '../support/webhooks/receiver.js';
import { type ReferenceSolvers, startReferenceSolvers } from '../../src/solvers/index.js';

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
const ARTIFACTS = join(process.cwd(), 'test-artifacts');
if (!hasChromium) {
  console.warn(`dashboard e2e SKIPPED: ${CHROMIUM} is missing (install Debian's chromium: apt-get install -y chromium)`);
}

const UI_TIMEOUT_MS = 20_000;
/** 12,000 USDC: above the corridor minimum (10,000 USD). */
const AMOUNT = 12_000_000_000n;

let sandbox: Sandbox;
let api: ApiInfo;
let rest: RestClient;
let solvers: ReferenceSolvers;
let receiver: TestReceiver;
let context: BrowserContext;
let page: Page;
let userDataDir: string;
const pageErrors: string[] = [];
/** Every text the live-feed badge showed, in order (how the WebSocket fared through clock advances). */
const feedLog: string[] = [];
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

function usdc(chain: ChainInfo): `0x${string}` {
  return chain.tokens.find((token) => token.symbol === 'USDC')!.address;
}

/** What a taker does: quotes with its address (three solvers compete), signs the best quote, creates the order. */
async function placeOrder(takerIndex: number, lockType: LockType): Promise<{ orderId: string; quoteId: string; expires: number }> {
  const [alpha, beta] = sandbox.manifest.chains as [ChainInfo, ChainInfo];
  const taker = new TestTaker(sandbox.manifest.accounts.takers[takerIndex]!.privateKey, rest, sandbox.manifest.chains);
  const response = await taker.quote({
    originChainId: alpha.chainId,
    destinationChainId: beta.chainId,
    inputToken: usdc(alpha),
    outputToken: usdc(beta),
    inputAmount: AMOUNT.toString(),
    lockType,
    settlementPath: 'direct',
  });
  expect(response.quotes.length).toBeGreaterThanOrEqual(2);
  const quote = response.quotes[0]!;
  const created = await rest.createOrder({
    quoteId: quote.quoteId,
    signature: await taker.sign(quote.typedData),
    nonce: quote.nonce!,
    user: taker.address,
  });
  return { orderId: created.orderId, quoteId: quote.quoteId, expires: response.expires };
}

function orderRow(orderId: string): Locator {
  return page.locator(`tr.order-row[data-order-id="${orderId}"]`);
}

async function journeyOf(): Promise<string[]> {
  return page
    .locator('[data-testid="journey"] > li')
    .evaluateAll((items) => items.map((item) => `${item.getAttribute('data-stage')}:${item.getAttribute('data-state')}`));
}

/** The stage as the page shows it: chain, block, tx; the block is checked against the chain's own receipt. */
async function expectStageOnChain(stage: string, chainName: string, txHash?: string | null): Promise<void> {
  const step = page.locator(`[data-testid="journey"] > li[data-stage="${stage}"]`);
  expect(await step.getAttribute('data-chain')).toBe(chainName);
  const tx = await step.getAttribute('data-tx');
  expect(tx).toMatch(/^0x[0-9a-f]{64}$/);
  if (txHash !== undefined && txHash !== null) expect(tx).toBe(txHash);
  const chain = sandbox.chains.find((c) => c.name === chainName)!;
  const receipt = await chain.rpc.call<{ blockNumber: string } | null>('eth_getTransactionReceipt', [tx]);
  expect(receipt, `${stage}: ${tx} is a transaction on ${chainName}`).not.toBeNull();
  await expect.poll(() => step.getAttribute('data-block'), { timeout: UI_TIMEOUT_MS }).toBe(String(Number(receipt!.blockNumber)));
  const text = await step.textContent();
  expect(text).toContain(`block #${Number(receipt!.blockNumber)}`);
  expect(text).toMatch(/at \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC/);
}

async function openJourney(orderId: string): Promise<void> {
  await orderRow(orderId).click();
  await page.locator(`[data-testid="detail-title"][data-order-id="${orderId}"]`).waitFor();
}

/** Every ledger entry shown was re-hashed by the page, and none failed. */
async function expectLedgerVerified(types: string[]): Promise<void> {
  const rows = page.locator('[data-testid="ledger"] tbody tr');
  await expect
    .poll(
      async () => {
        const shown = await rows.evaluateAll((items) => items.map((item) => item.getAttribute('data-type')));
        return types.every((type) => shown.includes(type));
      },
      { timeout: UI_TIMEOUT_MS },
    )
    .toBe(true);
  const checks = () =>
    page.locator('[data-testid="ledger"] [data-verified]').evaluateAll((cells) => cells.map((cell) => cell.getAttribute('data-verified')));
  await expect.poll(async () => (await checks()).length, { timeout: UI_TIMEOUT_MS }).toBe(await rows.count());
  expect(new Set(await checks())).toEqual(new Set(['true']));
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
    rest = new RestClient({ baseUrl: api.url, apiKey: api.apiKeys[0]! });
    // The reference solvers `sandbox up` runs, three of them competing for every RFQ.
    solvers = await startReferenceSolvers({ manifest: sandbox.manifest, count: 3 });
    // A webhook endpoint that keeps failing: its deliveries show attempts, answers and the next retry.
    receiver = await TestReceiver.start(() => Date.now());
    receiver.answer = () => ({ status: 503 });
    const hook = await call('POST', '/api/v1/webhooks', { url: receiver.url, events: ['order.*'] });
    expect(hook.status).toBe(201);
    userDataDir = mkdtempSync(join(tmpdir(), 'dashboard-chromium-'));
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      // Tall enough that the journey panel shows its deliveries in the screenshots.
      viewport: { width: 1440, height: 1700 },
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
    await page.exposeFunction('__feedChanged', (text: string) => feedLog.push(text));
    await page.addInitScript(() => {
      document.addEventListener('DOMContentLoaded', () => {
        const feed = document.getElementById('feed')!;
        new MutationObserver(() =>
          (window as unknown as { __feedChanged(text: string): void }).__feedChanged(feed.textContent ?? ''),
        ).observe(feed, {
          childList: true,
          characterData: true,
          subtree: true,
        });
      });
    });
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
    await solvers?.stop();
    await receiver?.stop();
    await sandbox?.stop();
    if (userDataDir !== undefined) rmSync(userDataDir, { recursive: true, force: true });
  });

  it('loads from the sandbox with its key, shows both chains and goes live on the WebSocket', async () => {
    const started = performance.now();
    await page.goto(`${api.url}/`);
    await page.locator('#feed[data-state="live"]').waitFor();
    const loadMs = performance.now() - started;

    await expect.poll(() => page.locator('#environment').textContent(), { timeout: UI_TIMEOUT_MS }).toBe('sandbox');
    for (const chain of sandbox.chains) {
      const row = page.locator(`tr[data-chain="${chain.name}"]`);
      await row.waitFor();
      const head = Number(await row.getAttribute('data-head-block'));
      const actual = Number(await chain.rpc.call<string>('eth_blockNumber'));
      expect(head).toBeGreaterThan(0);
      expect(head).toBeLessThanOrEqual(actual);
      expect(await row.textContent()).toContain(String(chain.chainId));
    }
    await expect.poll(() => page.locator('[data-testid="orders-empty"]').count(), { timeout: UI_TIMEOUT_MS }).toBe(1);
    expect(loadMs).toBeLessThan(10_000);
    console.info(`dashboard: loaded and live in ${Math.round(loadMs)} ms`);
  });

  it('moves the service clock and both chains with the advance buttons', async () => {
    const shownBefore = clockShown(await page.locator('[data-testid="clock-now"]').textContent());
    const headsBefore = await Promise.all(sandbox.chains.map((chain) => chain.rpc.call<string>('eth_blockNumber').then(Number)));

    await page.locator('button[data-advance="1h"]').click();
    await expect
      .poll(() => page.locator('[data-testid="advance-result"]').textContent(), { timeout: UI_TIMEOUT_MS })
      .toMatch(/^\+1h: \d+ jobs? run$/);
    const shownAfter = clockShown(await page.locator('[data-testid="clock-now"]').textContent());
    expect(shownAfter - shownBefore).toBeGreaterThanOrEqual(3_600_000);
    expect(shownAfter - shownBefore).toBeLessThan(3_600_000 + 30_000);

    const clock = (await call('GET', '/api/v1/sandbox/clock')).body as { nowMs: number };
    expect(Math.abs(clock.nowMs - shownAfter)).toBeLessThan(5_000);
    // Every chain mined a block at the new time, and the chains panel shows it.
    for (const [i, chain] of sandbox.chains.entries()) {
      const head = Number(await chain.rpc.call<string>('eth_blockNumber'));
      expect(head).toBeGreaterThan(headsBefore[i]!);
      await expect
        .poll(async () => Number(await page.locator(`tr[data-chain="${chain.name}"]`).getAttribute('data-head-block')), {
          timeout: UI_TIMEOUT_MS,
        })
        .toBeGreaterThanOrEqual(head);
    }

    // A custom duration, and a bad one answered with the service's message.
    await page.locator('[data-testid="advance-custom"]').fill('90s');
    await page.locator('button[data-advance="custom"]').click();
    await expect.poll(() => page.locator('[data-testid="advance-result"]').textContent(), { timeout: UI_TIMEOUT_MS }).toMatch(/^\+90s: /);
    const errorsBefore = consoleErrors.length;
    await page.locator('[data-testid="advance-custom"]').fill('soon');
    await page.locator('button[data-advance="custom"]').click();
    await expect.poll(() => page.locator('[data-testid="advance-result"]').getAttribute('data-error'), { timeout: UI_TIMEOUT_MS }).toBe('');
    expect(await page.locator('[data-testid="advance-result"]').textContent()).toMatch(
      /invalid `duration`: must be a duration such as 31h/i,
    );
    // Chromium logs the refused request itself; that one is expected.
    expect(consoleErrors.splice(errorsBefore)).toEqual([
      'Failed to load resource: the server responded with a status of 400 (Bad Request)',
    ]);
    // However the advance treated the WebSocket (a long advance outlasts its heartbeat), the feed is live again.
    await page.locator('#feed[data-state="live"]').waitFor();
    await screenshot('dashboard-clock.png');
  });

  it('shows a successful order live, then its journey across both chains with quotes, verified evidence and deliveries', async () => {
    const { orderId, quoteId } = await placeOrder(0, 'Permit2Escrow');
    const row = orderRow(orderId);
    await row.waitFor();
    expect(await row.textContent()).toContain('alpha:USDC-beta:USDC');
    await expect.poll(() => row.getAttribute('data-status'), { timeout: 30_000 }).toBe('Claimed');
    await expect
      .poll(async () => (await row.locator('td').allTextContents()).slice(2, 7), { timeout: UI_TIMEOUT_MS })
      .toEqual(['alpha:USDC-beta:USDC', 'Permit2Escrow', 'direct', '12,000 USDC', expect.stringMatching(/^11,9\d\d(\.\d+)? USDC$/)]);

    await openJourney(orderId);
    await expect
      .poll(journeyOf, { timeout: UI_TIMEOUT_MS })
      .toEqual(['rfq:done', 'deposited:done', 'filled:done', 'attested:done', 'claimed:done']);
    const order = await rest.getOrder(orderId);
    await expectStageOnChain('deposited', 'alpha', order.originTxHash);
    await expectStageOnChain('filled', 'beta', order.destinationTxHash);
    await expectStageOnChain('attested', 'alpha', order.oracleAttestationHash);
    await expectStageOnChain('claimed', 'alpha', order.claimTxHash);

    // The RFQ's competition: every solver's answer, the taken quote marked.
    const quotes = page.locator('[data-testid="quotes"] tbody tr');
    await expect.poll(() => quotes.count(), { timeout: UI_TIMEOUT_MS }).toBeGreaterThanOrEqual(2);
    expect(await page.locator(`[data-testid="quotes"] tr[data-winner="true"]`).getAttribute('data-quote')).toBe(quoteId);

    await expectLedgerVerified(['rfq.created', 'quotes.collected', 'order.created']);

    // The failing endpoint: attempts with the receiver's 503, and the next retry on the schedule.
    const created = page.locator('[data-testid="deliveries"] tr[data-state="retrying"]', { hasText: 'order.created' });
    await created.first().waitFor({ timeout: 30_000 });
    expect(await created.first().textContent()).toContain('#1 503');
    expect(await created.first().locator('[data-testid="next-retry"]').textContent()).toMatch(/UTC \(in /);
    await screenshot('dashboard-success.png');
  }, 90_000);

  it('shows an order the solvers never fill, and its refund after the clock button moves past expiry', async () => {
    for (const solver of solvers.solvers) solver.setBehaviour({ fill: 'never' });
    const { orderId, expires } = await placeOrder(1, 'EIP3009Escrow');
    const row = orderRow(orderId);
    await row.waitFor();
    await expect.poll(() => row.getAttribute('data-status'), { timeout: UI_TIMEOUT_MS }).toBe('Deposited');
    await openJourney(orderId);
    await expect
      .poll(journeyOf, { timeout: UI_TIMEOUT_MS })
      .toEqual(['rfq:done', 'deposited:done', 'filled:pending', 'attested:pending', 'claimed:pending']);
    expect(await page.locator('[data-stage="filled"] .note').textContent()).toMatch(/fill deadline/);
    await expectStageOnChain('deposited', 'alpha');
    await screenshot('dashboard-waiting.png');

    // Expiry is minutes away; one click moves the clock (and both chains) a day on, and the keeper refunds.
    const clock = (await call('GET', '/api/v1/sandbox/clock')).body as { nowMs: number };
    expect(expires * 1_000).toBeLessThan(clock.nowMs + 86_400_000);
    const advanceStarted = performance.now();
    await page.locator('button[data-advance="1d"]').click();
    // Every clock-timed job of the day runs, each moving both chains: a day with four live WebSocket connections is
    // about 10,000 heartbeat jobs and 20 s on an idle machine.
    await expect
      .poll(() => page.locator('[data-testid="advance-result"]').textContent(), { timeout: 150_000, interval: 250 })
      .toMatch(/^\+1d: \d+ jobs run$/);
    console.info(
      `dashboard: +1 day advance took ${Math.round(performance.now() - advanceStarted)} ms (${await page.locator('[data-testid="advance-result"]').textContent()})`,
    );
    await expect.poll(() => row.getAttribute('data-status'), { timeout: 30_000 }).toBe('Refunded');
    await expect
      .poll(journeyOf, { timeout: UI_TIMEOUT_MS })
      .toEqual(['rfq:done', 'deposited:done', 'filled:skipped', 'attested:skipped', 'refunded:done']);
    const order = await rest.getOrder(orderId);
    await expectStageOnChain('refunded', 'alpha', order.refundTxHash);
    await expectLedgerVerified(['order.created', 'order.transition']);
    // The feed went through the day-long advance (and reconnected if it had to).
    await expect.poll(() => page.locator('#feed').textContent(), { timeout: UI_TIMEOUT_MS }).toBe('live');
    console.info(`dashboard: live feed states so far: ${[...new Set(feedLog)].join(' | ')}`);
    await screenshot('dashboard-refund.png');

    // Both journeys are still there: the successful one ends in a claim.
    const rows = await page.locator('tr.order-row').evaluateAll((items) => items.map((item) => item.getAttribute('data-status')));
    expect(rows).toEqual(['Refunded', 'Claimed']);
  }, 240_000);

  it('shows the deferred credit and the approvals queue; approving a large withdrawal in the page pays it', async () => {
    const [alpha] = sandbox.manifest.chains as [ChainInfo, ChainInfo];
    const owner = privateKeyToAccount(sandbox.manifest.accounts.takers[2]!.privateKey);
    const vault = alpha.contracts.DeferredVault!;
    const nonce = BigInt(Date.now());
    const deadline = BigInt(Math.floor(Date.now() / 1_000) + 365 * 86_400);
    const amount = 20_000_000_000n;
    const typed = depositTypedData({
      chainId: alpha.chainId,
      vault,
      token: usdc(alpha),
      amount,
      nonce,
      deadline,
      account: vaultAccount(api.workspaceId!),
    });
    const signature = await owner.signTypedData(typed as Parameters<typeof owner.signTypedData>[0]);
    const deposit = await call('POST', '/api/v1/deferred/deposit', {
      chainId: alpha.chainId,
      token: usdc(alpha),
      amount: amount.toString(),
      owner: owner.address,
      nonce: nonce.toString(),
      deadline: deadline.toString(),
      signature,
    });
    expect(deposit.status).toBe(201);
    const available = page.locator(`tr[data-credit="${alpha.name}:USDC"] [data-testid="credit-available"]`);
    await expect.poll(() => available.textContent(), { timeout: UI_TIMEOUT_MS }).toBe('20,000 USDC');

    // Above the 10,000 USDC threshold: the withdrawal waits in the queue the page shows.
    const withdrawal = await call('POST', '/api/v1/deferred/withdraw', {
      chainId: alpha.chainId,
      token: usdc(alpha),
      amount: '11000000000',
      to: owner.address,
    });
    expect(withdrawal.body).toMatchObject({ status: 'pending_approval' });
    const item = page.locator(`li[data-approval="${withdrawal.body.approvalId}"]`);
    await item.waitFor();
    expect(await item.textContent()).toContain('withdraw 11000000000');
    await screenshot('dashboard-approvals.png');
    await item.getByRole('button', { name: 'Approve' }).click();
    await item.waitFor({ state: 'detached' });
    await expect.poll(() => available.textContent(), { timeout: UI_TIMEOUT_MS }).toBe('9,000 USDC');
    expect((await call('GET', `/api/v1/deferred/withdrawals/${withdrawal.body.id}`)).body.status).toBe('paid');
    expect(await page.locator('#approvals').textContent()).toContain('Nothing waits for an admin.');
  }, 60_000);

  it('sets a fault switch from the page, shows it fire, clears it, and shows the error for an incomplete one', async () => {
    const panel = page.locator('#faults');
    await panel.locator('[data-testid="faults-empty"]').waitFor();
    await panel.locator('[data-testid="fault-kind"]').selectOption('service.maintenance');
    await panel.locator('[data-testid="fault-route"]').fill('GET /api/v1/corridors');
    await panel.locator('[data-testid="fault-count"]').fill('1');
    await panel.locator('button[data-fault-action="set"]').click();
    const item = panel.locator('li[data-kind="service.maintenance"]');
    await item.waitFor();
    expect(await item.textContent()).toContain('GET /api/v1/corridors');
    expect(await item.locator('[data-testid="fault-fired"]').textContent()).toBe('fired 0');
    const faultId = await item.getAttribute('data-fault');
    expect(faultId).toMatch(/^flt_/);
    expect((await call('GET', '/api/v1/sandbox/faults')).body.data).toEqual([
      expect.objectContaining({ id: faultId, kind: 'service.maintenance', route: 'GET /api/v1/corridors', remaining: 1, fired: 0 }),
    ]);

    // The switch fires once (count 1), and the page follows: fired 1, spent, still listed until cleared.
    expect((await call('GET', '/api/v1/corridors')).status).toBe(503);
    await expect.poll(() => item.locator('[data-testid="fault-fired"]').textContent(), { timeout: UI_TIMEOUT_MS }).toBe('fired 1');
    await expect.poll(() => item.getAttribute('data-active'), { timeout: UI_TIMEOUT_MS }).toBe('false');
    expect((await call('GET', '/api/v1/corridors')).status).toBe(200);
    await screenshot('dashboard-faults.png');

    await item.getByRole('button', { name: 'Clear' }).click();
    await item.waitFor({ state: 'detached' });
    await panel.locator('[data-testid="faults-empty"]').waitFor();
    expect((await call('GET', '/api/v1/sandbox/faults')).body.data).toEqual([]);
    await panel.locator('button[data-fault-action="release"]').click();
    await expect
      .poll(() => panel.locator('[data-testid="fault-result"]').textContent(), { timeout: UI_TIMEOUT_MS })
      .toBe('released 0 held relays');

    // relay.hold without a relay: the service's 400 names the parameter, and nothing is set.
    const errorsBefore = consoleErrors.length;
    await panel.locator('[data-testid="fault-kind"]').selectOption('relay.hold');
    await panel.locator('[data-testid="fault-route"]').fill('');
    await panel.locator('[data-testid="fault-count"]').fill('');
    await panel.locator('button[data-fault-action="set"]').click();
    const result = panel.locator('[data-testid="fault-result"]');
    await expect.poll(() => result.getAttribute('data-error'), { timeout: UI_TIMEOUT_MS }).toBe('');
    expect(await result.textContent()).toBe('Missing required parameter `relay`. (param: relay)');
    expect(consoleErrors.splice(errorsBefore)).toEqual([
      'Failed to load resource: the server responded with a status of 400 (Bad Request)',
    ]);
    expect((await call('GET', '/api/v1/sandbox/faults')).body.data).toEqual([]);
    await screenshot('dashboard-fault-error.png');
  }, 60_000);

  it('fits every table at 1024, 1400 and 1920 px: no horizontal scroll, no clipped column', async () => {
    const before = page.viewportSize();
    try {
      for (const width of [1024, 1400, 1920]) {
        await page.setViewportSize({ width, height: 1200 });
        await expect
          .poll(() => page.locator('[data-testid="orders-table"] tr.order-row').count(), { timeout: UI_TIMEOUT_MS })
          .toBeGreaterThan(0);
        // Every panel holding a table shows all of it: its content is no wider than the panel.
        const overflowing = await page.evaluate(() =>
          [...document.querySelectorAll('.panel')]
            .filter((panel) => panel.querySelector('table') !== null && panel.scrollWidth > panel.clientWidth + 1)
            .map((panel) => `${panel.className}: ${panel.scrollWidth} > ${panel.clientWidth}`),
        );
        expect(overflowing, `at ${width} px`).toEqual([]);
        // The Orders table's visible columns (In, Out, Age included) lie inside its panel.
        const clipped = await page.evaluate(() => {
          const panel = document.querySelector('[data-testid="orders-table"]')?.closest('.panel');
          if (!panel) return ['no orders panel'];
          const right = panel.getBoundingClientRect().right;
          return [...panel.querySelectorAll('th')]
            .filter((th) => th.getBoundingClientRect().width > 0 && th.getBoundingClientRect().right > right + 1)
            .map((th) => th.textContent ?? '');
        });
        expect(clipped, `at ${width} px`).toEqual([]);
        await screenshot(`dashboard-${width}.png`);
      }
    } finally {
      if (before) await page.setViewportSize(before);
    }
  }, 60_000);

  it('raised no script errors and reached nothing outside loopback', () => {
    expect(pageErrors).toEqual([]);
    // Missing read routes answer 404 and the page degrades; anything else in the console is a bug (the page no longer
    // probes `GET /orders`, whose 405 every load used to log).
    expect(consoleErrors.filter((text) => !/status of 404/.test(text))).toEqual([]);
  });
});
