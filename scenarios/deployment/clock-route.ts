import { RestClient } from '../../src/clients/rest-client.js';

/** The sandbox clock over the wire: `GET /api/v1/sandbox/clock`, `POST /api/v1/sandbox/clock/advance`. */
export class ClockRoute {
  private readonly rest: RestClient;

  constructor(baseUrl: string, apiKey: string) {
    this.rest = new RestClient({ baseUrl, apiKey, timeoutMs: 300_000 });
  }

  async now(): Promise<number> {
    return (await this.rest.request<{ nowMs: number }>('GET', '/api/v1/sandbox/clock')).nowMs;
  }

  /** Whether the route exists (sandbox environment). */
  async available(): Promise<boolean> {
    try {
      await this.now();
      return true;
    } catch {
      return false;
    }
  }

  async advance(ms: number): Promise<number> {
    const answer = await this.rest.request<{ nowMs: number }>('POST', '/api/v1/sandbox/clock/advance', {
      seconds: Math.max(0, ms) / 1_000,
    });
    return answer.nowMs;
  }
}
