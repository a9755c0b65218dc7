import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureDir, stateLayout } from '../devnet/state-dir.js';

/**
 * The signing secret `sandbox webhooks listen` registers with, one per state folder and kept there: the app under
 * development configures it once and it stays valid across listener runs (as `stripe listen`'s does). It is a test
 * secret of a local sandbox, so a plain file beside sandbox.json (mode 0600) is the right home.
 */
export function listenSecretFile(stateDir: string): string {
  return join(stateLayout(stateDir).root, 'webhooks-listen-secret');
}

export function stableListenSecret(stateDir: string): string {
  const file = listenSecretFile(stateDir);
  try {
    const saved = readFileSync(file, 'utf8').trim();
    if (/^whsec_[A-Za-z0-9_+/=-]{16,200}$/.test(saved)) return saved;
  } catch {
    // None yet: make one below.
  }
  const secret = `whsec_test_${randomBytes(24).toString('base64url')}`;
  ensureDir(stateLayout(stateDir).root);
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}
