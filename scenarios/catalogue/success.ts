import type { LockType, SettlementPath } from '../../src/clients/rest-client.js';
import { defineScenario, type Scenario } from '../core/scenario.js';
import { attest, expectOrder, order, quote } from '../steps/index.js';
import { settled } from './timelines.js';

const LOCKS: ReadonlyArray<[LockType, string]> = [
  ['Permit2Escrow', 'permit2'],
  ['EIP3009Escrow', 'eip3009'],
  ['ResourceLock', 'resource-lock'],
];
const PATHS: readonly SettlementPath[] = ['direct', 'compliant'];

/** One settled order per lock type and rail, watched on every channel. */
function success(lockType: LockType, slug: string, path: SettlementPath): Scenario {
  return defineScenario({
    name: `success-${slug}-${path}`,
    title: `${lockType} on the ${path} path: Deposited → Filled → Attested → Claimed`,
    tags: ['success', lockType, path],
    actors: {
      takers: ['alice'],
      streams: { live: { topics: ['orders:*'] } },
      webhooks: { hook: { events: ['order.*', 'compliance.event'] } },
    },
    steps: [
      quote('q', { taker: 'alice', lockType, path }),
      ...(path === 'compliant' ? [attest('fresh', { taker: 'alice', expect: { status: 'approved' } })] : []),
      order('o', { quote: 'q', ...(path === 'compliant' ? { attestation: 'fresh' } : {}) }),
      expectOrder('o', settled('o')),
    ],
  });
}

export const successScenarios: Scenario[] = PATHS.flatMap((path) => LOCKS.map(([lockType, slug]) => success(lockType, slug, path)));
