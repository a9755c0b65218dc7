import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { SandboxManifest } from '../../contracts/deployment.js';
import type { EvidenceModule } from '../../service/evidence/module.js';
import { startTestService, type TestService } from '../../../test/support/service/service.js';
import { addGlobalOptions } from '../output.js';
import { readMailbox, register as registerMailbox } from './mailbox.js';
import { startWebhookListener, type ListenedDelivery, type Listener } from '../../api/webhook-listener.js';
import { register as registerWebhooks } from './webhooks.js';

let t: TestService;
let stateDir: string;
const listeners: Listener[] = [];

beforeAll(async () => {
  t = await startTestService();
  stateDir = mkdtempSync(join(tmpdir(), 'sandbox-webhooks-cli-'));
  const manifest: SandboxManifest = {
    environment: 'sandbox',
    manifestVersion: 1,
    stateDir,
    chains: [],
    accounts: { deployer: [], serviceRelayer: [], oracleRelayer: [], solvers: [], takers: [] },
    api: { url: t.url, wsUrl: t.service.wsUrl, workspaceId: t.workspaceId, apiKeys: [t.apiKey] },
    startedAt: new Date().toISOString(),
  };
  writeFileSync(join(stateDir, 'sandbox.json'), JSON.stringify(manifest));
});
afterAll(async () => {
  await t.stop();
  rmSync(stateDir, { recursive: true, force: true });
});
afterEach(async () => {
  for (const listener of listeners.splice(0)) await listener.close();
  vi.restoreAllMocks();
});

function publish(type = 'order.created', orderId = 'ord_cli') {
  const { outbox } = t.service.module<EvidenceModule>('evidence');
  return outbox.commit(() =>
    outbox.append({ workspaceId: t.workspaceId, type, generation: 'A', orderId, data: { order: { id: orderId } }, at: t.clock.now() }),
  ).envelope;
}

async function sandbox(...args: string[]): Promise<{ out: string; exitCode: number }> {
  const program = addGlobalOptions(new Command('sandbox').exitOverride());
  registerWebhooks(program);
  registerMailbox(program);
  const out: string[] = [];
  const stdout = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => out.push(String(chunk)) > 0);
  const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  const previous = process.exitCode;
  process.exitCode = undefined;
  try {
    await program.parseAsync(['node', 'sandbox', ...args, '--state-dir', stateDir]);
    return { out: out.join('').trimEnd(), exitCode: Number(process.exitCode ?? 0) };
  } finally {
    process.exitCode = previous;
    stdout.mockRestore();
    stderr.mockRestore();
  }
}

describe('sandbox webhooks listen', () => {
  it('registers itself, verifies and reports deliveries, rejects forgeries, and is removed on close', async () => {
    const seen: ListenedDelivery[] = [];
    const listener = await startWebhookListener({ stateDir, events: ['order.*'], onDelivery: (d) => seen.push(d) });
    expect(listener.webhookId).toMatch(/^wh_/);
    expect(listener.secret).toMatch(/^whsec_test_/);
    const event = publish();
    await t.clock.idle();
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      verified: true,
      duplicate: false,
      eventType: 'order.created',
      eventId: event.id,
      answered: 200,
      webhookId: listener.webhookId,
    });

    // The sandbox clock ran 31 h ahead of the wall clock: timestamps are judged by the sandbox's time.
    await t.clock.advance(31 * 3_600_000);
    const later = publish('order.settled');
    await t.clock.idle();
    expect(seen[1]).toMatchObject({ verified: true, eventId: later.id });

    const forged = await fetch(listener.url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'X-Service-Signature': '0'.repeat(64),
        'X-Service-Timestamp': String(Math.floor(t.clock.now() / 1000)),
      },
      body: JSON.stringify({ type: 'order.settled', id: 'evt_forged' }),
    });
    expect(forged.status).toBe(401);
    expect(seen[2]).toMatchObject({ verified: false, failure: 'signature_mismatch', answered: 401 });

    await listener.close();
    const list = await sandbox('webhooks', 'list', '--json');
    expect(JSON.parse(list.out)).toEqual([]);
  });

  it('answers with --status to let people watch the retry schedule, and --no-register verifies with a given secret', async () => {
    const seen: ListenedDelivery[] = [];
    const failing = await startWebhookListener({ stateDir, events: ['order.created'], status: 500, onDelivery: (d) => seen.push(d) });
    listeners.push(failing);
    publish();
    await t.clock.idle();
    await t.clock.advance(5_000);
    expect(seen.map((d) => d.answered)).toEqual([500, 500]);
    expect(new Set(seen.map((d) => d.eventId)).size).toBe(1);
    // The second arrival of one event id is flagged for de-duplication.
    expect(seen[1]!.duplicate).toBe(true);

    await expect(startWebhookListener({ register: false })).rejects.toThrow(/--secret/);
    const passive = await startWebhookListener({ register: false, secret: failing.secret });
    listeners.push(passive);
    expect(passive.webhookId).toBeUndefined();
  });

  it('lists, tests, enables and replays through the CLI, and reads the mailbox', async () => {
    const listener = await startWebhookListener({ stateDir, events: ['order.*'], status: 503 });
    listeners.push(listener);
    const id = listener.webhookId!;
    const tested = await sandbox('webhooks', 'test', id, '--json');
    expect(JSON.parse(tested.out).delivery).toMatchObject({ succeeded: false, statusCode: 503 });

    const from = new Date(t.clock.now()).toISOString();
    for (let i = 0; i < 5; i++) publish('order.created', `ord_m${i}`);
    await t.clock.idle();
    await t.clock.advance(32 * 3_600_000);
    const listed = JSON.parse((await sandbox('webhooks', 'list', '--json')).out);
    expect(listed.find((w: { webhookId: string }) => w.webhookId === id).status).toBe('paused');

    const mail = await readMailbox(stateDir);
    expect(mail[0]).toMatchObject({ kind: 'webhook.paused', webhookId: id });
    const printed = await sandbox('mailbox');
    expect(printed.out).toContain(`Subject: Webhook endpoint paused: ${listener.url}`);

    const enabled = await sandbox('webhooks', 'enable', id, '--json');
    expect(JSON.parse(enabled.out).status).toBe('active');
    const replayed = await sandbox('webhooks', 'replay', id, '--since', from, '--json');
    expect(JSON.parse(replayed.out)).toMatchObject({ replayed: 5 });
    const deliveries = await sandbox('webhooks', 'deliveries', id);
    expect(deliveries.out).toContain('attempt 7: failed (503)');
    const bad = await sandbox('webhooks', 'enable', 'wh_nothere');
    expect(bad.exitCode).toBe(1);
  });
});
