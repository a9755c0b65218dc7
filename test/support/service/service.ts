import { TestClock } from '../../../src/clock/index.js';
import type { ChainInfo } from '../../../src/contracts/deployment.js';
import { createService, type Service } from '../../../src/service/app.js';
import type { ServiceConfig } from '../../../src/service/config.js';
import { DocumentConformance } from './document-conformance.js';

/** 2030-01-01T00:00:00Z: tests start from a fixed, frozen time. */
export const TEST_EPOCH = Date.UTC(2030, 0, 1);

export interface ApiResponse {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed JSON body (undefined when the body is not JSON). */
  body: any;
}

export interface RequestOptions {
  /** JSON-encoded unless `raw` is given. */
  body?: unknown;
  /** Sent as is (malformed JSON, other content types). */
  raw?: string | Buffer;
  headers?: Record<string, string>;
  /** `Authorization: Bearer <key>`; default the workspace's API key; `null` for none. */
  key?: string | null;
}

export interface TestService {
  service: Service;
  url: string;
  clock: TestClock;
  workspaceId: string;
  apiKey: string;
  request(method: string, path: string, options?: RequestOptions): Promise<ApiResponse>;
  /** Responses seen so far that break the published OpenAPI document (checked on every request). */
  documentViolations(): readonly string[];
  /** Stops the service; throws when a response broke the document (unless `allowDocumentViolations`). */
  stop(): Promise<void>;
}

export function sampleChains(): ChainInfo[] {
  const token = (symbol: string, address: string, eip3009: boolean) => ({
    symbol,
    name: `Test ${symbol}`,
    address: address as `0x${string}`,
    decimals: 6,
    eip3009,
  });
  const contracts = {
    InputOracle: '0x00000000000000000000000000000000000000a1' as const,
    Permit2: '0x000000000022D473030F116dDEE9F6B43aC78BA3' as const,
  };
  return [
    {
      name: 'alpha',
      chainId: 31_337_001,
      rpcUrl: 'http://127.0.0.1:1',
      wsUrl: 'ws://127.0.0.1:1',
      contracts,
      tokens: [
        token('USDC', '0x00000000000000000000000000000000000000c1', true),
        token('USDT', '0x00000000000000000000000000000000000000d1', false),
      ],
    },
    {
      name: 'beta',
      chainId: 31_337_002,
      rpcUrl: 'http://127.0.0.1:1',
      wsUrl: 'ws://127.0.0.1:1',
      contracts,
      tokens: [token('USDC', '0x00000000000000000000000000000000000000c2', true)],
    },
  ];
}

/** A sandbox service over real HTTP on loopback: `:memory:` store, frozen test clock, no chains unless given. */
export async function startTestService(
  overrides: Partial<ServiceConfig> = {},
  harness: { allowDocumentViolations?: boolean } = {},
): Promise<TestService> {
  const clock = overrides.clock instanceof TestClock ? overrides.clock : new TestClock({ start: TEST_EPOCH });
  const service = await createService({
    environment: 'sandbox',
    chains: [],
    storePath: ':memory:',
    logger: { level: 'silent' },
    ...overrides,
    clock,
  });
  const { workspaceId, apiKey } = service.bootstrapWorkspace('Test workspace');
  const request = async (method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse> => {
    const headers: Record<string, string> = { ...options.headers };
    const key = options.key === undefined ? apiKey : options.key;
    if (key !== null) headers.Authorization = `Bearer ${key}`;
    let body: string | Buffer | undefined;
    if (options.raw !== undefined) body = options.raw;
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['Content-Type'] ??= 'application/json';
    }
    const response = await fetch(`${service.url}${path}`, { method, headers, body });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    conformance ??= new DocumentConformance((await (await fetch(`${service.url}/api/v1/openapi.json`)).json()) as never);
    conformance.check(method, `${service.url}${path}`, response.status, parsed);
    return { status: response.status, headers: response.headers, text, body: parsed };
  };
  let conformance: DocumentConformance | undefined;
  const stop = async () => {
    await service.stop();
    const violations = conformance?.violations ?? [];
    if (violations.length > 0 && harness.allowDocumentViolations !== true) {
      throw new Error(`responses broke the OpenAPI document:\n  ${[...new Set(violations)].join('\n  ')}`);
    }
  };
  return {
    service,
    url: service.url,
    clock,
    workspaceId,
    apiKey,
    request,
    documentViolations: () => conformance?.violations ?? [],
    stop,
  };
}

/** Asserts the Format A error shape and returns the error object. */
export function formatAError(response: ApiResponse): { type: string; code: string; message: string; param?: string; doc_url: string } {
  const error = response.body?.error;
  if (typeof error !== 'object' || error === null) throw new Error(`not a Format A error: ${response.status} ${response.text}`);
  for (const field of ['type', 'code', 'message', 'doc_url']) {
    if (typeof error[field] !== 'string') throw new Error(`Format A error lacks ${field}: ${response.text}`);
  }
  return error;
}
