import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { Network, type StartedNetwork, type StartedTestContainer } from 'testcontainers';
import { type Hex, toFunctionSelector } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InputSettlerEscrowArtifact } from '../../src/contracts/artifacts/InputSettlerEscrow.js';
import type { SandboxManifest } from '../../src/contracts/deployment.js';
import { typedDataFromJson } from '../../src/contracts/typed-data.js';
import { createRpcClient } from '../../src/devnet/rpc.js';
import { verifyLedgerDatabase } from '../../src/sandbox/ledger-file.js';
import { type Composition, readCompose, startComposition, stopComposition } from './composition.js';
import { ResourceSampler } from './resource-sampler.js';

/**
 * deploy/compose.yaml for real: two anvil containers, Postgres, two service replicas, the reference solvers and the load
 * balancer, each in its own container on one network. An outside taker settles orders through the load balancer while
 * one replica is killed, then the lease holder, then a chain container is restarted; afterwards nothing is lost, stuck
 * or relayed twice, every event reached the webhook receiver, the ledger verifies, and a clock advance moved both
 * chains. Skips when no Docker engine answers; SANDBOX_REQUIRE_DOCKER=1 (CI) turns that skip into a failure.
 */

const root = join(import.meta.dirname, '..', '..');
const composeFile = join(root, 'deploy/compose.yaml');
const docker = existsSync('/usr/bin/docker') ? '/usr/bin/docker' : 'docker';
// SANDBOX_IMAGE / SANDBOX_POSTGRES_IMAGE pick other tags (as deploy/compose.yaml reads them), e.g. an image built from
// another checkout with `npm run image -- --tag …`.
const PROJECT_IMAGE = process.env.SANDBOX_IMAGE ?? 'settlement-sandbox:local';
const POSTGRES_IMAGE = process.env.SANDBOX_POSTGRES_IMAGE ?? 'settlement-sandbox-postgres:local';
const PASSWORD = 'compose-test';
const ORDERS_PER_PHASE = 3;
const ORDER_TIMEOUT_MS = 90_000;

function engineAnswers(): boolean {
  const probe = spawnSync(docker, ['version', '--format', '{{.Server.Version}}'], { encoding: 'utf8', timeout: 10_000 });
  return probe.status === 0 && probe.stdout.trim().length > 0;
}

const engine = engineAnswers();
const required = process.env.SANDBOX_REQUIRE_DOCKER === '1';
if (!engine && !required) {
  process.stderr.write(
    'test/compose/compose.test.ts: skipped — no Docker engine answers (`docker version`). Start dockerd to run it; CI sets SANDBOX_REQUIRE_DOCKER=1 and fails instead.\n',
  );
}
process.env.TESTCONTAINERS_RYUK_DISABLED ??= 'true';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A webhook endpoint on the test's host, reached from each replica through a loopback relay in it (see below). */
class Receiver {
  readonly deliveries = new Map<string, number>();
  /** When each event id first arrived (this host's clock, as the test's kill times). */
  readonly firstArrival = new Map<string, number>();
  private server: Server | undefined;
  port = 0;
  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        try {
          const id = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: string }).id;
          if (typeof id === 'string') {
            this.deliveries.set(id, (this.deliveries.get(id) ?? 0) + 1);
            if (!this.firstArrival.has(id)) this.firstArrival.set(id, Date.now());
          }
          res.writeHead(204).end();
        } catch {
          res.writeHead(400).end();
        }
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '0.0.0.0', resolve));
    this.port = (this.server!.address() as AddressInfo).port;
  }
  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

describe.skipIf(!engine && !required)('the composed sandbox (deploy/compose.yaml)', () => {
  let stateDir: string;
  let network: StartedNetwork;
  let composition: Composition | undefined;
  const receiver = new Receiver();
  const figures: Record<string, unknown> = {};

  beforeAll(async () => {
    if (!engine) throw new Error('SANDBOX_REQUIRE_DOCKER=1 but no Docker engine answers (`docker version`): the compose test cannot run');
    // Built when missing, without blocking this worker: a synchronous build of a few minutes starves vitest's RPC
    // with the main process ("Timeout calling onTaskUpdate"), which fails the run. The Postgres image needs the
    // project's Node base, which the first build makes.
    const env = { ...process.env, DOCKER_BUILDKIT: '0' };
    const build = promisify(execFile);
    if (spawnSync(docker, ['image', 'inspect', PROJECT_IMAGE], { stdio: 'ignore' }).status !== 0)
      await build(process.execPath, [join(root, 'scripts/image/build.mjs'), '--tag', PROJECT_IMAGE], { cwd: root, env });
    if (spawnSync(docker, ['image', 'inspect', POSTGRES_IMAGE], { stdio: 'ignore' }).status !== 0)
      await build(join(root, 'deploy/postgres/build.sh'), [POSTGRES_IMAGE], { cwd: root, env: { ...env, DOCKER: docker } });
    stateDir = mkdtempSync(join(tmpdir(), 'compose-test-'));
    await receiver.start();
    network = await new Network().start();
  }, 300_000);

  afterAll(async (suite) => {
    // Every part's log, kept under test-artifacts/ when the run failed: what the replicas and solvers said is what
    // explains an order left behind (the containers and their logs are gone after the stop).
    const failed = suite.tasks.some((task) => task.result?.state === 'fail');
    if (composition && (failed || process.env.SANDBOX_COMPOSE_KEEP_LOGS === '1')) keepLogs(composition, stateDir, figures);
    if (composition) await stopComposition(composition);
    await network?.stop().catch(() => undefined);
    await receiver.stop();
    // The parts wrote their state as root into the bind mounts; they are gone now.
    if (stateDir) rmSync(stateDir, { recursive: true, force: true });
    process.stderr.write(`compose figures: ${JSON.stringify(figures)}\n`);
  }, 60_000);

  it('settles through the load balancer across a replica kill, a lease take-over and a chain restart', async () => {
    const started = Date.now();
    composition = await startComposition(readCompose(composeFile), {
      network,
      composeFile,
      stateDir,
      env: { POSTGRES_PASSWORD: PASSWORD, SANDBOX_IMAGE: PROJECT_IMAGE, SANDBOX_POSTGRES_IMAGE: POSTGRES_IMAGE },
      extraPorts: { postgres: [5432] },
    });
    figures.startMs = Date.now() - started;
    figures.healthyAfterMs = Object.fromEntries(composition.healthyAfterMs);
    const part = (name: string) => composition!.containers.get(name) as StartedTestContainer;
    const lb = `http://${part('lb').getHost()}:${part('lb').getMappedPort(8080)}`;
    const databaseUrl = `postgres://sandbox:${PASSWORD}@${part('postgres').getHost()}:${part('postgres').getMappedPort(5432)}/sandbox`;
    const access = JSON.parse(readFileSync(join(stateDir, 'shared/access.json'), 'utf8')) as { workspaceId: string; apiKeys: string[] };
    const manifest = JSON.parse(readFileSync(join(stateDir, 'replica-1-state/sandbox.json'), 'utf8')) as SandboxManifest;
    const apiKey = access.apiKeys[0]!;
    const chainUrl = (name: string) => {
      const container = part(`anvil-${name}`);
      // Asked of the engine each time: a restarted container is published on another host port (testcontainers keeps
      // the first one; compose's fixed ports would keep theirs).
      return `http://${container.getHost()}:${hostPort(container.getId(), 8545)}`;
    };

    const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
      for (let attempt = 0; ; attempt++) {
        try {
          const response = await fetch(`${lb}${path}`, {
            method,
            headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', ...headers },
            ...(body === undefined ? {} : { body: JSON.stringify(body) }),
            signal: AbortSignal.timeout(30_000),
          });
          const text = await response.text();
          return { status: response.status, text, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
        } catch (error) {
          if (attempt >= 5) throw error;
          await sleep(500);
        }
      }
    };

    // Webhooks: the sandbox sends only to loopback receivers, so each replica gets a relay on its own 127.0.0.1 that
    // forwards to this test's receiver (on the network's gateway, the host).
    const gateway = execFileSync(docker, ['network', 'inspect', network.getName(), '--format', '{{(index .IPAM.Config 0).Gateway}}'], {
      encoding: 'utf8',
    }).trim();
    const relay = `require('net').createServer(c=>{const u=require('net').connect(${receiver.port},'${gateway}');c.pipe(u).pipe(c);c.on('error',()=>u.destroy());u.on('error',()=>c.destroy())}).listen(${receiver.port},'127.0.0.1')`;
    const startRelay = async (name: string) => {
      await part(name).exec(['sh', '-c', `node -e "${relay}" >/dev/null 2>&1 &`]);
    };
    await Promise.all(['replica-1', 'replica-2'].map(startRelay));
    const registered = await call('POST', '/api/v1/webhooks', { url: `http://127.0.0.1:${receiver.port}/hooks`, events: ['*'] });
    expect(registered.status, registered.text).toBe(201);
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      const since = Number((await db.query('SELECT COALESCE(MAX(seq), 0) AS seq FROM events')).rows[0].seq);

      const origin = manifest.chains[0]!;
      const destination = manifest.chains[1]!;
      const usdc = (chain: typeof origin) => chain.tokens.find((t) => t.symbol === 'USDC')!.address;
      const quoteRequest = (index: number, user: string) => ({
        originChainId: origin.chainId,
        destinationChainId: destination.chainId,
        inputToken: usdc(origin),
        outputToken: usdc(destination),
        // Above the corridor's minimum trade size (10,000 USDC), a little different per order.
        inputAmount: String(10_500_000_000n + BigInt(index) * 1_000_000n),
        lockType: 'Permit2Escrow',
        user,
      });
      const orders: Array<{ orderId: string; taker: number; phase: number }> = [];
      let phaseNumber = 0;
      let next = 0;
      /** One order of the outside taker: quote, sign the payload it carries, submit with an idempotency key. */
      const placeOrder = async (): Promise<void> => {
        const index = next++;
        const phaseOfOrder = phaseNumber;
        const takerKey = manifest.accounts.takers[index % manifest.accounts.takers.length]!.privateKey as Hex;
        const taker = privateKeyToAccount(takerKey);
        const deadline = Date.now() + 60_000;
        for (let attempt = 0; ; attempt++) {
          const quoted = await call('POST', '/api/v1/quotes', quoteRequest(index, taker.address));
          if (quoted.status !== 200) {
            // Retried only while solvers reconnect or a replica is going away; anything else is a real refusal.
            const passing = quoted.status >= 500 || /corridor_unavailable|no_quotes/.test(quoted.text);
            if (!passing || Date.now() > deadline) {
              // What the load balancer and the solvers saw, for whoever reads a failure of this test.
              const tail = (name: string) =>
                spawnSync(docker, ['logs', '--tail', '15', part(name).getId()], { encoding: 'utf8' }).stderr.slice(-1_500);
              throw new Error(`quote answered ${quoted.status}: ${quoted.text}\nlb: ${tail('lb')}\nsolvers: ${tail('solvers')}`);
            }
            await sleep(300);
            continue;
          }
          const quote = (quoted.json.quotes as Array<{ quoteId: string; nonce: string; typedData: unknown }>)[0]!;
          const signature = await taker.signTypedData(typedDataFromJson(quote.typedData) as Parameters<typeof taker.signTypedData>[0]);
          const body = { quoteId: quote.quoteId, signature, nonce: quote.nonce, user: taker.address };
          const key = `compose-${process.pid}-${index}-${attempt}`;
          const keyDeadline = Date.now() + 20_000;
          let placed: string | undefined;
          for (;;) {
            const created = await call('POST', '/api/v1/orders', body, { 'Idempotency-Key': key });
            const orderId = (created.json as { orderId?: string }).orderId ?? /ord_[0-9a-z]+/.exec(created.text)?.[0];
            if ((created.status === 201 || created.status === 503) && orderId) {
              placed = orderId;
              break;
            }
            // 409 while a replica that died mid-request still holds the key (until a replica starts and releases
            // it), 502/503 while a replica dies: the same key again, for a while.
            if ((created.status === 409 || created.status >= 500) && Date.now() < keyDeadline) {
              await sleep(300);
              continue;
            }
            break;
          }
          // The answer was lost with a replica: the order, if the service committed it, is found by its quote.
          placed ??= (await db.query('SELECT id FROM orders WHERE quote_id = $1', [quote.quoteId])).rows[0]?.id as string | undefined;
          if (placed !== undefined) {
            orders.push({ orderId: placed, taker: index, phase: phaseOfOrder });
            return;
          }
          if (Date.now() > deadline) throw new Error(`no order for taker #${index} within 60 s`);
        }
      };
      const phase = () => {
        phaseNumber += 1;
        return Promise.all(Array.from({ length: ORDERS_PER_PHASE }, placeOrder));
      };

      // What each part costs while the orders of the four phases go through (the replicas' figure is what a replica
      // costs under this load; docs/deployment.md).
      const parts = new Map([...composition.containers.entries()].map(([name, container]) => [container.getId(), name]));
      const underLoad = new ResourceSampler(docker, parts).start();
      await phase();
      // Kill the replica that does not hold the lease, mid-lifecycle; it comes back.
      const holder = async (): Promise<string> => {
        for (let i = 0; i < 100; i++) {
          const rows = await db.query(
            "SELECT host(client_addr) AS ip FROM pg_stat_activity WHERE application_name LIKE 'settlement-sandbox lease %'",
          );
          const ips = rows.rows.map((row: { ip: string }) => row.ip);
          for (const name of ['replica-1', 'replica-2']) if (ips.includes(ipOf(part(name).getId(), network.getName()))) return name;
          await sleep(100);
        }
        throw new Error('no replica holds the lease');
      };
      const firstHolder = await holder();
      /** When each replica was killed: only an attempt in flight then may reach the receiver twice. */
      const kills: number[] = [];
      const other = firstHolder === 'replica-1' ? 'replica-2' : 'replica-1';
      const phase2 = phase();
      await sleep(300);
      kills.push(Date.now());
      execFileSync(docker, ['kill', part(other).getId()]);
      await phase2;
      execFileSync(docker, ['start', part(other).getId()]);
      await waitHealthy(part(other).getId());
      await startRelay(other);

      // Kill the lease holder mid-lifecycle: the other replica takes the work over.
      const phase3 = phase();
      await sleep(300);
      const killedAt = Date.now();
      kills.push(killedAt);
      execFileSync(docker, ['kill', part(firstHolder).getId()]);
      const newHolder = await holder();
      figures.takeOverMs = Date.now() - killedAt;
      expect(newHolder).toBe(other);
      // It comes back, as `restart: unless-stopped` brings it (and a starting replica releases the idempotency keys
      // the dead one held).
      execFileSync(docker, ['start', part(firstHolder).getId()]);
      await waitHealthy(part(firstHolder).getId());
      await startRelay(firstHolder);
      await phase3;

      // Restart a chain container mid-lifecycle: it saves its state on the way down and loads it on the way up.
      const phase4 = phase();
      await sleep(300);
      const chainRestart = Date.now();
      execFileSync(docker, ['restart', '-t', '10', part('anvil-beta').getId()]);
      await waitHealthy(part('anvil-beta').getId());
      figures.chainRestartMs = Date.now() - chainRestart;
      await phase4;
      figures.underLoad = await underLoad.stop();

      // Everything ends: every order claimed.
      const final = new Map<string, string>();
      const deadline = Date.now() + ORDER_TIMEOUT_MS;
      while (final.size < orders.length || [...final.values()].some((status) => status !== 'Claimed' && status !== 'Refunded')) {
        for (const { orderId } of orders) {
          const answer = await call('GET', `/api/v1/orders/${orderId}`);
          if (answer.status === 200) final.set(orderId, String(answer.json.status));
        }
        if (Date.now() > deadline) break;
        await sleep(500);
      }
      const lost = orders.filter(({ orderId }) => !final.has(orderId)).length;
      const stuck = [...final.entries()].filter(([, status]) => status !== 'Claimed');
      figures.orders = orders.length;
      figures.notClaimed = [...final.entries()]
        .filter(([, status]) => status !== 'Claimed')
        .map(([orderId, status]) => ({ orderId, status, phase: orders.find((o) => o.orderId === orderId)?.phase }));
      expect(lost, 'lost orders').toBe(0);
      // What the solvers said about the orders left behind (their fills, skips and errors), for whoever reads a failure.
      const solverLog = spawnSync(docker, ['logs', part('solvers').getId()], { encoding: 'utf8' }).stderr;
      const aboutStuck = solverLog
        .split('\n')
        .filter((line) => /error|reconnect|closed/.test(line) || stuck.some(([orderId]) => line.includes(orderId)))
        .slice(-30)
        .join('\n');
      expect(stuck, `orders not claimed; the solvers said:\n${aboutStuck}`).toEqual([]);

      // The clock, advanced through the load balancer, moves every chain (from the lease holder, through their RPC).
      const chainTime = async (name: string) => {
        const rpc = createRpcClient(chainUrl(name));
        try {
          return Number((await rpc.call<{ timestamp: string }>('eth_getBlockByNumber', ['latest', false])).timestamp);
        } finally {
          rpc.close();
        }
      };
      const before = await Promise.all(['alpha', 'beta'].map(chainTime));
      const advanced = await call('POST', '/api/v1/sandbox/clock/advance', { duration: '1h' });
      expect([200, 202], advanced.text).toContain(advanced.status);
      if (advanced.status === 202) {
        // The walk outlived the request (a loaded machine): follow it by id until it completes. Only the replica
        // that walks it knows it, so the other one's 404 through the load balancer is asked again.
        const advanceDeadline = Date.now() + 60_000;
        for (;;) {
          const progress = await call('GET', `/api/v1/sandbox/clock/advances/${String(advanced.json.id)}`);
          if (progress.status === 200 && progress.json.status !== 'running') {
            expect(progress.json.status, progress.text).toBe('completed');
            break;
          }
          expect([200, 404], progress.text).toContain(progress.status);
          if (Date.now() > advanceDeadline) throw new Error(`clock advance still running after 60 s: ${progress.text}`);
          await sleep(250);
        }
      }
      const after = await Promise.all(['alpha', 'beta'].map(chainTime));
      for (const [i, time] of after.entries()) expect(time - before[i]!, `chain ${i} moved`).toBeGreaterThanOrEqual(3_600);

      // No deposit relayed twice: every `openFor` the relayer sent, on every block of the origin chain, is distinct.
      const openFor = toFunctionSelector(
        InputSettlerEscrowArtifact.abi.find((item) => item.type === 'function' && item.name === 'openFor')!,
      );
      const relayer = manifest.accounts.serviceRelayer[0]!.address.toLowerCase();
      const rpc = createRpcClient(chainUrl('alpha'));
      const inputs: string[] = [];
      try {
        const head = Number(await rpc.call<string>('eth_blockNumber'));
        for (let n = 0; n <= head; n++) {
          const block = await rpc.call<{ transactions: Array<{ from: string; input: string }> } | null>('eth_getBlockByNumber', [
            `0x${n.toString(16)}`,
            true,
          ]);
          for (const tx of block?.transactions ?? [])
            if (tx.from.toLowerCase() === relayer && tx.input.startsWith(openFor)) inputs.push(tx.input);
        }
      } finally {
        rpc.close();
      }
      figures.openForRelays = inputs.length;
      expect(new Set(inputs).size, 'duplicate openFor relays').toBe(inputs.length);
      expect(inputs.length).toBeGreaterThanOrEqual(orders.length);

      // Webhooks: every event of the workspace since the endpoint was registered arrived, and each id once (a
      // redelivery is allowed only for a delivery the killed holder had in flight; it is counted).
      const expected = (
        await db.query('SELECT id FROM events WHERE workspace_id = $1 AND seq > $2 ORDER BY seq', [access.workspaceId, since])
      ).rows.map((row: { id: string }) => row.id);
      const webhookDeadline = Date.now() + 30_000;
      while (expected.some((id) => !receiver.deliveries.has(id)) && Date.now() < webhookDeadline) await sleep(250);
      const undelivered = expected.filter((id) => !receiver.deliveries.has(id));
      const twice = [...receiver.deliveries].filter(([, n]) => n > 1).map(([id]) => id);
      figures.events = expected.length;
      figures.redelivered = twice.length;
      expect(undelivered, 'events never delivered').toEqual([]);
      // Webhooks are at-least-once (interface.md): an attempt the killed replica sent and had not recorded is sent
      // again, with the same event id, by the one that takes over. Any other second delivery is a bug: each one must
      // have first arrived while a killed replica could have had it in flight (an attempt lasts at most 30 s).
      const inFlightAtAKill = (id: string) =>
        kills.some((at) => {
          const first = receiver.firstArrival.get(id) ?? Number.NaN;
          return first >= at - 30_000 && first <= at + 2_000;
        });
      expect(
        twice.filter((id) => !inFlightAtAKill(id)),
        'events delivered twice that no killed replica had in flight',
      ).toEqual([]);

      // A burst of quotes through the load balancer (8 in flight for 15 s, every reference solver answering each RFQ):
      // what the replicas cost when busy, and what the composition answers (docs/deployment.md, Figures). After the
      // webhook check, whose wait its events would only lengthen; the ledger below covers them.
      const burst = new ResourceSampler(docker, parts).start();
      const burstMs = 15_000;
      const burstEnd = Date.now() + burstMs;
      const burstAnswers: Record<string, number> = {};
      const refusals: Record<string, number> = {};
      const taker0 = manifest.accounts.takers[0]!.address;
      await Promise.all(
        Array.from({ length: 8 }, async (_, lane) => {
          for (let n = 0; Date.now() < burstEnd; n++) {
            const answer = await call('POST', '/api/v1/quotes', quoteRequest(1_000 + lane * 1_000 + n, taker0));
            const code = (answer.json.error as { code?: string } | undefined)?.code;
            const kind = code === undefined ? String(answer.status) : `${answer.status} ${code}`;
            burstAnswers[kind] = (burstAnswers[kind] ?? 0) + 1;
            // Why a refusal: no solver connected anywhere, or none quoted within the auction window.
            const why = (answer.json.error as { message?: string } | undefined)?.message?.replace(/ \S+; try again.*$/, '');
            if (why !== undefined) refusals[why] = (refusals[why] ?? 0) + 1;
          }
        }),
      );
      figures.quoteBurst = {
        answers: burstAnswers,
        refusals,
        quotesPerSecond: Math.round(((burstAnswers['200'] ?? 0) / burstMs) * 10_000) / 10,
        usage: await burst.stop(),
      };

      // What each part costs at rest, every order settled (the replica's figure is what one more replica costs idle).
      const atRest = new ResourceSampler(docker, parts).start();
      await sleep(10_000);
      figures.atRest = await atRest.stop();
      const ledger = await verifyLedgerDatabase(databaseUrl);
      expect(ledger.ok, JSON.stringify(ledger)).toBe(true);
      figures.totalMs = Date.now() - started;
    } finally {
      await db.end();
    }
  }, 300_000);
});

/** Writes each container's log (stdout and stderr, timestamped) and the figures to test-artifacts/compose-<time>/. */
function keepLogs(composition: Composition, stateDir: string, figures: Record<string, unknown>): void {
  const dir = join(root, 'test-artifacts', `compose-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  mkdirSync(dir, { recursive: true });
  for (const [name, container] of composition.containers) {
    const logs = spawnSync(docker, ['logs', '--timestamps', container.getId()], { encoding: 'utf8', maxBuffer: 256 << 20 });
    writeFileSync(join(dir, `${name}.log`), `${logs.stdout}${logs.stderr}`);
    // A replica's own log (pino, JSON lines) is in its state folder, which goes with the run.
    const serviceLog = join(stateDir, `${name}-state`, 'service', 'service.log');
    if (existsSync(serviceLog)) copyFileSync(serviceLog, join(dir, `${name}.service.log`));
  }
  writeFileSync(join(dir, 'figures.json'), `${JSON.stringify(figures, null, 2)}\n`);
  process.stderr.write(`compose logs kept in ${dir}\n`);
}

/** The container's address on the network now (a container started again may get another one). */
function ipOf(id: string, networkName: string): string {
  return spawnSync(docker, ['inspect', '--format', `{{(index .NetworkSettings.Networks "${networkName}").IPAddress}}`, id], {
    encoding: 'utf8',
  }).stdout.trim();
}

/** The host port the engine publishes a container's port on now. */
function hostPort(id: string, port: number): number {
  const published = spawnSync(docker, ['port', id, `${port}/tcp`], { encoding: 'utf8' }).stdout.split('\n')[0] ?? '';
  const hostSide = Number(published.slice(published.lastIndexOf(':') + 1));
  if (!Number.isInteger(hostSide) || hostSide <= 0) throw new Error(`container ${id.slice(0, 12)} publishes no ${port}/tcp (${published})`);
  return hostSide;
}

async function waitHealthy(id: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const status = spawnSync(docker, ['inspect', '--format', '{{.State.Health.Status}}', id], { encoding: 'utf8' }).stdout.trim();
    if (status === 'healthy') return;
    if (Date.now() > deadline) throw new Error(`container ${id.slice(0, 12)} not healthy after 60 s (${status})`);
    await sleep(250);
  }
}
