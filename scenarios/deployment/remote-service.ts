import { ApiRequestError, RestClient } from '../../src/clients/rest-client.js';
import { advanceChainTime } from '../../src/devnet/chain-time.js';
import { createRpcClient } from '../../src/devnet/rpc.js';
import { sleep } from '../core/eventually.js';
import type { ServedManifest, ServiceControl } from './target.js';

/**
 * How long a running sandbox keeps its service down after `stop()`: long enough for what a scenario does while it
 * is down (a solver's fill lands, the chains are moved), short enough to keep a run quick.
 */
const DOWN = '2s';
const STOP_WAIT_MS = 5_000;
const START_WAIT_MS = 60_000;

/**
 * Stopping and starting the service of a running sandbox through its `service.restart` fault switch: the sandbox
 * stops its service as a crash would and starts it again on the same store, port and keys `DOWN` later. `stop()`
 * returns once the service no longer answers, `start()` once it answers again (it does not shorten the downtime).
 */
export function restartThroughFault(manifest: ServedManifest, adminKey: string): ServiceControl {
  const rest = new RestClient({ baseUrl: manifest.api.url, apiKey: adminKey, timeoutMs: 2_000 });
  let running = true;
  /** The spent switch of the last stop: cleared once the service is back, so none stays listed. */
  let spent: string | undefined;
  const answers = async () => {
    try {
      await rest.health();
      return true;
    } catch (error) {
      // 503 is still a service answering (degraded); only silence means down.
      return error instanceof ApiRequestError;
    }
  };
  const until = async (wanted: boolean, timeoutMs: number, what: string) => {
    const deadline = Date.now() + timeoutMs;
    while ((await answers()) !== wanted) {
      if (Date.now() > deadline) throw new Error(`the service at ${manifest.api.url} ${what} within ${timeoutMs} ms`);
      await sleep(20);
    }
  };
  return {
    get running() {
      return running;
    },
    async stop() {
      spent = (await rest.request<{ id: string }>('POST', '/api/v1/sandbox/faults', { kind: 'service.restart', down: DOWN })).id;
      await until(false, STOP_WAIT_MS, 'did not stop after service.restart');
      running = false;
    },
    async start() {
      await until(true, START_WAIT_MS, 'did not come back after service.restart');
      running = true;
      if (spent !== undefined) await rest.request('DELETE', `/api/v1/sandbox/faults/${spent}`).catch(() => undefined);
      spent = undefined;
    },
  };
}

/** Moves only the chains' time (the service may be down), over their JSON-RPC as the devnet does. */
export function advanceChainsOf(manifest: ServedManifest): (seconds: number) => Promise<void> {
  const chains = manifest.chains.map((chain) => ({ name: chain.name, rpc: createRpcClient(chain.rpcUrl) }));
  return async (seconds) => {
    await advanceChainTime(chains, seconds);
  };
}
