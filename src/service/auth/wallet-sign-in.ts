import { getAddress, isAddress, verifyMessage, type Hex } from 'viem';
import { createSiweMessage, generateSiweNonce, parseSiweMessage, validateSiweMessage } from 'viem/siwe';
import type { Clock } from '../../clock/index.js';
import { AuthenticationError } from '../errors/api-errors.js';
import { newId } from '../store/ids.js';
import type { PlatformRepositories } from '../store/repositories.js';
import type { Session } from '../store/sessions.js';
import type { Store } from '../store/store.js';
import type { User } from '../store/users.js';
import { mfaEnabled } from './mfa.js';
import type { SessionTokens } from './session-tokens.js';

export interface WalletSignInOptions {
  /** RFC 3986 authority the message names (e.g. `127.0.0.1:8080`) and the URI of the service. */
  origin(): { domain: string; uri: string };
  challengeTtlMs: number;
  sessionTtlMs: number;
  statement: string;
}

export interface Challenge {
  message: string;
  nonce: string;
  expiresAt: number;
}

export interface SignedIn {
  token: string;
  user: User;
  session: Session;
  /** True when the user has TOTP: the session is limited to MFA routes until a code is verified. */
  mfaRequired: boolean;
}

export interface ClientInfo {
  userAgent?: string | undefined;
  ip?: string | undefined;
}

/**
 * Sign-In with Ethereum (EIP-4361): hands out a one-time message, verifies its signature, opens a
 * session and returns its JWT. The first sign-in of an address creates its user and workspace.
 */
export class WalletSignIn {
  constructor(
    private readonly store: Store,
    private readonly repos: PlatformRepositories,
    private readonly clock: Clock,
    private readonly tokens: SessionTokens,
    private readonly options: WalletSignInOptions,
  ) {}

  challenge(address: string, chainId: number): Challenge {
    const now = this.clock.now();
    const nonce = generateSiweNonce();
    const expiresAt = now + this.options.challengeTtlMs;
    const { domain, uri } = this.options.origin();
    const message = createSiweMessage({
      address: getAddress(address),
      chainId,
      domain,
      uri,
      version: '1',
      nonce,
      statement: this.options.statement,
      issuedAt: new Date(now),
      expirationTime: new Date(expiresAt),
    });
    this.repos.challenges.insert({ nonce, address, chainId, message, createdAt: now, expiresAt });
    return { message, nonce, expiresAt };
  }

  async verify(message: string, signature: Hex, client: ClientInfo = {}): Promise<SignedIn> {
    const fields = parseSiweMessage(message);
    if (fields.nonce === undefined || fields.address === undefined || !isAddress(fields.address, { strict: false })) {
      throw challengeInvalid('The message is not a sign-in message of this service.');
    }
    const valid = validateSiweMessage({
      message: fields,
      domain: this.options.origin().domain,
      nonce: fields.nonce,
      time: this.clock.date(),
    });
    if (!valid) throw challengeInvalid('The sign-in message is expired, not yet valid, or for another domain.');
    // The signature is checked before the challenge is spent, so a stranger cannot burn someone's challenge.
    let signed = false;
    try {
      signed = await verifyMessage({ address: fields.address, message, signature });
    } catch {
      signed = false;
    }
    if (!signed) {
      throw new AuthenticationError({
        code: 'invalid_signature',
        param: 'signature',
        message: 'The signature does not match the address of the message.',
      });
    }
    const now = this.clock.now();
    const { user, session } = this.store.transaction(() => {
      const challenge = this.repos.challenges.redeem(fields.nonce!, now);
      if (challenge === undefined || challenge.message !== message) {
        throw challengeInvalid('This sign-in message was not issued by this service, or was already used or expired.');
      }
      const user = this.userFor(challenge.address, now);
      const session: Session = {
        id: newId('ses'),
        userId: user.id,
        workspaceId: user.workspaceId,
        createdAt: now,
        expiresAt: now + this.options.sessionTtlMs,
        mfaVerifiedAt: null,
        revokedAt: null,
        userAgent: client.userAgent?.slice(0, 256) ?? null,
        ip: client.ip ?? null,
      };
      this.repos.sessions.insert(session);
      return { user, session };
    });
    const token = await this.tokens.issue(
      { userId: user.id, sessionId: session.id, workspaceId: user.workspaceId, address: user.address },
      session.expiresAt,
    );
    const mfaRequired = mfaEnabled(this.repos, user.id);
    return { token, user, session, mfaRequired };
  }

  private userFor(address: string, now: number): User {
    const existing = this.repos.users.findByAddress(address);
    if (existing !== undefined) return existing;
    // A wallet an admin added to a workspace joins it; any other wallet gets a workspace of its own, as its admin.
    const invited = this.repos.members.firstWorkspaceOf(address);
    let workspaceId = invited;
    if (workspaceId === undefined) {
      const workspace = { id: newId('ws'), name: `Workspace of ${getAddress(address)}`, createdAt: now };
      this.repos.workspaces.insert(workspace);
      workspaceId = workspace.id;
    }
    const user: User = { id: newId('usr'), address: address.toLowerCase(), workspaceId, createdAt: now };
    this.repos.users.insert(user);
    if (invited === undefined)
      this.repos.members.insert({ id: newId('mem'), workspaceId, address, role: 'admin', addedAt: now, addedBy: null });
    return user;
  }
}

function challengeInvalid(message: string): AuthenticationError {
  return new AuthenticationError({ code: 'challenge_invalid', param: 'message', message });
}
