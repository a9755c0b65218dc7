/**
 * FIDO2 / WebAuthn security keys as a second factor next to TOTP and recovery codes (@simplewebauthn/server does
 * the ceremonies' cryptography). A signed-in user registers keys (registration ceremony) and completes the MFA
 * step of a session with one (authentication ceremony). Each ceremony's challenge is kept per session, expires after
 * 5 minutes of service clock and is answered once. A key whose signature counter goes backwards is refused: that is
 * what a cloned authenticator looks like.
 */
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import type { Clock } from '../../clock/index.js';
import { AuthenticationError, ConflictError, NotFoundError } from '../errors/api-errors.js';
import { newId } from '../store/ids.js';
import type { PlatformRepositories } from '../store/repositories.js';
import type { Store } from '../store/store.js';
import type { User } from '../store/users.js';
import type { Ceremony, WebAuthnCredential } from '../store/webauthn.js';
import type { MfaService } from './mfa.js';
import { lazyModule } from '../lazy-module.js';

const CHALLENGE_TTL_MS = 5 * 60_000;

/** The ceremonies' library, loaded on the first ceremony: with its ASN.1 stack it is a large share of a cold start. */
const simpleWebAuthn = lazyModule(() => import('@simplewebauthn/server'));
const CEREMONY_TIMEOUT_MS = 60_000;

/** Who the keys are bound to: the RP ID (a domain, never an IP) and the page origins allowed to run ceremonies. */
export interface RelyingParty {
  id: string;
  name: string;
  origins: string[];
}

/**
 * The relying party a service at `publicUrl` (listening on `port`) presents, unless configured: WebAuthn binds keys
 * to a domain, so a sandbox reached by IP uses `localhost` (which browsers treat as a secure origin).
 */
export function defaultRelyingParty(
  config: { rpId?: string | undefined; origins?: string[] | undefined },
  publicUrl: string,
  port: number,
): RelyingParty {
  const url = new URL(publicUrl);
  const byName = !/^[0-9.]+$/.test(url.hostname) && !url.hostname.startsWith('[');
  const origins = new Set(config.origins ?? [...(byName ? [url.origin] : []), `http://localhost:${port}`]);
  return { id: config.rpId ?? (byName ? url.hostname : 'localhost'), name: 'Settlement Sandbox', origins: [...origins] };
}

export class WebAuthnService {
  constructor(
    private readonly store: Store,
    private readonly repos: PlatformRepositories,
    private readonly clock: Clock,
    private readonly mfa: MfaService,
    private readonly relyingParty: () => RelyingParty,
  ) {}

  async registrationOptions(user: User, sessionId: string): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const rp = this.relyingParty();
    const options = await (await simpleWebAuthn()).generateRegistrationOptions({
      rpName: rp.name,
      rpID: rp.id,
      userName: user.address,
      userID: new TextEncoder().encode(user.id),
      attestationType: 'none',
      timeout: CEREMONY_TIMEOUT_MS,
      excludeCredentials: this.repos.webauthn.forUser(user.id).map((c) => ({ id: c.credentialId, transports: c.transports })),
      authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
    });
    this.repos.webauthn.putChallenge(sessionId, 'registration', options.challenge, this.clock.now() + CHALLENGE_TTL_MS);
    return options;
  }

  /** Verifies the registration and stores the key; a user's first second factor also gets its recovery codes. */
  async register(
    user: User,
    sessionId: string,
    response: RegistrationResponseJSON,
    name: string | undefined,
  ): Promise<{ credential: WebAuthnCredential; recoveryCodes?: string[] }> {
    const challenge = this.takeChallenge(sessionId, 'registration');
    const rp = this.relyingParty();
    let verification: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
    try {
      verification = await (await simpleWebAuthn()).verifyRegistrationResponse({
        response,
        expectedChallenge: challenge,
        expectedOrigin: rp.origins,
        expectedRPID: rp.id,
        requireUserVerification: false,
      });
    } catch (error) {
      throw verificationFailed(error);
    }
    if (!verification.verified) throw verificationFailed(undefined);
    const info = verification.registrationInfo;
    if (this.repos.webauthn.byCredentialId(info.credential.id) !== undefined) {
      throw new ConflictError({
        code: 'webauthn_credential_exists',
        param: 'response',
        message: 'This security key is already registered.',
      });
    }
    const now = this.clock.now();
    const credential: WebAuthnCredential = {
      id: newId('wac'),
      userId: user.id,
      credentialId: info.credential.id,
      publicKey: info.credential.publicKey,
      signCount: info.credential.counter,
      transports: info.credential.transports ?? [],
      deviceType: info.credentialDeviceType,
      backedUp: info.credentialBackedUp,
      name: name ?? `Security key ${this.repos.webauthn.count(user.id) + 1}`,
      createdAt: now,
      lastUsedAt: null,
    };
    return this.store.transaction(() => {
      const first = !this.mfa.isEnabled(user.id) && this.repos.webauthn.count(user.id) === 0;
      this.repos.webauthn.insert(credential);
      // Registering proves possession of the key: this session counts as MFA-verified.
      this.repos.sessions.markMfaVerified(sessionId, now);
      return first ? { credential, recoveryCodes: this.mfa.issueFirstRecoveryCodes(user.id) } : { credential };
    });
  }

  async authenticationOptions(user: User, sessionId: string): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const credentials = this.repos.webauthn.forUser(user.id);
    if (credentials.length === 0) {
      throw new ConflictError({
        code: 'mfa_not_enrolled',
        message: 'No security key is registered for this user (POST /api/v1/auth/mfa/webauthn/register/options).',
      });
    }
    const options = await (await simpleWebAuthn()).generateAuthenticationOptions({
      rpID: this.relyingParty().id,
      timeout: CEREMONY_TIMEOUT_MS,
      userVerification: 'preferred',
      allowCredentials: credentials.map((c) => ({ id: c.credentialId, transports: c.transports })),
    });
    this.repos.webauthn.putChallenge(sessionId, 'authentication', options.challenge, this.clock.now() + CHALLENGE_TTL_MS);
    return options;
  }

  /** Verifies an assertion by one of the user's keys and marks the session MFA-verified. */
  async authenticate(user: User, sessionId: string, response: AuthenticationResponseJSON): Promise<WebAuthnCredential> {
    const challenge = this.takeChallenge(sessionId, 'authentication');
    const credential = typeof response?.id === 'string' ? this.repos.webauthn.byCredentialId(response.id) : undefined;
    if (credential === undefined || credential.userId !== user.id)
      throw verificationFailed(undefined, 'This security key is not registered for this user.');
    const rp = this.relyingParty();
    let verification: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
    try {
      verification = await (await simpleWebAuthn()).verifyAuthenticationResponse({
        response,
        expectedChallenge: challenge,
        expectedOrigin: rp.origins,
        expectedRPID: rp.id,
        requireUserVerification: false,
        credential: { id: credential.credentialId, publicKey: new Uint8Array(credential.publicKey), counter: credential.signCount },
      });
    } catch (error) {
      if (error instanceof Error && /counter/i.test(error.message)) throw counterRegressed();
      throw verificationFailed(error);
    }
    if (!verification.verified) throw verificationFailed(undefined);
    const now = this.clock.now();
    return this.store.transaction(() => {
      if (!this.repos.webauthn.markUsed(credential.id, verification.authenticationInfo.newCounter, now)) throw counterRegressed();
      this.repos.sessions.markMfaVerified(sessionId, now);
      return { ...credential, signCount: verification.authenticationInfo.newCounter, lastUsedAt: now };
    });
  }

  get(user: User, id: string): WebAuthnCredential {
    const credential = this.repos.webauthn.get(user.id, id);
    if (credential === undefined)
      throw new NotFoundError({ code: 'resource_not_found', param: 'credentialId', message: `No security key ${id} for this user.` });
    return credential;
  }

  remove(user: User, id: string): void {
    if (!this.repos.webauthn.remove(user.id, id)) {
      throw new NotFoundError({ code: 'resource_not_found', param: 'credentialId', message: `No security key ${id} for this user.` });
    }
  }

  private takeChallenge(sessionId: string, ceremony: Ceremony): string {
    const pending = this.repos.webauthn.takeChallenge(sessionId, ceremony);
    if (pending === undefined || pending.expiresAt <= this.clock.now()) {
      throw new ConflictError({
        code: 'webauthn_challenge_missing',
        message: `No ${ceremony} ceremony is pending for this session, or it expired: ask for new options first.`,
      });
    }
    return pending.challenge;
  }
}

function verificationFailed(error: unknown, message?: string): AuthenticationError {
  const reason = error instanceof Error ? error.message : undefined;
  return new AuthenticationError({
    code: 'webauthn_verification_failed',
    param: 'response',
    message: message ?? `The authenticator response does not verify${reason === undefined ? '' : `: ${reason}`}.`,
  });
}

function counterRegressed(): AuthenticationError {
  return new AuthenticationError({
    code: 'webauthn_counter_regressed',
    param: 'response',
    message: 'The signature counter of this security key went backwards: it may be cloned, so it is not accepted.',
  });
}
