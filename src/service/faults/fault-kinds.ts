import { FAULT_KIND_TABLE, type FaultKind } from '../../contracts/fault-kinds.js';
import type { RelayKind } from '../settlement/relay-repository.js';

/**
 * The sandbox's fault switches: what each kind does. Relay faults act on the engine's queued relays (the deposit,
 * the oracle's two legs, keeper refunds); oracle faults are the attestation relay's faults under the oracle's name;
 * service faults act on HTTP requests; chain faults on the engine's JSON-RPC calls. The kinds are one table in
 * src/contracts, which the CLI's help, the dashboard and docs/faults.md follow too.
 */
export { FAULT_KINDS, type FaultKind, SOLVER_FAULT_KINDS } from '../../contracts/fault-kinds.js';

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

/** Each kind's description, as the OpenAPI document shows it. */
export const DESCRIPTIONS = Object.fromEntries(FAULT_KIND_TABLE.map((row) => [row.kind, row.description])) as Record<FaultKind, string>;
