/**
 * Scriptable misbehaviour of a reference solver, for scenarios: how it answers RFQs and what it does with the
 * orders it wins. The default is an honest, prompt solver.
 */
export interface SolverBehaviour {
  /**
   * `quote` (default) prices and quotes; `decline` declines every RFQ; `silent` never answers (the auction waits
   * out its window); `late` quotes after the window closed (and is rejected `rfq_expired`); `invalid` sends a
   * malformed quote (rejected `malformed`).
   */
  quote?: 'quote' | 'decline' | 'silent' | 'late' | 'invalid';
  /** How long after the window a `late` quote is sent, wall ms (default 100). */
  lateByMs?: number;
  /**
   * `fill` (default) fills as soon as the order is assigned; `never` ignores won orders (they end refunded);
   * `late` waits until the destination chain's time is past the fill deadline, then fills anyway (the fill
   * lands, but the origin chain refuses to pay for it and the refund wins). Misfills, each on time: `short` delivers
   * 90 % of the output, `wrong-recipient` delivers it to the solver itself (neither is the order's output, so the
   * order is never filled and refunds); `twice` fills, then sends the same fill again (the second reverts). `vanish`
   * quoted and won, then drops its solver-stream connection without a word and stays away for `VANISH_MS` (a solver
   * process that died): the order is never filled and refunds.
   */
  fill?: 'fill' | 'never' | 'late' | 'short' | 'wrong-recipient' | 'twice' | 'vanish';
  /** Extra wait before filling, wall ms. */
  fillDelayMs?: number;
  /** Claim on the origin chain once attested (default true). */
  claim?: boolean;
}

/** How long a vanished reference solver stays away before it reconnects (wall time). */
export const VANISH_MS = 3_000;

export const HONEST: Readonly<Required<Pick<SolverBehaviour, 'quote' | 'fill' | 'claim'>>> = { quote: 'quote', fill: 'fill', claim: true };
