import { createHash, randomBytes } from 'node:crypto';
import type { Environment } from '../../contracts/deployment.js';
import type { KeyEnvironment } from '../store/api-keys.js';

/** `svc_{env}_{key_id}_{random_hex}`: env names the deployment, key_id finds the record, the rest is secret. */
const KEY_PATTERN = /^svc_(test|live)_([0-9a-z]{16})_([0-9a-f]{64})$/;
const KEY_ID_ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

export interface ParsedApiKey {
  environment: KeyEnvironment;
  keyId: string;
}

/** The key prefix environment of a deployment: `svc_test_` in the sandbox, `svc_live_` in production. */
export function keyEnvironmentOf(environment: Environment): KeyEnvironment {
  return environment === 'production' ? 'live' : 'test';
}

export function parseApiKey(key: string): ParsedApiKey | undefined {
  const match = KEY_PATTERN.exec(key);
  if (match === null) return undefined;
  return { environment: match[1] as KeyEnvironment, keyId: match[2]! };
}

export function looksLikeApiKey(token: string): boolean {
  return token.startsWith('svc_');
}

export function hashApiKey(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

export function generateApiKey(environment: KeyEnvironment): { key: string; keyId: string } {
  const idBytes = randomBytes(16);
  let keyId = '';
  for (const byte of idBytes) keyId += KEY_ID_ALPHABET[byte & 31];
  const key = `svc_${environment}_${keyId}_${randomBytes(32).toString('hex')}`;
  return { key, keyId };
}
