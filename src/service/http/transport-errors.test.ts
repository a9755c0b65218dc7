import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startTestService, type TestService } from '../../../test/support/service/service.js';

/**
 * Answers written on the raw socket, before express or a WebSocket server sees the request. Found by the fuzz
 * campaign (hardening/): `GET //[` with an Upgrade header threw out of the upgrade listener and killed the process;
 * refused handshakes answered in plain text; transport errors lacked `doc_url`; CONNECT got no answer at all;
 * `GET http://[` got express's HTML 404.
 */
let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t.stop());

function raw(text: string): Promise<{ status: number; body: Record<string, { [key: string]: string }> | undefined; text: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(new URL(t.url).port), '127.0.0.1', () => socket.write(text));
    let data = '';
    socket.setEncoding('latin1').on('data', (chunk: string) => (data += chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(data)?.[1] ?? 0);
      const bodyText = data.slice(data.indexOf('\r\n\r\n') + 4);
      let body: any;
      try {
        body = JSON.parse(bodyText);
      } catch {
        body = undefined;
      }
      resolve({ status, body, text: data });
    });
    setTimeout(() => socket.destroy(), 3_000).unref();
  });
}

const upgradeHeaders = (key = 'dGhlIHNhbXBsZSBub25jZQ==', version = '13') =>
  `Host: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: ${version}\r\n\r\n`;

async function expectHealthy(): Promise<void> {
  expect((await fetch(`${t.url}/api/v1/health`)).status).not.toBe(0);
}

describe('errors written on the socket', () => {
  it.each(['//[', 'http://[', '//[::1'])('an upgrade to %s is a 400 in Format A, and the service lives on', async (target) => {
    const answer = await raw(`GET ${target} HTTP/1.1\r\n${upgradeHeaders()}`);
    expect(answer.status).toBe(400);
    expect(answer.body?.error).toMatchObject({ type: 'invalid_request', code: 'parameter_invalid', param: 'path' });
    expect(answer.body?.error?.doc_url).toBe(`${t.url}/docs/errors#parameter_invalid`);
    await expectHealthy();
  });

  it.each([
    [
      'a missing key',
      `GET /api/v1/ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n\r\n`,
      'Sec-WebSocket-Key',
    ],
    ['a malformed key', `GET /api/v1/ws HTTP/1.1\r\n${upgradeHeaders('x')}`, 'Sec-WebSocket-Key'],
    ['version 99', `GET /api/v1/ws HTTP/1.1\r\n${upgradeHeaders(undefined, '99')}`, 'Sec-WebSocket-Version'],
    ['a POST', `POST /api/v1/ws HTTP/1.1\r\n${upgradeHeaders()}`, 'method'],
    ['a bad subprotocol list', `GET /api/v1/ws HTTP/1.1\r\nSec-WebSocket-Protocol: a b\r\n${upgradeHeaders()}`, 'Sec-WebSocket-Protocol'],
  ])('a handshake with %s is a 400 websocket_handshake_invalid naming the part', async (_name, request, param) => {
    const answer = await raw(request);
    expect(answer.status).toBe(400);
    expect(answer.body?.error).toMatchObject({ type: 'invalid_request', code: 'websocket_handshake_invalid', param });
    const docs = await (await fetch(answer.body!.error!.doc_url!)).text();
    expect(docs).toContain('id="websocket_handshake_invalid"');
  });

  it('an upgrade to an unknown path is a 404 with doc_url', async () => {
    const answer = await raw(`GET /api/v1/nowhere HTTP/1.1\r\n${upgradeHeaders()}`);
    expect(answer.status).toBe(404);
    expect(answer.body?.error).toMatchObject({
      type: 'not_found',
      code: 'route_not_found',
      doc_url: `${t.url}/docs/errors#route_not_found`,
    });
  });

  it('garbled HTTP and oversized headers carry doc_url', async () => {
    const garbled = await raw('GARBAGE\r\n\r\n');
    expect(garbled.status).toBe(400);
    expect(garbled.body?.error).toMatchObject({
      type: 'invalid_request',
      code: 'malformed_request',
      doc_url: `${t.url}/docs/errors#malformed_request`,
    });
    const big = await raw(`GET /api/v1/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(big.status).toBe(431);
    expect(big.body?.error).toMatchObject({ code: 'headers_too_large', doc_url: `${t.url}/docs/errors#headers_too_large` });
  });

  it('CONNECT gets a 404 in Format A instead of a dropped connection', async () => {
    const answer = await raw('CONNECT 127.0.0.1:1 HTTP/1.1\r\nHost: 127.0.0.1:1\r\n\r\n');
    expect(answer.status).toBe(404);
    expect(answer.body?.error).toMatchObject({ type: 'not_found', code: 'route_not_found' });
  });

  it.each(['http://[', 'http://[/api/v1/health'])(
    'GET %s (a target express cannot route) is a 400 in Format A, not its HTML page',
    async (target) => {
      const answer = await raw(`GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      expect(answer.status).toBe(400);
      expect(answer.text).toMatch(/Content-Type: application\/json/i);
      expect(answer.body?.error).toMatchObject({
        type: 'invalid_request',
        code: 'parameter_invalid',
        param: 'path',
        doc_url: `${t.url}/docs/errors#parameter_invalid`,
      });
    },
  );

  it('a valid handshake still upgrades', async () => {
    const ws = new WebSocket(`${t.url.replace('http', 'ws')}/api/v1/ws?token=${t.apiKey}`);
    const first = await new Promise<string>((resolve, reject) => {
      ws.once('message', (data) => resolve(data.toString()));
      ws.once('error', reject);
    });
    expect(JSON.parse(first)).toMatchObject({ type: 'auth.ok' });
    ws.close();
  });
});
