import { BaseError } from '../contracts/errors/base-error.js';
import { ApiRequestError, RestClient } from './rest-client.js';

/**
 * The sandbox's own routes (`/api/v1/sandbox/*`, webhooks, keys) as the `sandbox` CLI calls them: the REST client
 * with a key ring. A rotated key stops working after its grace period and its successor is listed first, so a
 * 401 moves on to the next key instead of failing.
 */

/** A failed call: `code` is the service's error code (or ours when it did not answer), for `--json` errors. */
export class SandboxApiError extends BaseError {
  override readonly name = 'SandboxApiError';
  override readonly code: string;
  readonly status: number | undefined;
  readonly body: unknown;

  constructor(message: string, options: { code: string; status?: number; body?: unknown; docsPath?: string; cause?: unknown }) {
    super(message, { code: options.code, docsPath: options.docsPath, cause: options.cause });
    this.code = options.code;
    this.status = options.status;
    this.body = options.body;
  }
}

export interface SandboxAdminClientOptions {
  /** The service's base URL (sandbox.json `api.url`). */
  url: string;
  /** Keys to try in order (sandbox.json `api.apiKeys`). */
  apiKeys: readonly string[];
  /** Long enough for a synchronous clock advance or a webhook test delivery (the default of 30 s is not). */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export class SandboxAdminClient {
  private readonly url: string;
  private readonly apiKeys: readonly string[];
  private readonly rest: RestClient;

  constructor(options: SandboxAdminClientOptions) {
    this.url = options.url;
    this.apiKeys = options.apiKeys;
    this.rest = new RestClient({
      baseUrl: options.url,
      timeoutMs: options.timeoutMs ?? 10 * 60_000,
      ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
    });
  }

  /** Calls `path` with the first key the service accepts; `usedKey` says which one that was. */
  async request<T>(method: string, path: string, body?: unknown): Promise<{ data: T; usedKey: string }> {
    let rejected: SandboxApiError | undefined;
    for (const key of this.apiKeys) {
      try {
        return { data: await this.rest.request<T>(method, path, body, { apiKey: key }), usedKey: key };
      } catch (error) {
        if (!(error instanceof ApiRequestError)) {
          throw new SandboxApiError(`the sandbox service at ${this.url} does not answer (${(error as Error).message}): is it running?`, {
            code: 'service_unreachable',
            docsPath: 'docs/devnet.md#state-folder',
            cause: error,
          });
        }
        rejected = new SandboxApiError(error.message, {
          code: error.code ?? 'request_failed',
          status: error.status,
          body: error.body,
          cause: error,
        });
        if (error.status !== 401) throw rejected;
      }
    }
    throw rejected ?? new SandboxApiError('no API key in sandbox.json', { code: 'no_api_key', docsPath: 'docs/service-platform.md' });
  }
}
