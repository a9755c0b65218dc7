import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Clock } from '../../clock/index.js';
import type { IdempotencyRepository } from '../store/idempotency.js';
import { IDEMPOTENCY_KEY_PATTERN } from '../api/openapi.js';
import { canonicalJson } from './canonical-json.js';
import { ConflictError, InvalidRequestError } from '../errors/api-errors.js';

export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;

export interface IdempotencyOptions {
  repository: IdempotencyRepository;
  clock: Clock;
  /** How long a first response is kept and replayed (24 h by the spec), by the service clock. */
  ttlMs: number;
  /**
   * This service instance: its claims name it, so that another instance starting on the same store releases only
   * the claims of instances that are gone, never those of requests still executing elsewhere.
   */
  instanceId: string;
}

/**
 * Whose key space an Idempotency-Key lives in: the workspace of the credential, or the client address on
 * public routes. Two workspaces may use the same key without meeting.
 */
function ownerOf(req: Request): string {
  return req.auth?.workspaceId ?? `ip:${req.socket.remoteAddress ?? 'unknown'}`;
}

/** Same endpoint and same JSON body (key order and whitespace aside) → same fingerprint. */
function fingerprintOf(req: Request): Buffer {
  let body = '';
  if (req.rawBody !== undefined && req.rawBody.length > 0) {
    try {
      body = canonicalJson(JSON.parse(req.rawBody.toString('utf8')));
    } catch {
      body = req.rawBody.toString('base64');
    }
  }
  return createHash('sha256').update(`${req.method}\n${req.baseUrl}${req.path}\n${body}`, 'utf8').digest();
}

/**
 * Stored responses may hold secrets (a new API key, a webhook signing key). They are sealed with a key
 * derived from the Idempotency-Key itself, which is stored only as a hash: the database alone cannot
 * read them back; the client that holds the key can replay them.
 */
function sealKey(idempotencyKey: string, owner: string): Buffer {
  return Buffer.from(hkdfSync('sha256', idempotencyKey, owner, 'idempotent-response-v1', 32));
}

function seal(body: Buffer, key: Buffer): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const sealed = Buffer.concat([cipher.update(body), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), sealed]);
}

function unseal(sealed: Buffer, key: Buffer): Buffer {
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, 12));
  decipher.setAuthTag(sealed.subarray(12, 28));
  return Buffer.concat([decipher.update(sealed.subarray(28)), decipher.final()]);
}

const KEY_PATTERN = new RegExp(IDEMPOTENCY_KEY_PATTERN);

/** The pattern the document states is the whole rule (1 to 255 printable ASCII characters). */
function validKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

/**
 * `Idempotency-Key` for creating POSTs (Stripe's rules): the first response (status and body) is kept
 * per (owner, key) for `ttlMs` and replayed byte for byte; the same key with another body or endpoint is
 * 409 `idempotency_key_reused`; while the first request still runs, 409 `idempotency_key_in_use`.
 * Mount it after authentication and validation: a request rejected before executing stores nothing, so a
 * corrected retry with the same key runs fresh.
 */
export function idempotency(options: IdempotencyOptions): RequestHandler {
  const { repository, clock } = options;
  // Built once at start-up, before the server listens: no request of this process can hold a claim yet.
  repository.releaseAbandoned();
  const { instanceId } = options;
  return (req: Request, res: Response, next: NextFunction) => {
    const key = req.get('Idempotency-Key');
    if (key === undefined) {
      next();
      return;
    }
    if (!validKey(key)) {
      throw new InvalidRequestError({
        code: 'idempotency_key_invalid',
        param: 'Idempotency-Key',
        message: `The Idempotency-Key header must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} printable ASCII characters.`,
      });
    }
    const owner = ownerOf(req);
    const keyHash = createHash('sha256').update(key, 'utf8').digest();
    const fingerprint = fingerprintOf(req);
    const now = clock.now();
    res.setHeader('Idempotency-Key', key);

    if (!repository.claim(owner, keyHash, fingerprint, now, now + options.ttlMs, instanceId)) {
      const record = repository.get(owner, keyHash, now);
      if (record === undefined) {
        // Expired between claim and read; a retry will claim it.
        throw inUse();
      }
      if (!record.fingerprint.equals(fingerprint)) {
        throw new ConflictError({
          code: 'idempotency_key_reused',
          param: 'Idempotency-Key',
          message: 'This Idempotency-Key was already used with a different request; use a new key.',
        });
      }
      if (record.state === 'in_flight' || record.body === null || record.status === null) throw inUse();
      const body = unseal(record.body, sealKey(key, owner));
      res.status(record.status);
      res.setHeader('Idempotent-Replayed', 'true');
      if (record.contentType !== null) res.setHeader('Content-Type', record.contentType);
      res.end(body);
      return;
    }

    const chunks: Buffer[] = [];
    const write = res.write.bind(res) as (...args: unknown[]) => boolean;
    const end = res.end.bind(res) as (...args: unknown[]) => Response;
    const collect = (chunk: unknown, encoding: unknown) => {
      if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
      chunks.push(
        Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8'),
      );
    };
    res.write = ((chunk: unknown, encoding?: unknown, callback?: unknown) => {
      collect(chunk, encoding);
      return write(chunk, encoding, callback);
    }) as Response['write'];
    res.end = ((chunk?: unknown, encoding?: unknown, callback?: unknown) => {
      collect(chunk, encoding);
      return end(chunk, encoding, callback);
    }) as Response['end'];

    let settled = false;
    res.on('finish', () => {
      settled = true;
      // The request changed nothing (a dependency was down before any write): a retry with the key must run anew.
      if (res.locals.idempotencyNothingDone === true) {
        repository.release(owner, keyHash);
        return;
      }
      const contentType = res.getHeader('Content-Type');
      repository.complete(
        owner,
        keyHash,
        res.statusCode,
        typeof contentType === 'string' ? contentType : null,
        seal(Buffer.concat(chunks), sealKey(key, owner)),
      );
    });
    res.on('close', () => {
      // The client left before a response was sent: nothing to replay, so free the key for a retry.
      if (!settled) repository.release(owner, keyHash);
    });
    next();
  };
}

function inUse(): ConflictError {
  return new ConflictError({
    code: 'idempotency_key_in_use',
    param: 'Idempotency-Key',
    message: 'A request with this Idempotency-Key is still in progress; retry shortly.',
    headers: { 'Retry-After': '1' },
  });
}
