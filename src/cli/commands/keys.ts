import { readFile, rename, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import type { SandboxManifest } from '../../contracts/deployment.js';
import { BaseError } from '../../contracts/errors/base-error.js';

/** Where a running sandbox is described; every command acting on a sandbox takes `--state-dir`. */
export const DEFAULT_STATE_DIR = '.sandbox';

export class SandboxApiError extends BaseError {
  override readonly name = 'SandboxApiError';
  constructor(
    message: string,
    readonly status?: number,
    readonly body?: unknown,
  ) {
    super(message);
  }
}

export function manifestPath(stateDir: string): string {
  return join(resolve(stateDir), 'sandbox.json');
}

export async function readManifest(stateDir: string): Promise<SandboxManifest> {
  const path = manifestPath(stateDir);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    throw new SandboxApiError(`no sandbox at ${path}: start one with \`sandbox up\` (or pass --state-dir)`);
  }
  const manifest = JSON.parse(text) as SandboxManifest;
  if (manifest.api === undefined || manifest.api.apiKeys.length === 0) {
    throw new SandboxApiError(`${path} lists no running service (no api block): is \`sandbox up\` still starting?`);
  }
  return manifest;
}

/** Rewrites sandbox.json atomically (write then rename), so a reader never sees half a file. */
export async function writeManifest(stateDir: string, manifest: SandboxManifest): Promise<void> {
  const path = manifestPath(stateDir);
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(manifest, null, 2)}\n`);
  await rename(temporary, path);
}

/**
 * Calls the running sandbox's API with the first key of sandbox.json that the service accepts (a rotated
 * key stops working after its grace period; its successor is listed first).
 */
export async function sandboxApi<T>(stateDir: string, method: string, path: string, body?: unknown): Promise<{ data: T; usedKey: string }> {
  const manifest = await readManifest(stateDir);
  const api = manifest.api!;
  let lastError: SandboxApiError | undefined;
  for (const key of api.apiKeys) {
    let response: Response;
    try {
      response = await fetch(`${api.url}${path}`, {
        method,
        headers: { Authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (error) {
      throw new SandboxApiError(`the sandbox service at ${api.url} does not answer (${(error as Error).message}): is it running?`);
    }
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
    if (response.ok) return { data: parsed as T, usedKey: key };
    const error = (parsed as { error?: { message?: string; code?: string } })?.error;
    lastError = new SandboxApiError(
      `${method} ${path} → ${response.status} ${error?.code ?? ''}: ${error?.message ?? text}`.trim(),
      response.status,
      parsed,
    );
    if (response.status !== 401) throw lastError;
  }
  throw lastError ?? new SandboxApiError('no API key in sandbox.json');
}

export interface CommandOptions {
  stateDir: string;
  json?: boolean;
}

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
  const manifest = await readManifest(stateDir);
  manifest.api!.apiKeys = [...manifest.api!.apiKeys, data.key];
  await writeManifest(stateDir, manifest);
  return data;
}

/**
 * `sandbox keys rotate`: a successor for `keyId` (default: the key sandbox.json uses). The successor goes
 * first in sandbox.json; the old key stays listed and keeps working for 24 h of sandbox clock time.
 */
export async function rotateKey(stateDir: string, keyId?: string): Promise<RotatedKey> {
  const { data } = await sandboxApi<RotatedKey>(stateDir, 'POST', '/api/v1/sandbox/keys/rotate', keyId === undefined ? {} : { keyId });
  const manifest = await readManifest(stateDir);
  manifest.api!.apiKeys = [data.key.key, ...manifest.api!.apiKeys.filter((key) => key !== data.key.key)];
  await writeManifest(stateDir, manifest);
  return data;
}

export async function listKeys(stateDir: string): Promise<KeyListItem[]> {
  const { data } = await sandboxApi<{ data: KeyListItem[] }>(stateDir, 'GET', '/api/v1/sandbox/keys');
  return data.data;
}

/** Prints results for people or, with --json, one JSON document for scripts; failures set exit code 1. */
export async function runCommand<T>(options: CommandOptions, work: () => Promise<T>, human: (result: T) => string): Promise<void> {
  try {
    const result = await work();
    console.log(options.json === true ? JSON.stringify(result, null, 2) : human(result));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (options.json === true) console.log(JSON.stringify({ error: { message } }));
    else console.error(`error: ${message}`);
    process.exitCode = 1;
  }
}

function withSandboxOptions(command: Command): Command {
  return command
    .option('--state-dir <dir>', 'sandbox state folder holding sandbox.json', DEFAULT_STATE_DIR)
    .option('--json', 'print JSON for scripts');
}

export function register(program: Command): void {
  const keys = program.command('keys').description('API keys of the sandbox workspace (svc_test_…)');

  withSandboxOptions(keys.command('create').description('create another API key and add it to sandbox.json')).action(
    async (_options: unknown, command: Command) => {
      const options = command.optsWithGlobals<CommandOptions>();
      await runCommand(
        options,
        () => createKey(options.stateDir),
        (key) => `Created API key ${key.key}\n  id ${key.id}, workspace ${key.workspaceId}`,
      );
    },
  );

  withSandboxOptions(
    keys
      .command('rotate')
      .description('issue a successor key; the old one keeps working for 24 h of sandbox clock time')
      .option('--key-id <id>', 'key to rotate (default: the key sandbox.json uses)'),
  ).action(async (_options: unknown, command: Command) => {
    const options = command.optsWithGlobals<CommandOptions & { keyId?: string }>();
    await runCommand(
      options,
      () => rotateKey(options.stateDir, options.keyId),
      (result) =>
        `New API key ${result.key.key}\n  id ${result.key.id}\n` +
        `Old key ${result.rotated.redacted} works until ${result.rotated.expiresAt} (sandbox clock), then answers 401.`,
    );
  });

  withSandboxOptions(keys.command('list').description("list the workspace's keys (redacted)")).action(
    async (_options: unknown, command: Command) => {
      const options = command.optsWithGlobals<CommandOptions>();
      await runCommand(
        options,
        () => listKeys(options.stateDir),
        (items) =>
          items
            .map(
              (k) =>
                `${k.redacted}  ${k.status.padEnd(8)}  created ${k.createdAt}${k.expiresAt === null ? '' : `  expires ${k.expiresAt}`}`,
            )
            .join('\n'),
      );
    },
  );
}
