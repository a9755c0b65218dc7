/**
 * The page's REST client: same origin, `Authorization: Bearer <sandbox key>`, JSON in and out. A route the
 * service does not have (404 `route_not_found`) is reported as `missing`, so views can say what is unavailable
 * instead of failing.
 */
import { isObject, obj, str } from './read.js';

export type ApiResult<T = unknown> =
  | { ok: true; status: number; body: T }
  | { ok: false; status: number; missing: boolean; code?: string; message: string; param?: string };

export class ApiClient {
  constructor(
    private readonly base: string,
    private key: string | undefined,
  ) {}

  get hasKey(): boolean {
    return this.key !== undefined;
  }

  setKey(key: string | undefined): void {
    this.key = key;
  }

  get token(): string | undefined {
    return this.key;
  }

  async get<T = unknown>(path: string): Promise<ApiResult<T>> {
    return this.request<T>('GET', path);
  }

  async post<T = unknown>(path: string, body: unknown): Promise<ApiResult<T>> {
    return this.request<T>('POST', path, body);
  }

  async delete<T = unknown>(path: string): Promise<ApiResult<T>> {
    return this.request<T>('DELETE', path);
  }

  private async request<T>(method: string, path: string, body?: unknown): Promise<ApiResult<T>> {
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (this.key !== undefined) headers.Authorization = `Bearer ${this.key}`;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(`${this.base}${path}`, {
        method,
        headers,
        credentials: 'omit',
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (error) {
      return { ok: false, status: 0, missing: false, message: `network error: ${(error as Error).message}` };
    }
    let parsed: unknown;
    try {
      parsed = await response.json();
    } catch {
      parsed = undefined;
    }
    if (response.ok) return { ok: true, status: response.status, body: parsed as T };
    const error = obj(parsed, 'error');
    const code = str(error, 'code');
    const message = str(error, 'message') ?? `HTTP ${response.status}`;
    const param = str(error, 'param');
    const missing = response.status === 404 && (code === 'route_not_found' || !isObject(parsed));
    return {
      ok: false,
      status: response.status,
      missing,
      message,
      ...(code === undefined ? {} : { code }),
      ...(param === undefined ? {} : { param }),
    };
  }
}
