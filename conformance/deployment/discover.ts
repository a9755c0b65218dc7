import type { Capability, Evidence, Profile } from '../core/types.js';
import { HttpClient, WireError } from '../wire/http.js';
import { privateKeyToAccount } from 'viem/accounts';
import { chainsNamedByTarget, withRpcOverrides } from './chains.js';
import type { SandboxFile, SandboxFileAccount, SandboxFileChain } from './sandbox-file.js';
import { BaseError } from '../../src/contracts/errors/base-error.js';

export const API_PREFIX = '/api/v1';

/** A corridor as served by `GET /api/v1/corridors` (only the fields the checks lean on are typed). */
export interface CorridorRecord {
  id: string;
  originChainId: number;
  destinationChainId: number;
  inputToken: { address: string; symbol: string; decimals: number };
  outputToken: { address: string; symbol: string; decimals: number };
  solverCount: number;
  minNotional: string;
  maxNotional: string;
  oracle: string;
  lockTypes: string[];
  [key: string]: unknown;
}

export interface TargetOptions {
  /** Base URL of the deployment (with or without `/api/v1`); default: `api.url` of the sandbox file. */
  url?: string;
  profile: Profile;
  apiKey?: string;
  workspaceId?: string;
  sandbox?: SandboxFile;
  /** Timing checks may wait in real time. */
  long?: boolean;
  /** Funded taker private keys (`--taker-key`, `--taker-keys-file`): used instead of sandbox.json's takers. */
  takerKeys?: readonly string[];
  /** Chain id → RPC URL the caller can reach (`--rpc`), replacing the one the target or the file names. */
  rpc?: ReadonlyMap<number, string>;
}

/** `0x` + 64 hex → the account; anything else is a usage error that names the offending entry (redacted). */
export function takerAccount(key: string, index: number): SandboxFileAccount {
  const trimmed = key.trim();
  if (!/^0x[0-9a-fA-F]{64}$/.test(trimmed))
    throw new UsageError(`taker key ${index + 1} is not a 0x-prefixed 32-byte private key (${trimmed.length} characters)`);
  return { address: privateKeyToAccount(trimmed as `0x${string}`).address, privateKey: trimmed as `0x${string}` };
}

export interface Target {
  /** `http://host:port`, without `/api/v1`. */
  url: string;
  apiBase: string;
  /** The taker WebSocket, `ws://host:port/api/v1/ws`. */
  wsUrl: string;
  /** The solver stream (`/ws/v1/solver/stream`). */
  solverStreamUrl: string;
  profile: Profile;
  apiKey?: string;
  workspaceId?: string;
  environment: 'sandbox' | 'production' | 'unknown';
  sandbox?: SandboxFile;
  capabilities: ReadonlySet<Capability>;
  /** Why a capability is missing, for SKIPPED messages. */
  missing: Partial<Record<Capability, string>>;
  corridors: CorridorRecord[];
  /** Sandbox routes found in the OpenAPI document (faucet, keys…). */
  sandboxRoutes: string[];
  /** `METHOD /path` of every operation the target's OpenAPI document declares (empty without a document). */
  documentedOperations: ReadonlySet<string>;
  discovery: Evidence[];
}

export class TargetUnreachable extends BaseError {
  override readonly name = 'TargetUnreachable';
  override readonly code = 'target_unreachable';
}

export class UsageError extends BaseError {
  override readonly name = 'UsageError';
  override readonly code = 'usage_error';
}

export function normaliseBaseUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`--target must be an http(s) URL, got ${JSON.stringify(url)}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new UsageError(`--target must be an http(s) URL, got ${url}`);
  const path = parsed.pathname.replace(/\/+$/, '').replace(/\/api\/v1$/, '');
  return `${parsed.protocol}//${parsed.host}${path}`;
}

function wsBase(url: string): string {
  return url.replace(/^http/, 'ws');
}

/**
 * Finds out what the target is and offers: it answers health (else TargetUnreachable, exit 2), its
 * environment, the sandbox controls (clock, keys, faucet), corridors with live solvers, and what the sandbox
 * file adds (chains, funded accounts, workspace).
 */
export async function discoverTarget(options: TargetOptions): Promise<Target> {
  const rawUrl = options.url ?? options.sandbox?.api?.url;
  if (rawUrl === undefined) throw new UsageError('name the deployment with --target URL (or --sandbox sandbox.json)');
  const url = normaliseBaseUrl(rawUrl);
  const apiKey = options.apiKey ?? options.sandbox?.api?.apiKeys?.[0];
  let workspaceId = options.workspaceId ?? options.sandbox?.api?.workspaceId;
  const http = new HttpClient(url);
  const discovery: Evidence[] = [];
  const capabilities = new Set<Capability>();
  const missing: Partial<Record<Capability, string>> = {};

  let health: Awaited<ReturnType<typeof http.request>>;
  try {
    health = await http.request({ method: 'GET', path: `${API_PREFIX}/health`, label: 'discovery: health', timeoutMs: 10_000 });
  } catch (error) {
    if (error instanceof WireError) throw new TargetUnreachable(`the target does not answer: ${error.message}`);
    throw error;
  }
  discovery.push(health.evidence);
  if (health.status !== 200 && health.status !== 503) {
    throw new TargetUnreachable(`GET ${url}${API_PREFIX}/health answered ${health.status}: is this a settlement service?`);
  }
  const body = (health.json ?? {}) as { environment?: unknown };
  const environment = body.environment === 'sandbox' || body.environment === 'production' ? body.environment : 'unknown';

  if (apiKey !== undefined) capabilities.add('apiKey');
  else missing.apiKey = 'no API key given (--api-key or sandbox.json)';
  if (workspaceId !== undefined) capabilities.add('workspace');
  else missing.workspace = 'the workspace id of the key is unknown (--workspace or sandbox.json)';
  if (options.long === true) capabilities.add('long');
  else missing.long = 'real-time waits need --long';

  const clock = await http
    .request({ method: 'GET', path: `${API_PREFIX}/sandbox/clock`, label: 'discovery: sandbox clock' })
    .catch(() => undefined);
  if (clock) discovery.push(clock.evidence);
  const clockBody = (clock?.json ?? {}) as { kind?: unknown };
  if (clock?.status === 200 && clockBody.kind === 'test' && apiKey !== undefined) capabilities.add('clock');
  else
    missing.clock =
      clock?.status === 200
        ? apiKey === undefined
          ? 'the sandbox clock needs an API key to advance'
          : 'the target runs on the real clock'
        : 'no sandbox clock control (GET /api/v1/sandbox/clock)';

  const sandboxRoutes: string[] = [];
  const openapi = await http
    .request({ method: 'GET', path: `${API_PREFIX}/openapi.json`, label: 'discovery: OpenAPI document' })
    .catch(() => undefined);
  const document = openapi?.status === 200 && typeof openapi.json === 'object' && openapi.json !== null ? openapi.json : undefined;
  const paths = Object.keys(((document ?? {}) as { paths?: Record<string, unknown> }).paths ?? {});
  for (const path of paths) if (/sandbox|faucet/.test(path)) sandboxRoutes.push(path);
  const documentedOperations = new Set<string>();
  for (const [path, item] of Object.entries(((document ?? {}) as { paths?: Record<string, Record<string, unknown>> }).paths ?? {}))
    for (const method of Object.keys(item ?? {})) documentedOperations.add(`${method.toUpperCase()} ${path}`);
  if (document !== undefined) capabilities.add('openapi');
  else missing.openapi = 'no OpenAPI document at /api/v1/openapi.json';
  // Extensions of the quote request are used only where the target documents them; the spec's request has none.
  const quoteFields = requestFields(document, `${API_PREFIX}/quotes`, 'post');
  const quoteExtensions: Array<[Capability, string]> = [
    ['namedTaker', 'user'],
    ['quoteLockType', 'lockType'],
    ['quoteSettlementPath', 'settlementPath'],
  ];
  for (const [capability, field] of quoteExtensions) {
    if (quoteFields.has(field)) capabilities.add(capability);
    else
      missing[capability] =
        document === undefined
          ? `no OpenAPI document to say whether POST /quotes takes \`${field}\` (the spec's quote request has no such field)`
          : `the OpenAPI document's POST /quotes request has no \`${field}\` (the spec's quote request has no such field)`;
  }
  if (apiKey !== undefined) {
    const keys = await http
      .request({ method: 'GET', path: `${API_PREFIX}/sandbox/keys`, auth: apiKey, label: 'discovery: sandbox keys' })
      .catch(() => undefined);
    if (keys) discovery.push(keys.evidence);
    if (keys?.status === 200) capabilities.add('keys');
    else missing.keys = 'no sandbox key routes (GET /api/v1/sandbox/keys)';
  } else missing.keys = 'no API key';
  if (sandboxRoutes.some((p) => /faucet/.test(p))) capabilities.add('faucet');
  else missing.faucet = 'no faucet route in the OpenAPI document';

  const corridorsResponse = await http
    .request({ method: 'GET', path: `${API_PREFIX}/corridors`, label: 'discovery: corridors' })
    .catch(() => undefined);
  if (corridorsResponse) discovery.push(corridorsResponse.evidence);
  const corridors = Array.isArray((corridorsResponse?.json as { corridors?: unknown })?.corridors)
    ? (corridorsResponse!.json as { corridors: CorridorRecord[] }).corridors.filter((c) => typeof c === 'object' && c !== null)
    : [];
  if (corridors.some((c) => typeof c.solverCount === 'number' && c.solverCount > 0)) capabilities.add('solvers');
  else missing.solvers = corridors.length === 0 ? 'the target lists no corridors' : 'no corridor has live solvers (solverCount 0)';

  // Chains: the caller's file, else what the target names about itself; then the caller's RPC URLs.
  let chains = options.sandbox?.chains ?? [];
  let chainsSource = 'sandbox.json';
  let chainsReason = 'no chain RPC endpoints: the target names none (GET /api/v1/sandbox/info) and no --sandbox file lists `chains`';
  if (chains.length === 0) {
    const named = await chainsNamedByTarget(http, API_PREFIX, apiKey);
    if (named.evidence) discovery.push(named.evidence);
    chains = named.chains;
    chainsSource = 'GET /api/v1/sandbox/info';
    if (named.reason) chainsReason = `no chain RPC endpoints: ${named.reason}, and no --sandbox file lists \`chains\``;
    if (workspaceId === undefined && named.workspaceId !== undefined && apiKey !== undefined) {
      workspaceId = named.workspaceId;
      capabilities.add('workspace');
      delete missing.workspace;
    }
  }
  if (options.rpc !== undefined && options.rpc.size > 0) {
    const unknown = [...options.rpc.keys()].filter((id) => !chains.some((c) => c.chainId === id));
    if (unknown.length > 0)
      throw new UsageError(
        `--rpc names chain id ${unknown.join(', ')}, which the target does not name (${chains.map((c) => c.chainId).join(', ') || 'no chains'})`,
      );
    chains = withRpcOverrides(chains, options.rpc);
  }
  if (chains.length > 0 && chains.every((c) => typeof c.rpcUrl === 'string')) capabilities.add('chains');
  else missing.chains = chainsReason;
  const takerAccounts =
    options.takerKeys !== undefined && options.takerKeys.length > 0
      ? options.takerKeys.map(takerAccount)
      : (options.sandbox?.accounts?.takers ?? []);
  if (takerAccounts.length > 0 && capabilities.has('chains')) capabilities.add('fundedAccounts');
  else
    missing.fundedAccounts =
      takerAccounts.length > 0
        ? 'taker keys were given but no chains are known to use them on'
        : 'no funded taker accounts: pass --taker-key 0x… (repeatable) or --taker-keys-file FILE';
  const effective: SandboxFile | undefined =
    options.sandbox === undefined && chains.length === 0 && takerAccounts.length === 0
      ? undefined
      : {
          ...(options.sandbox ?? {}),
          chains,
          accounts: { ...(options.sandbox?.accounts ?? {}), takers: takerAccounts },
        };
  if (chains.length > 0)
    discovery.push({ kind: 'note', text: `chains from ${chainsSource}: ${chains.map((c) => `${c.name} (${c.chainId})`).join(', ')}` });

  return {
    url,
    apiBase: `${url}${API_PREFIX}`,
    wsUrl: `${wsBase(url)}${API_PREFIX}/ws`,
    solverStreamUrl: `${wsBase(url)}/ws/v1/solver/stream`,
    profile: options.profile,
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(workspaceId === undefined ? {} : { workspaceId }),
    environment,
    ...(effective === undefined ? {} : { sandbox: effective }),
    capabilities,
    missing,
    corridors,
    sandboxRoutes,
    documentedOperations,
    discovery,
  };
}

/** Property names of an operation's JSON request body in an OpenAPI document (`$ref`, `allOf`, `oneOf`, `anyOf` followed). */
export function requestFields(document: unknown, path: string, method: string): Set<string> {
  const fields = new Set<string>();
  const root = document as { paths?: Record<string, Record<string, unknown>> } | undefined;
  const operation = root?.paths?.[path]?.[method] as { requestBody?: unknown } | undefined;
  const seen = new Set<unknown>();
  const visit = (node: unknown): void => {
    if (typeof node !== 'object' || node === null || seen.has(node)) return;
    seen.add(node);
    const schema = node as Record<string, unknown>;
    if (typeof schema.$ref === 'string' && schema.$ref.startsWith('#/')) {
      let target: unknown = document;
      for (const part of schema.$ref.slice(2).split('/'))
        target = (target as Record<string, unknown> | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
      visit(target);
    }
    if (typeof schema.properties === 'object' && schema.properties !== null)
      for (const name of Object.keys(schema.properties)) fields.add(name);
    for (const key of ['allOf', 'oneOf', 'anyOf']) if (Array.isArray(schema[key])) for (const part of schema[key] as unknown[]) visit(part);
  };
  const body = operation?.requestBody as { content?: Record<string, { schema?: unknown }> } | undefined;
  visit(body?.content?.['application/json']?.schema);
  return fields;
}

export function chainById(target: Target, chainId: number): SandboxFileChain | undefined {
  return target.sandbox?.chains?.find((c) => c.chainId === chainId);
}

export function takers(target: Target): SandboxFileAccount[] {
  return target.sandbox?.accounts?.takers ?? [];
}
