import { defineScenario } from '../core/scenario.js';
import { expectEqual, expectThat } from '../core/errors.js';
import { advanceClock, attest, check, expectOrder, order, quote } from '../steps/index.js';
import { settled } from './timelines.js';

const ATTESTATION_REFUSED = { status: 403, code: 'attestation_expired', param: 'X-Service-Attestation' } as const;

/** The compliant rail refuses a missing and a stale attestation (nothing on chain) and settles with a fresh one. */
export const compliantAttestations = defineScenario({
  name: 'compliant-attestation-missing-stale-fresh',
  title: 'Compliant path: no attestation → 403, an attestation older than 1 h → 403, a fresh one → settled with its checks',
  tags: ['compliance', 'clock'],
  requires: { testClock: true },
  actors: {
    takers: ['alice'],
    streams: { live: { topics: ['orders:*'] } },
    webhooks: { hook: { events: ['order.*', 'compliance.event'] } },
  },
  steps: [
    quote('q1', { taker: 'alice', path: 'compliant' }),
    order('missing', { quote: 'q1', expectError: ATTESTATION_REFUSED }),
    attest('old', { taker: 'alice', expect: { status: 'approved' } }),
    advanceClock('61m'),
    quote('q2', { taker: 'alice', path: 'compliant' }),
    order('stale', { quote: 'q2', attestation: 'old', expectError: ATTESTATION_REFUSED }),
    attest('fresh', { taker: 'alice', expect: { status: 'approved' } }),
    check('the fresh attestation is a new one', (context) => {
      expectThat(context.value<string>('fresh') !== context.value<string>('old'), 'the service handed out the expired attestation again');
    }),
    order('o', { quote: 'q2', attestation: 'fresh' }),
    expectOrder('o', settled('o')),
  ],
});

/**
 * Production enforces screening: a sanctioned taker gets no attestation and cannot trade on the compliant rail,
 * not even with someone else's attestation, while an allow-listed taker settles.
 */
export const sanctionedInProduction = defineScenario({
  name: 'production-sanctioned-taker',
  title: 'Production: a sanctioned taker gets no attestation and is refused (also with another’s); an allow-listed taker settles',
  tags: ['compliance', 'production'],
  requires: {
    environment: 'production',
    ownTarget: ({ takers }) => ({
      environment: 'production',
      compliance: { allowList: [takers.alice!.address, takers.mallory!.address], sanctioned: [takers.mallory!.address] },
    }),
  },
  actors: { takers: ['alice', 'mallory'], streams: { live: { topics: ['orders:*'] } } },
  steps: [
    check('production keys are live keys', (context) => {
      expectThat(context.target.manifest.api.apiKeys[0]!.startsWith('svc_live_'), 'the production service handed out a non-live key');
    }),
    attest('mallory', { taker: 'mallory', expect: { status: 'rejected', sanctions: 'hit', kyc: 'approved' } }),
    check('no attestation for the sanctioned taker', (context) =>
      expectEqual(context.value<string | null>('mallory'), null, 'attestation'),
    ),
    attest('alice', { taker: 'alice', expect: { status: 'approved', sanctions: 'clear', kyc: 'approved' } }),
    quote('qm', { taker: 'mallory', path: 'compliant' }),
    order('without', { quote: 'qm', expectError: ATTESTATION_REFUSED }),
    order('borrowed', { quote: 'qm', attestation: 'alice', expectError: ATTESTATION_REFUSED }),
    quote('qa', { taker: 'alice', path: 'compliant' }),
    order('o', { quote: 'qa', attestation: 'alice' }),
    expectOrder('o', settled('o', { webhooks: false })),
  ],
});
