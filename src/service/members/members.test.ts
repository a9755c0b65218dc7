import { type Address, getAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../../test/support/service/service.js';
import { TestReceiver } from '../../../test/support/webhooks/receiver.js';
import type { EvidenceModule } from '../evidence/module.js';

let t: TestService;
let receiver: TestReceiver;
beforeAll(async () => {
  t = await startTestService();
  receiver = await TestReceiver.start(() => t.clock.now());
});
afterAll(async () => {
  await receiver.stop();
  await t.stop();
});

async function signIn(account = privateKeyToAccount(generatePrivateKey())) {
  const challenge = await t.request('POST', '/api/v1/auth/challenge', { key: null, body: { address: account.address } });
  const message = challenge.body.message as string;
  const verified = await t.request('POST', '/api/v1/auth/verify', {
    key: null,
    body: { message, signature: await account.signMessage({ message }) },
  });
  expect(verified.status).toBe(200);
  return { account, token: verified.body.token as string, workspaceId: verified.body.user.workspaceId as string };
}

function wallet(): Address {
  return privateKeyToAccount(generatePrivateKey()).address;
}

/** A taker WebSocket of the workspace subscribed to `workspace:*`, collecting event types. */
async function workspaceStream(key: string): Promise<{ events: Array<{ type: string; member?: { address: string } }>; close(): void }> {
  const socket = new WebSocket(`${t.service.wsUrl}?token=${encodeURIComponent(key)}`);
  const events: Array<{ type: string; member?: { address: string } }> = [];
  const subscribed = new Promise<void>((resolve) => {
    socket.on('message', (data) => {
      const message = JSON.parse(data.toString());
      if (message.type === 'subscribe.ok') resolve();
      if (typeof message.id === 'string' && message.id.startsWith('evt_')) events.push(message);
    });
  });
  await new Promise<void>((resolve) => socket.once('open', () => resolve()));
  socket.send(JSON.stringify({ type: 'subscribe', topics: ['workspace:*'] }));
  await subscribed;
  return { events, close: () => socket.close() };
}

describe('workspace members', () => {
  it('the creator is the first admin; admins add, re-role and remove; events reach webhooks and the WebSocket', async () => {
    const owner = await signIn();
    const base = `/api/v1/workspaces/${owner.workspaceId}/members`;
    const first = await t.request('GET', base, { key: owner.token });
    expect(first.status).toBe(200);
    expect(first.body.data).toEqual([expect.objectContaining({ address: owner.account.address, role: 'admin', addedBy: null })]);

    const key = t.service.access.createApiKey(owner.workspaceId).key;
    const hook = await t.request('POST', '/api/v1/webhooks', { key, body: { url: receiver.url, events: ['member.*'] } });
    expect(hook.status).toBe(201);
    const stream = await workspaceStream(key);

    const dev = wallet();
    const added = await t.request('POST', base, { key: owner.token, body: { address: dev.toLowerCase(), role: 'developer' } });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ object: 'member', address: dev, role: 'developer', workspaceId: owner.workspaceId });
    expect(added.body.id).toMatch(/^mem_/);
    expect((await t.request('POST', base, { key: owner.token, body: { address: dev, role: 'viewer' } })).body.error).toMatchObject({
      code: 'member_exists',
      param: 'address',
    });
    const changed = await t.request('PATCH', `${base}/${dev}`, { key: owner.token, body: { role: 'viewer' } });
    expect(changed.body.role).toBe('viewer');
    expect((await t.request('GET', `${base}/${dev}`, { key: owner.token })).body.role).toBe('viewer');
    const removed = await t.request('DELETE', `${base}/${dev}`, { key: owner.token });
    expect(removed.body).toEqual({ object: 'member', address: dev, deleted: true, sessionsRevoked: 0 });
    expect((await t.request('GET', `${base}/${dev}`, { key: owner.token })).status).toBe(404);

    await expect.poll(() => stream.events.map((e) => e.type), { timeout: 5_000 }).toEqual(['member.added', 'member.removed']);
    expect(stream.events[0]!.member).toMatchObject({ address: dev, role: 'developer' });
    await expect.poll(() => receiver.events().map((e) => e.type), { timeout: 5_000 }).toEqual(['member.added', 'member.removed']);
    stream.close();
    // Every change is evidence: one ledger entry per admin action, under the member's id, and the chain verifies.
    const { ledger } = t.service.module<EvidenceModule>('evidence');
    expect(ledger.forTrade(added.body.id).map((e) => e.type)).toEqual([
      'admin.member_added',
      'admin.member_role_changed',
      'admin.member_removed',
    ]);
    expect(ledger.verify()).toMatchObject({ ok: true });
  });

  it('a wallet added before its first sign-in joins that workspace; roles gate admin routes; removal ends its sessions', async () => {
    const owner = await signIn();
    const base = `/api/v1/workspaces/${owner.workspaceId}/members`;
    const viewerAccount = privateKeyToAccount(generatePrivateKey());
    await t.request('POST', base, { key: owner.token, body: { address: viewerAccount.address, role: 'viewer' } });
    const viewer = await signIn(viewerAccount);
    expect(viewer.workspaceId).toBe(owner.workspaceId);
    // A viewer reads but does not change.
    expect((await t.request('GET', base, { key: viewer.token })).body.total_count).toBe(2);
    const refused = await t.request('POST', base, { key: viewer.token, body: { address: wallet(), role: 'admin' } });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ type: 'authentication_error', code: 'insufficient_role', param: 'Authorization' });
    // Removing the member mid-session ends its session at once.
    const removed = await t.request('DELETE', `${base}/${viewerAccount.address}`, { key: owner.token });
    expect(removed.body.sessionsRevoked).toBe(1);
    expect((await t.request('GET', base, { key: viewer.token })).status).toBe(401);
  });

  it('the last admin cannot be removed or demoted; another workspace is a 404; bad input names its parameter', async () => {
    const owner = await signIn();
    const base = `/api/v1/workspaces/${owner.workspaceId}/members`;
    for (const attempt of [
      t.request('DELETE', `${base}/${owner.account.address}`, { key: owner.token }),
      t.request('PATCH', `${base}/${owner.account.address}`, { key: owner.token, body: { role: 'developer' } }),
    ]) {
      const response = await attempt;
      expect(response.status).toBe(409);
      expect(response.body.error).toMatchObject({ code: 'last_admin', param: 'address' });
    }
    const second = wallet();
    await t.request('POST', base, { key: owner.token, body: { address: second, role: 'admin' } });
    expect((await t.request('PATCH', `${base}/${owner.account.address}`, { key: owner.token, body: { role: 'developer' } })).status).toBe(
      200,
    );

    const stranger = await signIn();
    const other = await t.request('GET', `/api/v1/workspaces/${stranger.workspaceId}/members`, { key: owner.token });
    expect(other.status).toBe(404);
    expect(other.body.error.param).toBe('workspaceId');
    const cases: Array<[unknown, string]> = [
      [{ address: 'nope', role: 'admin' }, 'address'],
      [{ address: wallet(), role: 'owner' }, 'role'],
      [{ address: wallet() }, 'role'],
      [{ address: wallet(), role: 'viewer', extra: 1 }, 'extra'],
    ];
    for (const [body, param] of cases) {
      const response = await t.request('POST', base, { key: t.service.access.createApiKey(owner.workspaceId).key, body });
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error.param).toBe(param);
    }
    expect((await t.request('GET', `${base}/0x1234`, { key: owner.token })).body.error.param).toBe('address');
    // Any letter case is an address (the document asks for 40 hex digits); a wrong EIP-55 checksum is not a 500.
    const wrongChecksum = '0x25aDBe719e7EEb7B8Fde34BEB44fB8a1BC9a8DAe';
    expect((await t.request('GET', `${base}/${wrongChecksum}`, { key: owner.token })).status).toBe(404);
    expect(getAddress(second)).toBe(second);
  });
});
