/**
 * The sandbox's fault switches, one row per kind: what it acts on, what it does, and the parameters it takes. The
 * service validates and documents `POST /api/v1/sandbox/faults` from this table, `sandbox fault set --help` and the
 * dashboard's Fault switches panel list it, and a test holds docs/faults.md to it. Plain data (no zod) so the
 * dashboard's bundle can carry it.
 */

/** What a kind acts on: queued relays, the oracle's attestation relay, HTTP routes, JSON-RPC calls or chains, solvers. */
export type FaultTarget = 'relay' | 'oracle' | 'service' | 'chain' | 'solver';

/** A parameter of `POST /sandbox/faults` (and the `sandbox fault set` flag of the same name) a kind takes. */
export type FaultParamName = 'relay' | 'delay' | 'route' | 'chain' | 'method' | 'depth' | 'down' | 'for';

export interface FaultParam {
  name: FaultParamName;
  required: boolean;
  /** A limit worth saying where the parameter is asked for (the service enforces it). */
  note?: string;
}

export interface FaultKindSpec {
  kind: string;
  target: FaultTarget;
  /** One line for the dashboard's form. */
  summary: string;
  /** The full description: the OpenAPI document's, for each kind's request shape. */
  description: string;
  /** The kind's own parameters (every kind also takes `count` and `for`, and most a `scope`). */
  params: readonly FaultParam[];
}

const required = (name: FaultParamName, note?: string): FaultParam => ({ name, required: true, ...(note === undefined ? {} : { note }) });
const optional = (name: FaultParamName, note?: string): FaultParam => ({ name, required: false, ...(note === undefined ? {} : { note }) });

/** In the order the OpenAPI document lists them. */
export const FAULT_KIND_TABLE = [
  {
    kind: 'relay.hold',
    target: 'relay',
    summary: 'queue the relay until released',
    description: 'Queue the named relay (deposit, attestation or refund) and send nothing until `sandbox relay release`.',
    params: [required('relay')],
  },
  {
    kind: 'relay.delay',
    target: 'relay',
    summary: 'send the relay a clock delay late',
    description: 'Send the named relay only once `delay` of clock time has passed since it was queued.',
    params: [required('relay'), required('delay')],
  },
  {
    kind: 'relay.drop',
    target: 'relay',
    summary: 'never send the relay',
    description: 'Never send the named relay: it is recorded as dropped.',
    params: [required('relay')],
  },
  {
    kind: 'oracle.withhold',
    target: 'oracle',
    summary: 'the oracle never attests',
    description: 'The oracle never attests: the attestation relay is dropped (the order refunds after expiry).',
    params: [],
  },
  {
    kind: 'oracle.late',
    target: 'oracle',
    summary: 'the oracle attests a clock delay late',
    description: 'The oracle attests `delay` of clock time late.',
    params: [required('delay')],
  },
  {
    kind: 'oracle.wrong-amount',
    target: 'oracle',
    summary: 'the oracle records the fill 1 % short (the claim is refused)',
    description:
      'The oracle carries the fill to the origin chain with the output amount 1 % short: the record names a fill that never happened, so the escrow cannot pay the solver for the real one (its finalise reverts) and the order refunds at expiry.',
    params: [],
  },
  {
    kind: 'oracle.lie',
    target: 'oracle',
    summary: 'the oracle records a fill that never happened (the escrow pays)',
    description:
      'A compromised oracle: right after the deposit it records on the origin chain a fill by the winning solver that never happened, and the solver is told it may claim. The escrow follows its rules and pays the solver; the taker receives nothing. The scenarios flag this as expected.',
    params: [],
  },
  {
    kind: 'service.maintenance',
    target: 'service',
    summary: 'the route answers 503 maintenance',
    description: 'The route answers 503 `maintenance` (Format A or B as the route speaks).',
    params: [required('route')],
  },
  {
    kind: 'service.slow',
    target: 'service',
    summary: 'the route answers a wall-time delay late',
    description: 'The route answers `delay` later (wall time).',
    params: [required('route'), required('delay', 'at most 60s')],
  },
  {
    kind: 'service.restart',
    target: 'service',
    summary: 'the service is stopped abruptly and started again',
    description:
      'The settlement service stops as a crash would (connections drop, work in flight stops) and starts again on the same store, port and keys after `down` of wall time; chains, solvers and clients keep running, and the service catches up with what the chains did meanwhile. Fires once, when set: the answer comes just before the stop. Needs the service `sandbox up` runs itself (one instance): elsewhere 409 `service_restart_unavailable`.',
    params: [optional('down', 'at most 60s')],
  },
  {
    kind: 'chain.rpc-drop',
    target: 'chain',
    summary: "the service's JSON-RPC calls fail",
    description:
      "The service's JSON-RPC calls to `chain` (every chain when left out; only `method` when given) fail as if the chain had not answered.",
    params: [optional('chain'), optional('method')],
  },
  {
    kind: 'chain.rpc-slow',
    target: 'chain',
    summary: "the service's JSON-RPC calls are answered late",
    description: "The service's JSON-RPC calls to `chain` (and `method`) are answered `delay` later (wall time).",
    params: [required('delay', 'at most 60s'), optional('chain'), optional('method')],
  },
  {
    kind: 'chain.reorg',
    target: 'chain',
    summary: 'the next processed fill is reorganised away',
    description:
      "Once a matching order's fill has been processed, its chain is reorganised (anvil_reorg): the last `depth` blocks (default: down to the fill's block) are replaced by empty ones, so the fill is gone; the service takes the order back to Deposited and the escrow refunds it at expiry.",
    params: [optional('depth', '1–16')],
  },
  {
    kind: 'chain.halt',
    target: 'chain',
    summary: 'the chain stops producing blocks',
    description:
      'The chain stops producing blocks (automine off): transactions wait in its pool and its time stands still, also across clock advances, until the switch is cleared or its `for` has passed; then the pool is mined at once and the chain catches up at the next advance.',
    params: [required('chain'), optional('for')],
  },
  {
    kind: 'chain.restart',
    target: 'chain',
    summary: "the chain's node is killed and started again from its saved state",
    description:
      "The chain's node is killed (SIGKILL) and started again on the same port from its state saved just before, after `down` of wall time: its pool is lost, blocks, balances and time are kept. Fires once, when set.",
    params: [required('chain'), optional('down', 'at most 60s')],
  },
  {
    kind: 'solver.never-fill',
    target: 'solver',
    summary: 'the winning reference solver never fills',
    description: 'A reference solver that wins never fills (the order refunds at expiry).',
    params: [],
  },
  {
    kind: 'solver.fill-late',
    target: 'solver',
    summary: 'the winning reference solver fills after the deadline',
    description: 'A reference solver that wins fills after the fill deadline (the fill lands, is never attested; the refund wins).',
    params: [],
  },
  {
    kind: 'solver.silent',
    target: 'solver',
    summary: 'a reference solver never answers the RFQ',
    description: 'A reference solver never answers the RFQ (the auction waits out its window).',
    params: [],
  },
  {
    kind: 'solver.quote-late',
    target: 'solver',
    summary: 'a reference solver answers after the auction window',
    description: 'A reference solver answers the RFQ after the auction window (refused `rfq_expired`).',
    params: [],
  },
  {
    kind: 'solver.decline',
    target: 'solver',
    summary: 'a reference solver declines the RFQ',
    description: 'A reference solver declines the RFQ.',
    params: [],
  },
  {
    kind: 'solver.quote-invalid',
    target: 'solver',
    summary: 'a reference solver answers the RFQ with a malformed quote',
    description: 'A reference solver answers the RFQ with a malformed quote (refused `malformed`; the RFQ view shows it rejected).',
    params: [],
  },
  {
    kind: 'solver.fill-slow',
    target: 'solver',
    summary: 'the winning reference solver fills a wall-time delay late',
    description:
      'A reference solver that wins waits `delay` of wall time before it fills (still before the deadline unless the clock moves meanwhile): a fill that lands while something else happens.',
    params: [required('delay', 'at most 60s')],
  },
  {
    kind: 'solver.fill-short',
    target: 'solver',
    summary: 'the winning reference solver fills 90 % of the output',
    description: 'A reference solver that wins fills 90 % of the output on time (not the order: it refunds at expiry).',
    params: [],
  },
  {
    kind: 'solver.fill-wrong-recipient',
    target: 'solver',
    summary: 'the winning reference solver fills to itself',
    description: 'A reference solver that wins fills the output to itself (not the order: it refunds at expiry).',
    params: [],
  },
  {
    kind: 'solver.fill-twice',
    target: 'solver',
    summary: 'the winning reference solver sends the same fill twice',
    description:
      'A reference solver that wins fills, then sends the same fill again (it changes nothing: the output settler pays an output once).',
    params: [],
  },
  {
    kind: 'solver.vanish',
    target: 'solver',
    summary: 'the winning reference solver disconnects and never fills',
    description:
      'A reference solver that quoted and won drops its solver-stream connection without a word and stays away for 3 s (the order refunds at expiry).',
    params: [],
  },
] as const satisfies readonly FaultKindSpec[];

export type FaultKind = (typeof FAULT_KIND_TABLE)[number]['kind'];
export type SolverFaultKind = Extract<(typeof FAULT_KIND_TABLE)[number], { target: 'solver' }>['kind'];

/** Every kind, in the table's order (a non-empty tuple, as `z.enum` wants it). */
export const FAULT_KINDS = FAULT_KIND_TABLE.map((row) => row.kind) as unknown as readonly [FaultKind, ...FaultKind[]];

/** Solver faults: acted out by the sandbox's reference solvers, which claim each firing before acting on it. */
export const SOLVER_FAULT_KINDS: readonly SolverFaultKind[] = FAULT_KIND_TABLE.filter(
  (row): row is Extract<(typeof FAULT_KIND_TABLE)[number], { target: 'solver' }> => row.target === 'solver',
).map((row) => row.kind);

export function faultKindSpec(kind: string): FaultKindSpec | undefined {
  return FAULT_KIND_TABLE.find((row) => row.kind === kind);
}
