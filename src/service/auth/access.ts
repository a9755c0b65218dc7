import { timingSafeEqual } from 'node:crypto';
import type { Clock } from '../../clock/index.js';
import type { Environment } from '../../contracts/deployment.js';
import { AuthenticationError, ConflictError, NotFoundError } from '../errors/api-errors.js';
import type { ApiKeyRecord } from '../store/api-keys.js';
import { newId } from '../store/ids.js';
import type { PlatformRepositories } from '../store/repositories.js';
import type { Store } from '../store/store.js';
import type { Workspace } from '../store/workspaces.js';
import { generateApiKey, hashApiKey, keyEnvironmentOf, parseApiKey } from './api-key-format.js';
import type { ApiKeyAuth } from '../api/auth-context.js';

export type ApiKeyStatus = 'active' | 'rotating' | 'expired' | 'revoked';

export interface ApiKeySummary {
  id: string;
  workspaceId: string;
  /** `svc_test_<key_id>_…<last4>`: enough to recognise a key, useless to call with. */
  redacted: string;
  status: ApiKeyStatus;
  createdAt: number;
  expiresAt: number | null;
  replacedBy: string | null;
  lastUsedAt: number | null;
}

export interface IssuedApiKey extends ApiKeySummary {
  /** The full key: shown once, never stored. */
  key: string;
}

export interface AccessOptions {
  environment: Environment;
  /** How long a rotated key keeps working (24 h by the spec). */
  rotationGraceMs: number;
}

/** Writes of `last_used_at` are coarse: one per key per minute is enough for people and cheap under load. */
const TOUCH_INTERVAL_MS = 60_000;
const DUMMY_HASH = Buffer.alloc(32);

/** Workspaces and their API keys: creation, rotation with a grace period, and constant-time verification. */
export class AccessService {
  constructor(
    private readonly store: Store,
    private readonly repos: PlatformRepositories,
    private readonly clock: Clock,
    private readonly options: AccessOptions,
  ) {}

  createWorkspace(name: string): Workspace {
    const workspace: Workspace = { id: newId('ws'), name, createdAt: this.clock.now() };
    this.repos.workspaces.insert(workspace);
    return workspace;
  }

  getWorkspace(id: string): Workspace | undefined {
    return this.repos.workspaces.get(id);
  }

  createApiKey(workspaceId: string): IssuedApiKey {
    if (this.repos.workspaces.get(workspaceId) === undefined) {
      throw new NotFoundError({ code: 'resource_not_found', param: 'workspaceId', message: `No workspace ${workspaceId}.` });
    }
    const { key, record } = this.newKey(workspaceId);
    this.repos.apiKeys.insert(record);
    return { ...this.summary(record), key };
  }

  /**
   * Issues a successor of `keyId`. The old key keeps working for the grace period by the service clock,
   * then answers 401 `api_key_expired`. A key is rotated once; rotate its successor next time.
   */
  rotateApiKey(workspaceId: string, keyId: string): { issued: IssuedApiKey; rotated: ApiKeySummary } {
    return this.store.transaction(() => {
      const old = this.repos.apiKeys.get(keyId);
      if (old === undefined || old.workspaceId !== workspaceId) {
        throw new NotFoundError({ code: 'resource_not_found', param: 'keyId', message: `No API key ${keyId} in this workspace.` });
      }
      const status = this.status(old);
      if (status !== 'active') {
        throw new ConflictError({
          code: 'api_key_not_rotatable',
          param: 'keyId',
          message: `API key ${keyId} is ${status === 'rotating' ? 'already rotated' : status}; rotate its successor instead.`,
        });
      }
      const { key, record } = this.newKey(workspaceId);
      this.repos.apiKeys.insert(record);
      const expiresAt = this.clock.now() + this.options.rotationGraceMs;
      this.repos.apiKeys.markRotated(old.id, record.id, expiresAt);
      return {
        issued: { ...this.summary(record), key },
        rotated: this.summary({ ...old, replacedBy: record.id, expiresAt }),
      };
    });
  }

  listApiKeys(workspaceId: string): ApiKeySummary[] {
    return this.repos.apiKeys.listByWorkspace(workspaceId).map((record) => this.summary(record));
  }

  /** The workspace behind a key, or the 401 explaining why not. */
  verifyApiKey(key: string): ApiKeyAuth {
    const expected = keyEnvironmentOf(this.options.environment);
    const parsed = parseApiKey(key);
    if (parsed === undefined) throw invalidKey('The API key is malformed.');
    if (parsed.environment !== expected) {
      throw invalidKey(
        `This is a svc_${parsed.environment}_ key; this ${this.options.environment} deployment accepts only svc_${expected}_ keys.`,
      );
    }
    const record = this.repos.apiKeys.get(parsed.keyId);
    const presented = hashApiKey(key);
    // Compare even when the id is unknown, so timing tells nothing about which key ids exist.
    const matches = timingSafeEqual(presented, record?.secretHash ?? DUMMY_HASH) && record !== undefined;
    if (!matches || record.environment !== expected) throw invalidKey('The API key is not valid.');
    const status = this.status(record);
    if (status === 'revoked') throw invalidKey('The API key was revoked.');
    if (status === 'expired') {
      throw new AuthenticationError({
        code: 'api_key_expired',
        message: 'This API key was rotated and its grace period has ended; use its successor.',
      });
    }
    const now = this.clock.now();
    if (record.lastUsedAt === null || now - record.lastUsedAt >= TOUCH_INTERVAL_MS) this.repos.apiKeys.touch(record.id, now);
    return { kind: 'apiKey', workspaceId: record.workspaceId, keyId: record.id };
  }

  private newKey(workspaceId: string): { key: string; record: ApiKeyRecord } {
    const { key, keyId } = generateApiKey(keyEnvironmentOf(this.options.environment));
    const record: ApiKeyRecord = {
      id: keyId,
      workspaceId,
      environment: keyEnvironmentOf(this.options.environment),
      secretHash: hashApiKey(key),
      last4: key.slice(-4),
      createdAt: this.clock.now(),
      expiresAt: null,
      revokedAt: null,
      replacedBy: null,
      lastUsedAt: null,
    };
    return { key, record };
  }

  private status(record: ApiKeyRecord): ApiKeyStatus {
    if (record.revokedAt !== null) return 'revoked';
    if (record.expiresAt !== null) return this.clock.now() >= record.expiresAt ? 'expired' : 'rotating';
    return 'active';
  }

  private summary(record: ApiKeyRecord): ApiKeySummary {
    return {
      id: record.id,
      workspaceId: record.workspaceId,
      redacted: `svc_${record.environment}_${record.id}_…${record.last4}`,
      status: this.status(record),
      createdAt: record.createdAt,
      expiresAt: record.expiresAt,
      replacedBy: record.replacedBy,
      lastUsedAt: record.lastUsedAt,
    };
  }
}

function invalidKey(message: string): AuthenticationError {
  return new AuthenticationError({ code: 'invalid_api_key', message });
}
