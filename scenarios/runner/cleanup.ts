/**
 * What a scenario leaves behind on a shared sandbox, and how it is taken back. A scenario that sets a fault switch
 * or holds a relay and then fails (or is interrupted) would otherwise leave the switch armed: it fires on the next
 * scenario's orders, in this run or a later one against the same long-lived sandbox. The runner gives each scenario
 * a REST client whose fetch notes every switch it sets; teardown clears those that are still armed and releases the
 * relays held for its orders, whatever way the scenario ended.
 */
import type { RestClient } from '../../src/clients/rest-client.js';

const FAULTS_PATH = /\/api\/v1\/sandbox\/faults$/;

export class ScenarioCleanup {
  /** Fault switch ids this scenario set, in order. */
  readonly faults: string[] = [];
  /** What the scenario asked to have taken back (a paused solver resumed…), newest first at teardown. */
  private readonly undos: (() => Promise<unknown>)[] = [];
  private done = false;

  /** Registers something to take back at teardown, whatever way the scenario ends. */
  defer(undo: () => Promise<unknown>): void {
    this.undos.push(undo);
  }

  /** A fetch that forwards to `inner` and notes the id of each fault switch set through it. */
  fetch(inner: typeof fetch = fetch): typeof fetch {
    return async (input, init) => {
      const response = await inner(input, init);
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
      if (method === 'POST' && response.status === 201 && FAULTS_PATH.test(new URL(url).pathname)) {
        try {
          const body = (await response.clone().json()) as { id?: unknown };
          if (typeof body.id === 'string') this.faults.push(body.id);
        } catch {
          // Not JSON: nothing to note (the scenario sees the same answer and fails on it).
        }
      }
      return response;
    };
  }

  /**
   * Clears the switches this scenario set and releases the relays held for its orders. Best effort and once: a
   * switch already spent or cleared answers 404, which is fine. Returns what it did, for the report.
   */
  async run(rest: RestClient, orderIds: readonly string[]): Promise<{ cleared: number; released: number }> {
    if (this.done) return { cleared: 0, released: 0 };
    this.done = true;
    for (const undo of this.undos.reverse()) await undo().catch(() => undefined);
    let cleared = 0;
    let released = 0;
    for (const id of this.faults) {
      try {
        await rest.request('DELETE', `/api/v1/sandbox/faults/${id}`);
        cleared += 1;
      } catch {
        // Gone already (spent switches stay listed until cleared; a 404 means someone cleared it).
      }
    }
    if (this.faults.length > 0) {
      for (const orderId of orderIds) {
        try {
          const answer = await rest.request<{ released: unknown[] }>('POST', '/api/v1/sandbox/relays/release', { orderId });
          released += answer.released.length;
        } catch {
          // A service without the route (production) holds nothing.
        }
      }
    }
    return { cleared, released };
  }
}
