/**
 * FIDO2 / WebAuthn security keys in a real browser: Debian's headless Chromium (playwright-core) with a virtual
 * authenticator from the DevTools protocol's WebAuthn domain — a real CTAP2 key as far as the page and the
 * service can tell, with its own private keys and signature counter. Nothing is mocked on the service side: the
 * ceremonies are verified by @simplewebauthn/server against the challenge, the origin and the relying party.
 *
 * The page is any page of the service's origin at `http://localhost:<port>` (WebAuthn needs a domain, and
 * `localhost` is a secure context); the browser runs navigator.credentials and hands the JSON result to the test,
 * which calls the API like the dashboard would.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, type CDPSession, chromium, type Page } from 'playwright-core';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatAError, startTestService, type TestService } from '../support/service/service.js';

const CHROMIUM = '/usr/bin/chromium';
if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium)`);

let t: TestService;
let context: BrowserContext;
let page: Page;
let cdp: CDPSession;
let authenticatorId: string;
let userDataDir: string;
const account = privateKeyToAccount(generatePrivateKey());

async function signIn(): Promise<{ token: string; mfaRequired: boolean }> {
  const challenge = await t.request('POST', '/api/v1/auth/challenge', { key: null, body: { address: account.address } });
  const signature = await account.signMessage({ message: challenge.body.message });
  const verified = await t.request('POST', '/api/v1/auth/verify', { key: null, body: { message: challenge.body.message, signature } });
  expect(verified.status).toBe(200);
  return { token: verified.body.token, mfaRequired: verified.body.mfaRequired };
}

/** navigator.credentials.create() in the page with the service's options; the credential's JSON form. */
function browserCreate(options: unknown): Promise<any> {
  return page.evaluate(async (json) => {
    const publicKey = PublicKeyCredential.parseCreationOptionsFromJSON(json as PublicKeyCredentialCreationOptionsJSON);
    const credential = (await navigator.credentials.create({ publicKey })) as PublicKeyCredential;
    return credential.toJSON();
  }, options);
}

/** navigator.credentials.get() in the page with the service's options; the assertion's JSON form. */
function browserGet(options: unknown): Promise<any> {
  return page.evaluate(async (json) => {
    const publicKey = PublicKeyCredential.parseRequestOptionsFromJSON(json as PublicKeyCredentialRequestOptionsJSON);
    const credential = (await navigator.credentials.get({ publicKey })) as PublicKeyCredential;
    return credential.toJSON();
  }, options);
}

beforeAll(async () => {
  t = await startTestService();
  userDataDir = mkdtempSync(join(tmpdir(), 'webauthn-chromium-'));
  context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
  page = context.pages()[0] ?? (await context.newPage());
  const port = new URL(t.url).port;
  await page.goto(`http://localhost:${port}/api/v1/health`);
  cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const added = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'usb',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  authenticatorId = added.authenticatorId;
}, 60_000);

afterAll(async () => {
  await context?.close();
  if (userDataDir !== undefined) rmSync(userDataDir, { recursive: true, force: true });
  await t?.stop();
});

describe('security keys (FIDO2 / WebAuthn) in Chromium with a virtual authenticator', () => {
  let registeredId = '';
  let recoveryCodes: string[] = [];

  it('registers a key: the first second factor comes with 10 recovery codes; the challenge is answered once', async () => {
    const { token, mfaRequired } = await signIn();
    expect(mfaRequired).toBe(false);
    const options = await t.request('POST', '/api/v1/auth/mfa/webauthn/register/options', { key: token });
    expect(options.status).toBe(200);
    expect(options.body.rp.id).toBe('localhost');
    const response = await browserCreate(options.body);

    const registered = await t.request('POST', '/api/v1/auth/mfa/webauthn/register/verify', {
      key: token,
      body: { response, name: 'YubiKey (virtual)' },
    });
    expect(registered.status).toBe(201);
    expect(registered.body.credential).toMatchObject({
      object: 'webauthn_credential',
      name: 'YubiKey (virtual)',
      credentialId: response.id,
    });
    expect(registered.body.recoveryCodes).toHaveLength(10);
    registeredId = registered.body.credential.id;
    recoveryCodes = registered.body.recoveryCodes;

    // The same response again: its challenge was spent.
    const replay = await t.request('POST', '/api/v1/auth/mfa/webauthn/register/verify', { key: token, body: { response } });
    expect(replay.status).toBe(409);
    expect(formatAError(replay).code).toBe('webauthn_challenge_missing');

    const listed = await t.request('GET', '/api/v1/auth/mfa/webauthn/credentials', { key: token });
    expect(listed.body.data.map((c: { id: string }) => c.id)).toEqual([registeredId]);
  }, 60_000);

  it('a new session starts MFA-pending and is let in by the key; the counter moves forward', async () => {
    const { token, mfaRequired } = await signIn();
    expect(mfaRequired).toBe(true);
    const blocked = await t.request('GET', '/api/v1/auth/mfa/webauthn/credentials', { key: token });
    expect(blocked.status).toBe(401);
    expect(formatAError(blocked).code).toBe('mfa_required');

    const options = await t.request('POST', '/api/v1/auth/mfa/webauthn/authenticate/options', { key: token });
    expect(options.status).toBe(200);
    const assertion = await browserGet(options.body);
    const verified = await t.request('POST', '/api/v1/auth/mfa/webauthn/authenticate/verify', {
      key: token,
      body: { response: assertion },
    });
    expect(verified.status).toBe(200);
    expect(verified.body).toEqual({ verified: true, credentialId: registeredId });

    const key = await t.request('GET', `/api/v1/auth/mfa/webauthn/credentials/${registeredId}`, { key: token });
    expect(key.status).toBe(200);
    const onAuthenticator = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(key.body.signCount).toBe(onAuthenticator.credentials[0]!.signCount);
    expect(key.body.signCount).toBeGreaterThan(0);
    expect(key.body.lastUsedAt).not.toBeNull();
  }, 60_000);

  it('refuses a tampered assertion and an assertion for another challenge', async () => {
    const { token } = await signIn();
    const options = await t.request('POST', '/api/v1/auth/mfa/webauthn/authenticate/options', { key: token });
    const assertion = await browserGet(options.body);
    const client = JSON.parse(Buffer.from(assertion.response.clientDataJSON, 'base64url').toString('utf8'));
    const forged = Buffer.from(JSON.stringify({ ...client, origin: 'http://evil.localhost' })).toString('base64url');
    const tampered = await t.request('POST', '/api/v1/auth/mfa/webauthn/authenticate/verify', {
      key: token,
      body: { response: { ...assertion, response: { ...assertion.response, clientDataJSON: forged } } },
    });
    expect(tampered.status).toBe(401);
    expect(formatAError(tampered)).toMatchObject({ code: 'webauthn_verification_failed', param: 'response' });

    // The challenge was spent on the failed attempt; a fresh one is needed, and an old assertion does not match it.
    await t.request('POST', '/api/v1/auth/mfa/webauthn/authenticate/options', { key: token });
    const stale = await t.request('POST', '/api/v1/auth/mfa/webauthn/authenticate/verify', { key: token, body: { response: assertion } });
    expect(stale.status).toBe(401);
    expect(formatAError(stale).code).toBe('webauthn_verification_failed');
  }, 60_000);

  it('refuses a key whose signature counter went backwards (a cloned authenticator)', async () => {
    const { token } = await signIn();
    const [credential] = (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials;
    // The clone: the same private key on a second authenticator whose counter starts over.
    await cdp.send('WebAuthn.setAutomaticPresenceSimulation', { authenticatorId, enabled: false });
    const clone = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'usb',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });
    await cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId });
    await cdp.send('WebAuthn.addCredential', { authenticatorId: clone.authenticatorId, credential: { ...credential!, signCount: 0 } });
    authenticatorId = clone.authenticatorId;

    const options = await t.request('POST', '/api/v1/auth/mfa/webauthn/authenticate/options', { key: token });
    const assertion = await browserGet(options.body);
    const refused = await t.request('POST', '/api/v1/auth/mfa/webauthn/authenticate/verify', { key: token, body: { response: assertion } });
    expect(refused.status).toBe(401);
    expect(formatAError(refused).code).toBe('webauthn_counter_regressed');
  }, 60_000);

  it('a recovery code completes the MFA step; a removed key is no longer a second factor; API keys cannot touch keys', async () => {
    const { token, mfaRequired } = await signIn();
    expect(mfaRequired).toBe(true);
    const wrong = await t.request('POST', '/api/v1/auth/mfa/recovery/verify', { key: token, body: { code: 'ffff-ffff-ffff' } });
    expect(wrong.status).toBe(401);
    const recovered = await t.request('POST', '/api/v1/auth/mfa/recovery/verify', { key: token, body: { code: recoveryCodes[0] } });
    expect(recovered.status).toBe(200);

    const withApiKey = await t.request('GET', '/api/v1/auth/mfa/webauthn/credentials');
    expect(withApiKey.status).toBe(401);
    expect(formatAError(withApiKey).code).toBe('jwt_required');

    const unknown = await t.request('DELETE', '/api/v1/auth/mfa/webauthn/credentials/wac_nothere', { key: token });
    expect(unknown.status).toBe(404);
    expect(formatAError(unknown).param).toBe('credentialId');
    const removed = await t.request('DELETE', `/api/v1/auth/mfa/webauthn/credentials/${registeredId}`, { key: token });
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ object: 'webauthn_credential', id: registeredId, deleted: true });
    expect((await t.request('GET', '/api/v1/auth/mfa/webauthn/credentials', { key: token })).body.data).toEqual([]);
    expect((await signIn()).mfaRequired).toBe(false);
  }, 60_000);
});
