import type { SandboxAdminClient } from '../clients/sandbox-admin-client.js';
import { SandboxApiError } from '../clients/sandbox-admin-client.js';

/** `GET /api/v1/sandbox/clock`. */
export interface ClockState {
  now: string;
  nowMs: number;
  kind: 'test' | 'real';
  ticking: boolean;
  pendingJobs: number;
  nextJobAt: string | null;
}

/** What an advance did: the service clock and every chain moved, due jobs run in time order. */
export interface ClockAdvance {
  from: string;
  to: string;
  now: string;
  nowMs: number;
  advancedMs: number;
  jobsRun: number;
  chainTime: number | null;
}

/** A long advance the service runs in the background (it answers 202 with this). */
interface AdvanceOperation {
  id: string;
  status: 'running' | 'completed' | 'cancelled' | 'failed';
  result: ClockAdvance | null;
  error: string | null;
}

/** The sandbox's one clock (service and chains together), as `sandbox clock` drives it. */
export interface SandboxClock {
  now(): Promise<ClockState>;
  /** `sandbox clock advance <duration>`: `90s`, `31h`, `2d`… Resolves when every due job has run. */
  advance(duration: string): Promise<ClockAdvance>;
}

export function sandboxClock(admin: SandboxAdminClient): SandboxClock {
  return {
    now: async () => (await admin.request<ClockState>('GET', '/api/v1/sandbox/clock')).data,
    advance: async (duration) => {
      let { data } = await admin.request<ClockAdvance | AdvanceOperation>('POST', '/api/v1/sandbox/clock/advance', { duration });
      // Long advances run in the background: follow the operation until it ends.
      while ('status' in data && data.status === 'running') {
        await new Promise((resolve) => setTimeout(resolve, 250));
        data = (await admin.request<AdvanceOperation>('GET', `/api/v1/sandbox/clock/advances/${data.id}`)).data;
      }
      if (!('status' in data)) return data;
      if (data.status === 'completed' && data.result !== null) return data.result;
      throw new SandboxApiError(`clock advance ${data.status}${data.error ? `: ${data.error}` : ''}`, { code: 'clock_advance_failed' });
    },
  };
}
