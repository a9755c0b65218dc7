import type { SandboxAdminClient } from '../clients/sandbox-admin-client.js';
import type { FaultKind } from '../contracts/fault-kinds.js';

/** `POST /api/v1/sandbox/faults`: the fields of `sandbox fault set <kind> --…` (docs/faults.md). */
export interface FaultSwitchRequest {
  kind: FaultKind;
  relay?: string;
  /** A duration (`2s`, `500ms`). */
  delay?: string;
  route?: string;
  chain?: number;
  method?: string;
  depth?: number;
  down?: string;
  scope?: { orderId?: string; corridor?: string; solverId?: string };
  /** Fire this many times, then switch off. */
  count?: number;
  /** Stay on this long (`30s`). */
  for?: string;
}

/** A fault switch as the service reports it. */
export interface FaultSwitch {
  id: string;
  kind: string;
  relay: string | null;
  delayMs: number | null;
  route: string | null;
  chainId: number | null;
  method: string | null;
  scope: { orderId: string | null; corridor: string | null; solverId: string | null };
  remaining: number | null;
  expiresAt: string | null;
  fired: number;
  active: boolean;
  createdAt: string;
}

/** The sandbox's fault switches, as `sandbox fault` sets, lists and clears them. */
export interface FaultSwitches {
  set(request: FaultSwitchRequest): Promise<FaultSwitch>;
  list(): Promise<FaultSwitch[]>;
  /** One switch by id, or all of them. */
  clear(id?: string): Promise<{ cleared: number }>;
  /** Sends the relays a `relay.hold` switch holds (of one order, or all). */
  releaseRelays(orderId?: string): Promise<{ released: { relayId: number; orderId: string | null; faultId: string }[] }>;
}

export function faultSwitches(admin: SandboxAdminClient): FaultSwitches {
  return {
    set: async (request) => (await admin.request<FaultSwitch>('POST', '/api/v1/sandbox/faults', request)).data,
    list: async () => (await admin.request<{ data: FaultSwitch[] }>('GET', '/api/v1/sandbox/faults')).data.data,
    clear: async (id) =>
      (await admin.request<{ cleared: number }>('DELETE', `/api/v1/sandbox/faults${id === undefined ? '' : `/${encodeURIComponent(id)}`}`))
        .data,
    releaseRelays: async (orderId) =>
      (await admin.request('POST', '/api/v1/sandbox/relays/release', orderId === undefined ? {} : { orderId })).data as {
        released: { relayId: number; orderId: string | null; faultId: string }[];
      },
  };
}
