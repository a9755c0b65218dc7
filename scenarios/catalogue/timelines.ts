import type { LockType, SettlementPath } from '../../src/clients/rest-client.js';
import type { ScenarioContext } from '../core/context.js';
import type { ExpectedTimeline } from '../observe/timeline.js';

/** The compliance checks the compliant path records (and announces) before the deposit. */
export const COMPLIANT_CHECKS = ['attestation', 'kyc', 'sanctions', 'travel_rule'] as const;

/** Reference A events of a settled order: `order.created`, (checks), `order.settled`, `compliance.event` (audit). */
export function settledEvents(path: SettlementPath): string[] {
  return [
    'order.created',
    ...(path === 'compliant' ? COMPLIANT_CHECKS.map(() => 'compliance.event') : []),
    'order.settled',
    'compliance.event',
  ];
}

/** The failure sequence: `order.created`, `order.failed`, `compliance.event`. */
export function refundedEvents(path: SettlementPath): string[] {
  return [
    'order.created',
    ...(path === 'compliant' ? COMPLIANT_CHECKS.map(() => 'compliance.event') : []),
    'order.failed',
    'compliance.event',
  ];
}

function openLog(lockType: LockType): string[] {
  // A resource-lock order opens nothing: the taker's deposit into the lock is the commitment.
  return lockType === 'ResourceLock' ? [] : ['Open'];
}

function checks(path: SettlementPath): string[] {
  return path === 'compliant' ? COMPLIANT_CHECKS.map((check) => `compliance.check:${check}`) : [];
}

/** Everything a settled order shows: stages, events on every channel, logs, ledger, the taker's balances. */
export function settled(order: string, options: { webhooks?: boolean } = {}): (context: ScenarioContext) => ExpectedTimeline {
  return (context) => {
    const { quote, created } = context.order(order);
    const path = created.settlementPath;
    return {
      status: 'Claimed',
      stages: ['rfq', 'deposited', 'filled', 'attested', 'claimed'],
      ws: settledEvents(path),
      ...(options.webhooks === false ? {} : { webhooks: settledEvents(path) }),
      chain: [...openLog(quote.quote.lockType), 'OutputFilled', 'AttestationRecorded', 'Finalised'],
      ledger: [
        'order.created',
        ...checks(path),
        'order.transition:Filled',
        'order.transition:Attested',
        'order.transition:Claimed',
        'compliance.check:settlement_audit',
      ],
      balances: { input: -BigInt(quote.quote.inputAmount), output: BigInt(quote.quote.outputAmount) },
    };
  };
}

/**
 * A refunded order: the deposit went back (escrow) or the compact expired unclaimed (resource lock); `filledLate`
 * when a fill landed after the deadline anyway (the taker keeps both).
 */
export function refunded(
  order: string,
  options: { filledLate?: boolean; webhooks?: boolean } = {},
): (context: ScenarioContext) => ExpectedTimeline {
  return (context) => {
    const { quote, created } = context.order(order);
    const path = created.settlementPath;
    const escrow = quote.quote.lockType !== 'ResourceLock';
    return {
      status: 'Refunded',
      stages: ['rfq', 'deposited', 'refunded'],
      ws: refundedEvents(path),
      ...(options.webhooks === false ? {} : { webhooks: refundedEvents(path) }),
      chain: [...openLog(quote.quote.lockType), ...(options.filledLate ? ['OutputFilled'] : []), ...(escrow ? ['Refunded'] : [])],
      ledger: ['order.created', ...checks(path), 'order.transition:Refunded', 'compliance.check:settlement_audit'],
      balances: { input: 0n, output: options.filledLate ? BigInt(quote.quote.outputAmount) : 0n },
    };
  };
}

/**
 * A solver fault fired on the order: its `fault.solver` stage comes right after `deposited` (the solver claims the
 * firing when the order is assigned to it, before any fill) and its `fault.fired` entry right after `order.created`.
 */
export function withSolverFault(base: (context: ScenarioContext) => ExpectedTimeline): (context: ScenarioContext) => ExpectedTimeline {
  return (context) => {
    const timeline = base(context);
    const stages = [...(timeline.stages ?? [])];
    stages.splice(stages.indexOf('deposited') + 1, 0, 'fault.solver');
    const ledger = [...(timeline.ledger ?? [])];
    ledger.splice(ledger.indexOf('order.created') + 1, 0, 'fault.fired');
    return { ...timeline, stages, ledger };
  };
}
