import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { verifyWebhook, WebhookVerificationError } from '../../src/clients/webhook-verifier.js';
import { verifyDocument } from '../core/signing.js';
import { generateSigningKey } from '../core/signing.js';
import { certifyWebhookReceiver } from './webhook-receiver.js';

const SECRET = 'whsec_conformance_receiver_secret_0123456789';
const servers: Server[] = [];

async function serve(handle: (rawBody: Buffer, req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handle(Buffer.concat(chunks), req, res));
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** A receiver done right with the project's verifier: raw body, 300 s both ways, 401, de-duplication by event id. */
function goodReceiver(): Promise<string> {
  const seen = new Set<string>();
  return serve((rawBody, req, res) => {
    try {
      const delivery = verifyWebhook({ secret: SECRET, rawBody, headers: req.headers });
      const duplicate = seen.has(delivery.event.id);
      seen.add(delivery.event.id);
      res.writeHead(200).end(duplicate ? 'duplicate ignored' : 'ok');
    } catch (error) {
      res.writeHead(error instanceof WebhookVerificationError ? error.status : 400).end();
    }
  });
}

/** A receiver with the classic mistakes: verifies re-serialised JSON, never looks at the timestamp's age, answers 400. */
function naiveReceiver(): Promise<string> {
  return serve((rawBody, req, res) => {
    let reserialised: string;
    try {
      reserialised = JSON.stringify(JSON.parse(rawBody.toString('utf8')));
    } catch {
      res.writeHead(400).end();
      return;
    }
    const timestamp = String(req.headers['x-service-timestamp'] ?? '');
    const expected = createHmac('sha256', SECRET).update(`${timestamp}.${reserialised}`).digest('hex');
    res.writeHead(req.headers['x-service-signature'] === expected ? 200 : 400).end();
  });
}

describe('certify webhook-receiver', () => {
  it('certifies a receiver that verifies raw bodies, timestamps both ways, answers 401 and de-duplicates', async () => {
    const url = await goodReceiver();
    const run = await certifyWebhookReceiver({ url, secret: SECRET, signingKey: generateSigningKey() });
    const failing = run.results.filter((r) => r.status !== 'PASSED').map((r) => `${r.id}: ${r.message}`);
    expect(failing).toEqual([]);
    expect(run.results).toHaveLength(12);
    expect(run.exitCode).toBe(0);
    expect(verifyDocument(run.report)).toMatchObject({ valid: true });
    expect(run.report.requirements.map((r) => r.id).sort()).toEqual([
      'X-WHR-001',
      'X-WHR-002',
      'X-WHR-004',
      'X-WHR-005',
      'X-WHR-006',
      'X-WHR-007',
    ]);
  });

  it('fails the naive receiver on exactly its mistakes', async () => {
    const url = await naiveReceiver();
    const run = await certifyWebhookReceiver({ url, secret: SECRET });
    const status = Object.fromEntries(run.results.map((r) => [r.id, r.status]));
    expect(status['receiver.valid-delivery']).toBe('PASSED');
    // Rejected, but with 400 instead of 401.
    expect(status['receiver.wrong-secret']).toBe('FAILED');
    expect(status['receiver.body-changed']).toBe('FAILED');
    // Accepted although the raw bytes were not what was signed.
    expect(status['receiver.body-reserialised']).toBe('FAILED');
    // Accepted a stale delivery (MUST) and one from the future (SHOULD → warning).
    expect(status['receiver.timestamp-stale']).toBe('FAILED');
    expect(status['receiver.timestamp-future']).toBe('WARNING');
    expect(run.results.find((r) => r.id === 'receiver.timestamp-stale')!.message).toMatch(/accepted it with 200/);
    expect(run.exitCode).toBe(1);
  });

  it('refuses a receiver URL that is not http(s)', async () => {
    await expect(certifyWebhookReceiver({ url: 'ftp://x', secret: SECRET })).rejects.toThrow(/http/);
  });
});
