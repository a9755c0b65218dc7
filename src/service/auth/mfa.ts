import { createHash, randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import type { Clock } from '../../clock/index.js';
import { AuthenticationError, ConflictError } from '../errors/api-errors.js';
import type { PlatformRepositories } from '../store/repositories.js';
import type { Store } from '../store/store.js';
import type { User } from '../store/users.js';

export const RECOVERY_CODE_COUNT = 10;
const TOTP_PERIOD_S = 30;
const TOTP_DIGITS = 6;

export interface TotpEnrolmentOffer {
  secret: string;
  otpauthUrl: string;
  algorithm: 'SHA1';
  digits: number;
  period: number;
}

function totpFor(user: User, secret: string, issuer: string): TOTP {
  return new TOTP({
    issuer,
    label: user.address,
    algorithm: 'SHA1',
    digits: TOTP_DIGITS,
    period: TOTP_PERIOD_S,
    secret: Secret.fromBase32(secret),
  });
}

/** Recovery codes look like `4f1c-92ab-07de`: 48 random bits, typed by hand when the phone is lost. */
function newRecoveryCode(): string {
  const hex = randomBytes(6).toString('hex');
  return `${hex.slice(0, 4)}-${hex.slice(4, 8)}-${hex.slice(8, 12)}`;
}

function hashRecoveryCode(code: string): Buffer {
  return createHash('sha256').update(code.trim().toLowerCase(), 'utf8').digest();
}

/**
 * Whether a user has a second factor (TOTP enabled, or a registered FIDO2 / WebAuthn credential): their sessions
 * then start MFA-pending and must verify one before using other routes.
 */
export function mfaEnabled(repos: PlatformRepositories, userId: string): boolean {
  return repos.mfa.getTotp(userId)?.enabledAt != null || repos.webauthn.count(userId) > 0;
}

/**
 * TOTP (RFC 6238, SHA-1, 6 digits, 30 s) and single-use recovery codes for dashboard sessions. Codes are
 * checked against the service clock; each time step is accepted once (RFC 6238 section 5.2).
 */
export class MfaService {
  constructor(
    private readonly store: Store,
    private readonly repos: PlatformRepositories,
    private readonly clock: Clock,
    private readonly issuer: string,
  ) {}

  isEnabled(userId: string): boolean {
    return this.repos.mfa.getTotp(userId)?.enabledAt != null;
  }

  /** Recovery codes are for any second factor (TOTP or a security key). */
  private anyFactor(userId: string): boolean {
    return mfaEnabled(this.repos, userId);
  }

  /** Starts TOTP enrolment; the first valid code (verifyTotp) enables it and returns the recovery codes. */
  enrolTotp(user: User): TotpEnrolmentOffer {
    if (this.isEnabled(user.id)) {
      throw new ConflictError({ code: 'mfa_already_enabled', message: 'TOTP is already enabled for this user.' });
    }
    const secret = new Secret({ size: 20 }).base32;
    this.repos.mfa.putPendingTotp(user.id, secret, this.clock.now());
    return {
      secret,
      otpauthUrl: totpFor(user, secret, this.issuer).toString(),
      algorithm: 'SHA1',
      digits: TOTP_DIGITS,
      period: TOTP_PERIOD_S,
    };
  }

  /**
   * Checks a TOTP code for `sessionId` and marks the session MFA-verified. On the code that completes an
   * enrolment it also returns the 10 recovery codes (shown once).
   */
  verifyTotp(user: User, sessionId: string, code: string): { enrolled: boolean; recoveryCodes?: string[] } {
    const enrolment = this.repos.mfa.getTotp(user.id);
    if (enrolment === undefined) {
      throw new ConflictError({ code: 'mfa_not_enrolled', message: 'Enrol TOTP first (POST /api/v1/auth/mfa/totp/enroll).' });
    }
    const now = this.clock.now();
    const totp = totpFor(user, enrolment.secret, this.issuer);
    const delta = /^\d{6}$/.test(code) ? totp.validate({ token: code, timestamp: now, window: 1 }) : null;
    if (delta === null) throw invalidCode();
    const counter = totp.counter({ timestamp: now }) + delta;
    const enrolling = enrolment.enabledAt === null;
    return this.store.transaction(() => {
      if (!this.repos.mfa.acceptCounter(user.id, counter, now)) throw invalidCode();
      this.repos.sessions.markMfaVerified(sessionId, now);
      if (!enrolling) return { enrolled: false };
      return { enrolled: true, recoveryCodes: this.issueRecoveryCodes(user.id, now) };
    });
  }

  /** Replaces all recovery codes; the old ones stop working. */
  generateRecoveryCodes(user: User): string[] {
    if (!this.anyFactor(user.id)) {
      throw new ConflictError({
        code: 'mfa_not_enrolled',
        message: 'Recovery codes come with a second factor: enrol TOTP or register a security key first.',
      });
    }
    return this.issueRecoveryCodes(user.id, this.clock.now());
  }

  /** Spends one recovery code to complete MFA for `sessionId`. */
  useRecoveryCode(user: User, sessionId: string, code: string): { remaining: number } {
    const now = this.clock.now();
    return this.store.transaction(() => {
      if (!this.anyFactor(user.id) || !this.repos.mfa.useRecoveryCode(user.id, hashRecoveryCode(code), now)) {
        throw invalidCode();
      }
      this.repos.sessions.markMfaVerified(sessionId, now);
      return { remaining: this.repos.mfa.remainingRecoveryCodes(user.id) };
    });
  }

  remainingRecoveryCodes(userId: string): number {
    return this.repos.mfa.remainingRecoveryCodes(userId);
  }

  /** The recovery codes a user's first second factor comes with (shown once). */
  issueFirstRecoveryCodes(userId: string): string[] {
    return this.issueRecoveryCodes(userId, this.clock.now());
  }

  private issueRecoveryCodes(userId: string, now: number): string[] {
    const codes = new Set<string>();
    while (codes.size < RECOVERY_CODE_COUNT) codes.add(newRecoveryCode());
    this.repos.mfa.replaceRecoveryCodes(userId, [...codes].map(hashRecoveryCode), now);
    return [...codes];
  }
}

function invalidCode(): AuthenticationError {
  return new AuthenticationError({ code: 'invalid_mfa_code', param: 'code', message: 'The code is wrong, expired or already used.' });
}
