import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, ensureBuilt, ROOT } from '../../../test/support/devnet/dist.js';
import { runCli } from '../../../test/support/devnet/processes.js';

/**
 * `sandbox trigger order.refunded` against a fresh sandbox runs the real refund flow in the sandbox's workspace:
 * `sandbox webhooks listen` (a separate process, as a developer runs it) receives the refund's event, and the order
 * is the sandbox's own (the dashboard reads it with the same key).
 */

let stateDir: string;

beforeAll(async () => {
  await ensureBuilt();
  stateDir = mkdtempSync(join(tmpdir(), 'sandbox-trigger-'));
  const up = await runCli(['up', '--detach', '--json', '--state-dir', stateDir, '--chain-ports', 'any'], { timeoutMs: 120_000 });
  expect(up.code, up.stderr).toBe(0);
}, 180_000);

afterAll(async () => {
  await runCli(['down', '--state-dir', stateDir]);
  rmSync(stateDir, { recursive: true, force: true });
});

interface Listening {
  child: ChildProcess;
  ready: { url: string; secret: string; webhookId: string };
  lines: unknown[];
}

async function listen(): Promise<Listening> {
  const child = spawn(process.execPath, [CLI, 'webhooks', 'listen', '--json', '--state-dir', stateDir], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: unknown[] = [];
  let buffer = '';
  const ready = await new Promise<Listening['ready']>((resolve, reject) => {
    child.on('exit', (code) => reject(new Error(`webhooks listen exited (${code})`)));
    child.stdout?.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const parts = buffer.split('\n');
      buffer = parts.pop() ?? '';
      for (const part of parts) {
        const line = JSON.parse(part) as { ready?: boolean };
        if (line.ready) resolve(line as unknown as Listening['ready']);
        else lines.push(line);
      }
    });
  });
  return { child, ready, lines };
}

async function stop(listening: Listening): Promise<void> {
  const exited = new Promise((resolve) => listening.child.once('exit', resolve));
  listening.child.kill('SIGINT');
  await exited;
}

describe('sandbox trigger', () => {
  it('order.refunded against a fresh sandbox delivers the refund event to webhooks listen', async () => {
    const listening = await listen();
    try {
      const trigger = await runCli(['trigger', 'order.refunded', '--json', '--state-dir', stateDir], { timeoutMs: 90_000 });
      expect(trigger.code, trigger.stderr + trigger.stdout).toBe(0);
      const result = JSON.parse(trigger.stdout) as { orderId: string; status: string; dashboard: string };
      expect(result.status).toBe('Refunded');
      expect(result.dashboard).toContain(`#order=${result.orderId}`);

      const deadline = Date.now() + 20_000;
      const refundEvent = () =>
        (listening.lines as Array<{ eventType?: string; verified?: boolean; event?: { data?: { order?: { id?: string } } } }>).find(
          (line) => line.verified && line.eventType === 'order.failed' && JSON.stringify(line.event).includes(result.orderId),
        );
      while (refundEvent() === undefined && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
      expect(refundEvent(), JSON.stringify(listening.lines.slice(-5))).toBeDefined();

      // The order is in the sandbox's own workspace: the key of sandbox.json reads it.
      const manifest = JSON.parse(readFileSync(join(stateDir, 'sandbox.json'), 'utf8')) as { api: { url: string; apiKeys: string[] } };
      const order = await fetch(`${manifest.api.url}/api/v1/orders/${result.orderId}`, {
        headers: { authorization: `Bearer ${manifest.api.apiKeys[0]}` },
      });
      expect(order.status).toBe(200);
      expect(((await order.json()) as { status: string }).status).toBe('Refunded');
    } finally {
      await stop(listening);
    }
  }, 150_000);

  it('webhooks listen keeps one signing secret per state folder across runs', async () => {
    const first = await listen();
    await stop(first);
    const second = await listen();
    await stop(second);
    expect(second.ready.secret).toBe(first.ready.secret);
    expect(readFileSync(join(stateDir, 'webhooks-listen-secret'), 'utf8').trim()).toBe(first.ready.secret);
  }, 60_000);

  it('--list names the flows and the events each emits', async () => {
    const list = await runCli(['trigger', '--list', '--json']);
    expect(list.code).toBe(0);
    const names = (JSON.parse(list.stdout) as { triggers: Array<{ name: string }> }).triggers.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['order.settled', 'order.refunded']));
  });
});
