import type { Command } from 'commander';
import { readServiceManifest, writeManifest } from '../../devnet/manifest-file.js';
import { stateLayout } from '../../devnet/state-dir.js';
import { action, type GlobalOptions, type Output } from '../output.js';
import { sandboxApi } from '../sandbox-api.js';

const DOCS = 'docs/service-platform.md';

export interface IssuedKey {
  id: string;
  key: string;
  workspaceId: string;
  createdAt: string;
  redacted: string;
}

export interface RotatedKey {
  key: IssuedKey;
  rotated: { id: string; expiresAt: string | null; redacted: string };
}

interface KeyListItem {
  id: string;
  redacted: string;
  status: string;
  createdAt: string;
  expiresAt: string | null;
}

/** `sandbox keys create`: a new key for the workspace, appended to sandbox.json. */
export async function createKey(stateDir: string): Promise<IssuedKey> {
  const { data } = await sandboxApi<IssuedKey>(stateDir, 'POST', '/api/v1/sandbox/keys');
  const manifest = readServiceManifest(stateDir);
  manifest.api.apiKeys = [...manifest.api.apiKeys, data.key];
  writeManifest(stateLayout(stateDir), manifest);
  return data;
}

/**
 * `sandbox keys rotate`: a successor for `keyId` (default: the key sandbox.json uses). The successor goes
 * first in sandbox.json; the old key stays listed and keeps working for 24 h of sandbox clock time.
 */
export async function rotateKey(stateDir: string, keyId?: string): Promise<RotatedKey> {
  const { data } = await sandboxApi<RotatedKey>(stateDir, 'POST', '/api/v1/sandbox/keys/rotate', keyId === undefined ? {} : { keyId });
  const manifest = readServiceManifest(stateDir);
  manifest.api.apiKeys = [data.key.key, ...manifest.api.apiKeys.filter((key) => key !== data.key.key)];
  writeManifest(stateLayout(stateDir), manifest);
  return data;
}

export async function listKeys(stateDir: string): Promise<KeyListItem[]> {
  const { data } = await sandboxApi<{ data: KeyListItem[] }>(stateDir, 'GET', '/api/v1/sandbox/keys');
  return data.data;
}

export function register(program: Command): void {
  const keys = program.command('keys').description('API keys of the sandbox workspace (svc_test_…)');

  keys
    .command('create')
    .description('create another API key and add it to sandbox.json')
    .action(action(create, { docsPath: DOCS }));

  keys
    .command('rotate')
    .description('issue a successor key; the old one keeps working for 24 h of sandbox clock time')
    .option('--key-id <id>', 'key to rotate (default: the key sandbox.json uses)')
    .action(action(rotate, { docsPath: DOCS }));

  keys
    .command('list')
    .description("list the workspace's keys (redacted)")
    .action(action(list, { docsPath: DOCS }));
}

async function create(output: Output, globals: GlobalOptions): Promise<void> {
  const key = await createKey(globals.stateDir);
  output.result(`Created API key ${key.key}\n  id ${key.id}, workspace ${key.workspaceId}`, key);
}

async function rotate(output: Output, globals: GlobalOptions, flags: { keyId?: string }): Promise<void> {
  const result = await rotateKey(globals.stateDir, flags.keyId);
  output.result(
    `New API key ${result.key.key}\n  id ${result.key.id}\n` +
      `Old key ${result.rotated.redacted} works until ${result.rotated.expiresAt} (sandbox clock), then answers 401.`,
    result,
  );
}

async function list(output: Output, globals: GlobalOptions): Promise<void> {
  const items = await listKeys(globals.stateDir);
  output.result(
    () =>
      items
        .map((k) => `${k.redacted}  ${k.status.padEnd(8)}  created ${k.createdAt}${k.expiresAt === null ? '' : `  expires ${k.expiresAt}`}`)
        .join('\n'),
    items,
  );
}
