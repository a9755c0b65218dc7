import { ApiRequestError, type RestClient } from '../clients/rest-client.js';
import type { SolverBehaviour } from './behaviour.js';

/** What each solver fault makes a reference solver do (the kinds of `/api/v1/sandbox/faults`). */
const QUOTE_FAULTS: Record<string, (fault: SwitchView) => SolverBehaviour> = {
  'solver.silent': () => ({ quote: 'silent' }),
  'solver.quote-late': () => ({ quote: 'late' }),
  'solver.decline': () => ({ quote: 'decline' }),
  'solver.quote-invalid': () => ({ quote: 'invalid' }),
};
const FILL_FAULTS: Record<string, (fault: SwitchView) => SolverBehaviour> = {
  'solver.never-fill': () => ({ fill: 'never' }),
  'solver.fill-late': () => ({ fill: 'late' }),
  'solver.fill-short': () => ({ fill: 'short' }),
  'solver.fill-wrong-recipient': () => ({ fill: 'wrong-recipient' }),
  'solver.fill-twice': () => ({ fill: 'twice' }),
  'solver.vanish': () => ({ fill: 'vanish' }),
  // A prompt, honest fill, only `delay` of wall time later.
  'solver.fill-slow': (fault) => ({ fill: 'fill', fillDelayMs: fault.delayMs ?? 0 }),
};

interface SwitchView {
  id: string;
  kind: string;
  active: boolean;
  delayMs: number | null;
  scope: { orderId: string | null; corridor: string | null; solverId: string | null };
}

/**
 * The sandbox's solver fault switches, as the reference solvers follow them. The list of switches is read once a
 * second (one request for all solvers, so following costs the workspace key next to nothing); while it holds a live
 * solver switch, a solver about to answer an RFQ or fill an order claims one firing of the first switch that may
 * apply (`POST …/firings`). The service decides — count, expiry and scope — so two solvers never act out one
 * firing, and every firing is in the ledger and the order's timeline. A switch takes effect within a second of
 * being set (`refresh()` at once). Only the sandbox serves the switches; elsewhere the solvers behave.
 */
export class SolverFaultFollower {
  private switches: SwitchView[] = [];
  private unavailable = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly rest: RestClient,
    private readonly pollMs = 1_000,
  ) {}

  start(): void {
    void this.refresh();
    this.timer = setInterval(() => void this.refresh(), this.pollMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
  }

  /** Reads the switches now. */
  async refresh(): Promise<void> {
    if (this.unavailable) return;
    try {
      this.switches = (await this.rest.request<{ data: SwitchView[] }>('GET', '/api/v1/sandbox/faults')).data.filter(
        (fault) => fault.active && fault.kind.startsWith('solver.'),
      );
    } catch (error) {
      // No fault routes (not a sandbox, or an older service): stop asking.
      if (error instanceof ApiRequestError && (error.status === 404 || error.status === 405)) {
        this.unavailable = true;
        this.stop();
      }
    }
  }

  /** The behaviour to act out for this RFQ or order, or undefined to behave as configured. */
  async behaviourFor(
    phase: 'quote' | 'fill',
    target: { solverId: string; corridor?: string; orderId?: string; rfqId?: string },
  ): Promise<SolverBehaviour | undefined> {
    if (this.switches.length === 0 || target.solverId === '') return undefined;
    const table = phase === 'quote' ? QUOTE_FAULTS : FILL_FAULTS;
    for (const fault of this.switches) {
      const behaviourOf = table[fault.kind];
      if (behaviourOf === undefined) continue;
      const { scope } = fault;
      if (scope.solverId !== null && scope.solverId !== target.solverId) continue;
      if (scope.orderId !== null && scope.orderId !== target.orderId) continue;
      if (scope.corridor !== null && target.corridor !== undefined && scope.corridor !== target.corridor) continue;
      try {
        await this.rest.request('POST', `/api/v1/sandbox/faults/${fault.id}/firings`, {
          solverId: target.solverId,
          ...(target.orderId === undefined ? {} : { orderId: target.orderId }),
          ...(target.rfqId === undefined ? {} : { rfqId: target.rfqId }),
        });
        return behaviourOf(fault);
      } catch (error) {
        // Spent meanwhile, or scoped elsewhere (the service knows the order's corridor): try the next switch.
        if (error instanceof ApiRequestError && error.status === 409) continue;
        return undefined;
      }
    }
    return undefined;
  }
}
