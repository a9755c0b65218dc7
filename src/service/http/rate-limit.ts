import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { BurstyRateLimiter, RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { RealClock } from '../../clock/index.js';
import { RateLimitError } from '../errors/api-errors.js';

export interface RateLimitSettings {
  /** Sustained requests per second per credential (spec: 100). */
  perSecond: number;
  /** Requests allowed at once before the per-second rate applies (spec: 1,000). */
  burst: number;
}

export interface RateDecision {
  allowed: boolean;
  /** The burst capacity: what `X-RateLimit-Limit` reports. */
  limit: number;
  remaining: number;
  /** Epoch ms when the per-second window renews. */
  resetAt: number;
  /** On a refusal: ms until a retry can succeed. */
  retryAfterMs: number;
}

/**
 * A burst allowance on top of a per-second rate (rate-limiter-flexible's BurstyRateLimiter): up to
 * `burst` requests at once, then `perSecond` in each following second; the burst allowance refills over
 * `burst / perSecond` seconds. It meters real load, so it runs on wall time even in the sandbox: moving
 * the business clock must not hand out or take away capacity.
 */
export class CredentialRateLimiter {
  private readonly rate: RateLimiterMemory;
  private readonly burst: RateLimiterMemory | undefined;
  private readonly limiter: BurstyRateLimiter | RateLimiterMemory;
  private readonly wall = new RealClock();
  readonly limit: number;

  constructor(settings: RateLimitSettings, name: string) {
    if (!(settings.perSecond >= 1) || !(settings.burst >= settings.perSecond)) {
      throw new RangeError(`rate limit ${name}: need perSecond >= 1 and burst >= perSecond`);
    }
    this.limit = settings.burst;
    this.rate = new RateLimiterMemory({ keyPrefix: `${name}:rate`, points: settings.perSecond, duration: 1 });
    const extra = settings.burst - settings.perSecond;
    if (extra > 0) {
      this.burst = new RateLimiterMemory({
        keyPrefix: `${name}:burst`,
        points: extra,
        duration: Math.max(1, Math.ceil(settings.burst / settings.perSecond)),
      });
      this.limiter = new BurstyRateLimiter(this.rate, this.burst);
    } else {
      this.limiter = this.rate;
    }
  }

  async consume(key: string): Promise<RateDecision> {
    const now = this.wall.now();
    let allowed = true;
    let result: RateLimiterRes;
    try {
      result = await this.limiter.consume(key);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      allowed = false;
      result = rejection;
    }
    const burstLeft = this.burst === undefined ? 0 : await this.burstRemaining(key);
    const remaining = Math.max(0, result.remainingPoints) + burstLeft;
    return {
      allowed,
      limit: this.limit,
      remaining: allowed ? remaining : 0,
      resetAt: now + result.msBeforeNext,
      retryAfterMs: allowed ? 0 : Math.max(result.msBeforeNext, 1),
    };
  }

  private async burstRemaining(key: string): Promise<number> {
    const state = await this.burst!.get(key);
    return state === null ? this.burst!.points : Math.max(0, state.remainingPoints);
  }
}

/**
 * Sets `X-RateLimit-*` on every response and answers 429 with `Retry-After` once the bucket is spent.
 * Authenticated requests count per credential; anonymous ones per client address.
 */
export function rateLimit(limiters: { credential: CredentialRateLimiter; anonymous: CredentialRateLimiter }): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    const auth = req.auth;
    const [limiter, key] =
      auth !== undefined
        ? [limiters.credential, `${auth.kind}:${auth.keyId}`]
        : [limiters.anonymous, `ip:${req.socket.remoteAddress ?? 'unknown'}`];
    const decision = await limiter.consume(key);
    res.setHeader('X-RateLimit-Limit', String(decision.limit));
    res.setHeader('X-RateLimit-Remaining', String(decision.remaining));
    res.setHeader('X-RateLimit-Reset', String(Math.ceil(decision.resetAt / 1_000)));
    if (!decision.allowed) throw new RateLimitError(decision.retryAfterMs / 1_000);
    next();
  };
}
