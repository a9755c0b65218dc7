import { Secret, TOTP } from 'otpauth';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatAError, startTestService, type TestService } from '../../../test/support/service/service.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t.stop());

async function challenge(address: string) {
  const response = await t.request('POST', '/api/v1/auth/challenge', { key: null, body: { address } });
  expect(response.status).toBe(200);
  return response.body as { message: string; nonce: string; expiresAt: string };
}

async function signIn(account = privateKeyToAccount(generatePrivateKey())) {
  const { message } = await challenge(account.address);
  const signature = await account.signMessage({ message });
  const response = await t.request('POST', '/api/v1/auth/verify', { key: null, body: { message, signature } });
  expect(response.status).toBe(200);
  return { account, token: response.body.token as string, body: response.body };
}

function totpCode(secret: string, at: number): string {
  return new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate({ timestamp: at });
}

describe('wallet sign-in (EIP-4361)', () => {
  it('challenge returns a SIWE message for this origin, bound to the address and clock', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const body = await challenge(account.address);
    const host = new URL(t.url).host;
    expect(body.message).toContain(`${host} wants you to sign in with your Ethereum account:\n${account.address}`);
    expect(body.message).toContain(`Nonce: ${body.nonce}`);
    expect(body.message).toContain(`Issued At: ${new Date(t.clock.now()).toISOString()}`);
    expect(body.expiresAt).toBe(new Date(t.clock.now() + 5 * MINUTE).toISOString());
  });

  it('verify returns a JWT accepted by /auth/me; the first sign-in creates user and workspace', async () => {
    const { account, token, body } = await signIn();
    expect(token.split('.')).toHaveLength(3);
    expect(body).toMatchObject({ tokenType: 'Bearer', mfaRequired: false });
    expect(body.user.address).toBe(account.address);
    expect(body.user.workspaceId).toMatch(/^ws_/);
    const me = await t.request('GET', '/api/v1/auth/me', { key: token });
    expect(me.status).toBe(200);
    expect(me.body.user).toEqual(body.user);
    expect(me.body.session).toMatchObject({ id: body.sessionId, current: true, active: true, mfaVerified: false });
    // Signing in again reuses the user.
    const again = await signIn(account);
    expect(again.body.user.id).toBe(body.user.id);
  });

  it('a challenge is redeemed once', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const { message } = await challenge(account.address);
    const signature = await account.signMessage({ message });
    const first = await t.request('POST', '/api/v1/auth/verify', { key: null, body: { message, signature } });
    expect(first.status).toBe(200);
    const replay = await t.request('POST', '/api/v1/auth/verify', { key: null, body: { message, signature } });
    expect(replay.status).toBe(401);
    expect(formatAError(replay).code).toBe('challenge_invalid');
  });

  it('concurrent verifies of one signature open exactly one session', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const { message } = await challenge(account.address);
    const signature = await account.signMessage({ message });
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => t.request('POST', '/api/v1/auth/verify', { key: null, body: { message, signature } })),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 401)).toHaveLength(9);
  });

  it('a signature by another wallet → 401 invalid_signature, and the challenge survives', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const stranger = privateKeyToAccount(generatePrivateKey());
    const { message } = await challenge(account.address);
    const forged = await t.request('POST', '/api/v1/auth/verify', {
      key: null,
      body: { message, signature: await stranger.signMessage({ message }) },
    });
    expect(forged.status).toBe(401);
    expect(formatAError(forged)).toMatchObject({ code: 'invalid_signature', param: 'signature' });
    const genuine = await t.request('POST', '/api/v1/auth/verify', {
      key: null,
      body: { message, signature: await account.signMessage({ message }) },
    });
    expect(genuine.status).toBe(200);
  });

  it('a tampered message (signed as tampered) is not a challenge this service issued', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const { message } = await challenge(account.address);
    const tampered = message.replace('Sign in to the settlement service dashboard.', 'Sign in and give me everything.');
    const response = await t.request('POST', '/api/v1/auth/verify', {
      key: null,
      body: { message: tampered, signature: await account.signMessage({ message: tampered }) },
    });
    expect(response.status).toBe(401);
    expect(formatAError(response).code).toBe('challenge_invalid');
  });

  it('a message for another domain is refused', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const { message } = await challenge(account.address);
    const host = new URL(t.url).host;
    const foreign = message.replace(`${host} wants`, 'evil.example wants');
    const response = await t.request('POST', '/api/v1/auth/verify', {
      key: null,
      body: { message: foreign, signature: await account.signMessage({ message: foreign }) },
    });
    expect(response.status).toBe(401);
    expect(formatAError(response).code).toBe('challenge_invalid');
  });

  it('a challenge expires after 5 minutes by the service clock (t-1 ok, t refused)', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const early = await challenge(account.address);
    const late = await challenge(account.address);
    const issued = t.clock.now();
    await t.clock.advanceTo(issued + 5 * MINUTE - 1);
    const ok = await t.request('POST', '/api/v1/auth/verify', {
      key: null,
      body: { message: early.message, signature: await account.signMessage({ message: early.message }) },
    });
    expect(ok.status).toBe(200);
    await t.clock.advanceTo(issued + 5 * MINUTE);
    const expired = await t.request('POST', '/api/v1/auth/verify', {
      key: null,
      body: { message: late.message, signature: await account.signMessage({ message: late.message }) },
    });
    expect(expired.status).toBe(401);
    expect(formatAError(expired).code).toBe('challenge_invalid');
  });

  it('malformed verify bodies are 400s naming the field', async () => {
    const noSignature = await t.request('POST', '/api/v1/auth/verify', { key: null, body: { message: 'x' } });
    expect(formatAError(noSignature)).toMatchObject({ code: 'parameter_missing', param: 'signature' });
    const badHex = await t.request('POST', '/api/v1/auth/verify', { key: null, body: { message: 'x', signature: 'zz' } });
    expect(formatAError(badHex)).toMatchObject({ code: 'parameter_invalid', param: 'signature' });
    const badAddress = await t.request('POST', '/api/v1/auth/challenge', { key: null, body: { address: '0x1234' } });
    expect(formatAError(badAddress)).toMatchObject({ code: 'parameter_invalid', param: 'address' });
    const garbage = await t.request('POST', '/api/v1/auth/verify', { key: null, body: { message: 'hello', signature: '0x1234' } });
    expect(garbage.status).toBe(401);
  });
});

describe('session tokens', () => {
  it('expire with the session (8 h by the clock) and reject tampering', async () => {
    const { token } = await signIn();
    const [header, payload, signature] = token.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    const forgedPayload = Buffer.from(JSON.stringify({ ...claims, wid: 'ws_someone_else' })).toString('base64url');
    const forged = await t.request('GET', '/api/v1/auth/me', { key: `${header}.${forgedPayload}.${signature}` });
    expect(forged.status).toBe(401);
    expect(formatAError(forged).code).toBe('invalid_token');

    const unsigned = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
    const none = await t.request('GET', '/api/v1/auth/me', { key: `${unsigned}.${payload}.` });
    expect(none.status).toBe(401);

    expect((await t.request('GET', '/api/v1/auth/me', { key: token })).status).toBe(200);
    await t.clock.advance(8 * HOUR);
    const expired = await t.request('GET', '/api/v1/auth/me', { key: token });
    expect(expired.status).toBe(401);
    expect(formatAError(expired).code).toBe('invalid_token');
  });
});

describe('sessions list', () => {
  it('a JWT sees its user sessions; an API key sees its workspace sessions; pages walk both ways', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const tokens: string[] = [];
    for (let i = 0; i < 7; i++) {
      tokens.push((await signIn(account)).token);
      await t.clock.advance(1_000);
    }
    const token = tokens.at(-1)!;
    const first = await t.request('GET', '/api/v1/auth/sessions?limit=3', { key: token });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ has_more: true, total_count: 7 });
    expect(first.body.data).toHaveLength(3);
    expect(first.body.data[0].current).toBe(true);

    const forward: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor === null ? '?limit=3' : `?limit=3&after=${cursor}`;
      const page = await t.request('GET', `/api/v1/auth/sessions${query}`, { key: token });
      forward.push(...page.body.data.map((s: { id: string }) => s.id));
      expect(page.body.next_cursor === null).toBe(!page.body.has_more);
      cursor = page.body.next_cursor;
    } while (cursor !== null);
    expect(forward).toHaveLength(7);

    // Walk backward from the first page's cursor: together with the first page it is the whole list.
    const backward: string[][] = [];
    cursor = first.body.next_cursor;
    const afterFirst = await t.request('GET', `/api/v1/auth/sessions?limit=2&after=${cursor}`, { key: token });
    const startBack: string = afterFirst.body.next_cursor;
    let back: string | null = startBack;
    while (back !== null) {
      const page = await t.request('GET', `/api/v1/auth/sessions?limit=2&before=${back}`, { key: token });
      backward.push(page.body.data.map((s: { id: string }) => s.id));
      back = page.body.next_cursor;
    }
    const rest: string[] = [];
    let after: string | null = startBack;
    while (after !== null) {
      const page = await t.request('GET', `/api/v1/auth/sessions?limit=2&after=${after}`, { key: token });
      rest.push(...page.body.data.map((s: { id: string }) => s.id));
      after = page.body.next_cursor;
    }
    expect([...backward.reverse().flat(), ...rest]).toEqual(forward);

    const me = await t.request('GET', '/api/v1/auth/me', { key: token });
    const workspaceKey = t.service.access.createApiKey(me.body.user.workspaceId).key;
    const viaKey = await t.request('GET', '/api/v1/auth/sessions?limit=100', { key: workspaceKey });
    expect(viaKey.body.total_count).toBe(7);
    expect(viaKey.body.data.every((s: { current: boolean }) => !s.current)).toBe(true);
    const otherWorkspace = await t.request('GET', '/api/v1/auth/sessions');
    expect(otherWorkspace.body.data.map((s: { id: string }) => s.id)).not.toContain(forward[0]);
  });
});

describe('session revocation', () => {
  it('DELETE ends one session: its token answers 401 at once, the others keep working', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const a = await signIn(account);
    const b = await signIn(account);
    const ended = await t.request('DELETE', `/api/v1/auth/sessions/${b.body.sessionId}`, { key: a.token });
    expect(ended.status).toBe(200);
    expect(ended.body).toMatchObject({ id: b.body.sessionId, active: false, current: false });
    expect((await t.request('GET', '/api/v1/auth/me', { key: b.token })).status).toBe(401);
    expect((await t.request('GET', '/api/v1/auth/me', { key: a.token })).status).toBe(200);
    // Ending an ended session answers the same; the list still shows it, inactive.
    expect((await t.request('DELETE', `/api/v1/auth/sessions/${b.body.sessionId}`, { key: a.token })).body.active).toBe(false);
    const list = await t.request('GET', '/api/v1/auth/sessions', { key: a.token });
    expect(list.body.data.find((s: { id: string }) => s.id === b.body.sessionId)).toMatchObject({ active: false });
    // A session can end itself: sign out.
    expect((await t.request('DELETE', `/api/v1/auth/sessions/${a.body.sessionId}`, { key: a.token })).body.current).toBe(true);
    expect((await t.request('GET', '/api/v1/auth/sessions', { key: a.token })).status).toBe(401);
  });

  it("revoke-others keeps the caller's session and ends the rest of the user's; other users are untouched", async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const keep = await signIn(account);
    const others = [await signIn(account), await signIn(account)];
    const stranger = await signIn();
    const response = await t.request('POST', '/api/v1/auth/sessions/revoke-others', { key: keep.token });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ object: 'session_revocation', revoked: 2, kept: keep.body.sessionId });
    for (const other of others) expect((await t.request('GET', '/api/v1/auth/me', { key: other.token })).status).toBe(401);
    expect((await t.request('GET', '/api/v1/auth/me', { key: keep.token })).status).toBe(200);
    expect((await t.request('GET', '/api/v1/auth/me', { key: stranger.token })).status).toBe(200);
    // Nothing left to end.
    expect((await t.request('POST', '/api/v1/auth/sessions/revoke-others', { key: keep.token })).body.revoked).toBe(0);
    // It needs a session to keep: an API key is refused.
    expect((await t.request('POST', '/api/v1/auth/sessions/revoke-others')).status).toBe(401);
  });

  it("a user cannot end another user's session (404); an API key ends any of its workspace's; bad ids are 400", async () => {
    const mine = await signIn();
    const theirs = await signIn();
    const refused = await t.request('DELETE', `/api/v1/auth/sessions/${theirs.body.sessionId}`, { key: mine.token });
    expect(refused.status).toBe(404);
    expect(refused.body.error).toMatchObject({ code: 'resource_not_found', param: 'sessionId' });
    expect((await t.request('GET', '/api/v1/auth/me', { key: theirs.token })).status).toBe(200);
    const workspaceKey = t.service.access.createApiKey(theirs.body.user.workspaceId).key;
    expect((await t.request('DELETE', `/api/v1/auth/sessions/${theirs.body.sessionId}`, { key: workspaceKey })).status).toBe(200);
    expect((await t.request('GET', '/api/v1/auth/me', { key: theirs.token })).status).toBe(401);
    // Another workspace's key does not see it.
    expect((await t.request('DELETE', `/api/v1/auth/sessions/${mine.body.sessionId}`, { key: workspaceKey })).status).toBe(404);
    const bad = await t.request('DELETE', '/api/v1/auth/sessions/not-a-session', { key: mine.token });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('sessionId');
    expect((await t.request('DELETE', `/api/v1/auth/sessions/${mine.body.sessionId}`, { key: null })).status).toBe(401);
  });
});

describe('MFA (TOTP and recovery codes)', () => {
  it('enrol, verify, then every new session must pass MFA; codes are single-use', async () => {
    const { account, token } = await signIn();
    const enrol = await t.request('POST', '/api/v1/auth/mfa/totp/enroll', { key: token });
    expect(enrol.status).toBe(200);
    expect(enrol.body).toMatchObject({ algorithm: 'SHA1', digits: 6, period: 30 });
    expect(enrol.body.otpauthUrl).toMatch(/^otpauth:\/\/totp\//);
    const secret: string = enrol.body.secret;

    const wrong = await t.request('POST', '/api/v1/auth/mfa/totp/verify', {
      key: token,
      body: { code: '000000' === totpCode(secret, t.clock.now()) ? '111111' : '000000' },
    });
    expect(wrong.status).toBe(401);
    expect(formatAError(wrong)).toMatchObject({ code: 'invalid_mfa_code', param: 'code' });

    const code = totpCode(secret, t.clock.now());
    const enrolled = await t.request('POST', '/api/v1/auth/mfa/totp/verify', { key: token, body: { code } });
    expect(enrolled.status).toBe(200);
    expect(enrolled.body.enrolled).toBe(true);
    const recoveryCodes: string[] = enrolled.body.recoveryCodes;
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);

    // The same code (same time step) is not accepted twice.
    const replay = await t.request('POST', '/api/v1/auth/mfa/totp/verify', { key: token, body: { code } });
    expect(replay.status).toBe(401);

    const again = await t.request('POST', '/api/v1/auth/mfa/totp/enroll', { key: token });
    expect(again.status).toBe(409);
    expect(formatAError(again).code).toBe('mfa_already_enabled');

    // A new session of this user owes MFA: only the MFA routes and /auth/me answer.
    const second = await signIn(account);
    expect(second.body.mfaRequired).toBe(true);
    const me = await t.request('GET', '/api/v1/auth/me', { key: second.token });
    expect(me.status).toBe(200);
    expect(me.body.mfa).toEqual({ totpEnabled: true, pending: true, recoveryCodesRemaining: 10 });
    const blocked = await t.request('GET', '/api/v1/auth/sessions', { key: second.token });
    expect(blocked.status).toBe(401);
    expect(formatAError(blocked).code).toBe('mfa_required');

    // A code from the previous 30 s step is within the window, but one older than that is not.
    await t.clock.advance(30_000);
    const stale = totpCode(secret, t.clock.now() - 90_000);
    expect((await t.request('POST', '/api/v1/auth/mfa/totp/verify', { key: second.token, body: { code: stale } })).status).toBe(401);
    const fresh = totpCode(secret, t.clock.now());
    const verified = await t.request('POST', '/api/v1/auth/mfa/totp/verify', { key: second.token, body: { code: fresh } });
    expect(verified.status).toBe(200);
    expect(verified.body).toEqual({ verified: true, enrolled: false });
    expect((await t.request('GET', '/api/v1/auth/sessions', { key: second.token })).status).toBe(200);

    // Recovery codes: each works once.
    const third = await signIn(account);
    const recovered = await t.request('POST', '/api/v1/auth/mfa/recovery/verify', { key: third.token, body: { code: recoveryCodes[0] } });
    expect(recovered.status).toBe(200);
    expect(recovered.body.recoveryCodesRemaining).toBe(9);
    const fourth = await signIn(account);
    const reused = await t.request('POST', '/api/v1/auth/mfa/recovery/verify', { key: fourth.token, body: { code: recoveryCodes[0] } });
    expect(reused.status).toBe(401);
    expect(formatAError(reused).code).toBe('invalid_mfa_code');

    // Regenerating needs a verified session and invalidates the old codes.
    expect((await t.request('POST', '/api/v1/auth/mfa/recovery/generate', { key: fourth.token })).status).toBe(401);
    const regenerated = await t.request('POST', '/api/v1/auth/mfa/recovery/generate', { key: third.token });
    expect(regenerated.status).toBe(200);
    expect(regenerated.body.recoveryCodes).toHaveLength(10);
    const old = await t.request('POST', '/api/v1/auth/mfa/recovery/verify', { key: fourth.token, body: { code: recoveryCodes[1] } });
    expect(old.status).toBe(401);
    const fresh2 = await t.request('POST', '/api/v1/auth/mfa/recovery/verify', {
      key: fourth.token,
      body: { code: regenerated.body.recoveryCodes[0] },
    });
    expect(fresh2.status).toBe(200);
  });

  it('MFA does not apply to API keys', async () => {
    const { token } = await signIn();
    const enrol = await t.request('POST', '/api/v1/auth/mfa/totp/enroll', { key: token });
    await t.request('POST', '/api/v1/auth/mfa/totp/verify', { key: token, body: { code: totpCode(enrol.body.secret, t.clock.now()) } });
    const me = await t.request('GET', '/api/v1/auth/me', { key: token });
    const key = t.service.access.createApiKey(me.body.user.workspaceId).key;
    expect((await t.request('GET', '/api/v1/auth/sessions', { key })).status).toBe(200);
    const viaKey = await t.request('POST', '/api/v1/auth/mfa/totp/enroll', { key });
    expect(viaKey.status).toBe(401);
    expect(formatAError(viaKey).code).toBe('jwt_required');
  });

  it('verifying without enrolment is a 409', async () => {
    const { token } = await signIn();
    const response = await t.request('POST', '/api/v1/auth/mfa/totp/verify', { key: token, body: { code: '123456' } });
    expect(response.status).toBe(409);
    expect(formatAError(response).code).toBe('mfa_not_enrolled');
  });
});
