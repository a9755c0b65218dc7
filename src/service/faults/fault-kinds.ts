import type { RelayKind } from '../settlement/relay-repository.js';

/** Solver faults: acted out by the sandbox's reference solvers, which claim each firing before acting on it. */
export const SOLVER_FAULT_KINDS = [
  'solver.never-fill',
  'solver.fill-late',
  'solver.silent',
  'solver.quote-late',
  'solver.decline',
  'solver.fill-short',
  'solver.fill-wrong-recipient',
  'solver.fill-twice',
  'solver.vanish',
] as const;

/**
 * The sandbox's fault switches: what each kind does. Relay faults act on the engine's queued relays (the deposit,
 * the oracle's two legs, keeper refunds); oracle faults are the attestation relay's faults under the oracle's name;
 * service faults act on HTTP requests; chain faults on the engine's JSON-RPC calls.
 */
export const FAULT_KINDS = [
  'relay.hold',
  'relay.delay',
  'relay.drop',
  'oracle.withhold',
  'oracle.late',
  'oracle.wrong-amount',
  'oracle.lie',
  'service.maintenance',
  'service.slow',
  'chain.rpc-drop',
  'chain.rpc-slow',
  'chain.reorg',
  'chain.halt',
  'chain.restart',
  ...SOLVER_FAULT_KINDS,
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** Relays a relay fault can name: the escrow deposit (`openFor`), the oracle's two legs, the keeper's refunds. */
export const RELAY_CLASSES = ['deposit', 'attestation', 'refund'] as const;
export type RelayClass = (typeof RELAY_CLASSES)[number];

export const RELAY_KINDS: Record<RelayClass, readonly RelayKind[]> = {
  deposit: ['open'],
  attestation: ['oracle.submit', 'oracle.receive'],
  refund: ['refund'],
};

export function relayClassOf(kind: RelayKind): RelayClass | undefined {
  return RELAY_CLASSES.find((name) => RELAY_KINDS[name].includes(kind));
}

/** What a relay fault does to a relay: keep it until released, keep it for a while, or never send it. */
export type RelayAction = 'hold' | 'delay' | 'drop';

export function relayActionOf(kind: FaultKind): RelayAction | undefined {
  switch (kind) {
    case 'relay.hold':
      return 'hold';
    case 'relay.delay':
    case 'oracle.late':
      return 'delay';
    case 'relay.drop':
    case 'oracle.withhold':
      return 'drop';
    default:
      return undefined;
  }
}

/** The relay class a fault acts on: its own for relay faults, the attestation for oracle faults. */
export function faultRelayClass(kind: FaultKind, relay: RelayClass | null): RelayClass | null {
  return kind.startsWith('oracle.') ? 'attestation' : relay;
}

/** Oracle faults that change what the oracle says rather than when it says it. */
export const LYING_ORACLE_KINDS = ['oracle.wrong-amount', 'oracle.lie'] as const;

export const DESCRIPTIONS: Record<FaultKind, string> = {
  'relay.hold': 'Queue the named relay (deposit, attestation or refund) and send nothing until `sandbox relay release`.',
  'relay.delay': 'Send the named relay only once `delay` of clock time has passed since it was queued.',
  'relay.drop': 'Never send the named relay: it is recorded as dropped.',
  'oracle.withhold': 'The oracle never attests: the attestation relay is dropped (the order refunds after expiry).',
  'oracle.late': 'The oracle attests `delay` of clock time late.',
  'oracle.wrong-amount':
    'The oracle carries the fill to the origin chain with the output amount 1 % short: the record names a fill that never happened, so the escrow cannot pay the solver for the real one (its finalise reverts) and the order refunds at expiry.',
  'oracle.lie':
    'A compromised oracle: right after the deposit it records on the origin chain a fill by the winning solver that never happened, and the solver is told it may claim. The escrow follows its rules and pays the solver; the taker receives nothing. The scenarios flag this as expected.',
  'service.maintenance': 'The route answers 503 `maintenance` (Format A or B as the route speaks).',
  'service.slow': 'The route answers `delay` later (wall time).',
  'chain.rpc-drop':
    "The service's JSON-RPC calls to `chain` (every chain when left out; only `method` when given) fail as if the chain had not answered.",
  'chain.rpc-slow': "The service's JSON-RPC calls to `chain` (and `method`) are answered `delay` later (wall time).",
  'chain.reorg':
    "Once a matching order's fill has been processed, its chain is reorganised (anvil_reorg): the last `depth` blocks (default: down to the fill's block) are replaced by empty ones, so the fill is gone; the service takes the order back to Deposited and the escrow refunds it at expiry.",
  'chain.halt':
    'The chain stops producing blocks (automine off): transactions wait in its pool and its time stands still, also across clock advances, until the switch is cleared or its `for` has passed; then the pool is mined at once and the chain catches up at the next advance.',
  'chain.restart':
    "The chain's node is killed (SIGKILL) and started again on the same port from its state saved just before, after `down` of wall time: its pool is lost, blocks, balances and time are kept. Fires once, when set.",
  'solver.never-fill': 'A reference solver that wins never fills (the order refunds at expiry).',
  'solver.fill-late': 'A reference solver that wins fills after the fill deadline (the fill lands, is never attested; the refund wins).',
  'solver.silent': 'A reference solver never answers the RFQ (the auction waits out its window).',
  'solver.quote-late': 'A reference solver answers the RFQ after the auction window (refused `rfq_expired`).',
  'solver.decline': 'A reference solver declines the RFQ.',
  'solver.fill-short': 'A reference solver that wins fills 90 % of the output on time (not the order: it refunds at expiry).',
  'solver.fill-wrong-recipient': 'A reference solver that wins fills the output to itself (not the order: it refunds at expiry).',
  'solver.fill-twice': 'A reference solver that wins fills, then sends the same fill again (the second reverts on chain).',
  'solver.vanish':
    'A reference solver that quoted and won drops its solver-stream connection without a word and stays away for 3 s (the order refunds at expiry).',
};
