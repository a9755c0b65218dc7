import { ApiRequestError } from '../../src/clients/rest-client.js';
import { addressToBytes32 } from '../../src/contracts/order.js';
import { defineScenario } from '../core/scenario.js';
import { expectEqual, fail } from '../core/errors.js';
import { advanceClockTo, after, chainUntouched, check, expectOrder, order, quote, sign } from '../steps/index.js';
import { settled } from './timelines.js';

const INVALID_SIGNATURE = { status: 422, code: 'signature_invalid', param: 'signature' } as const;
const watched = { streams: { live: { topics: ['orders:*'] } } } as const;

/** A nonce the taker already spent is refused before anything reaches a chain; so is the spent order itself. */
export const replayedNonce = defineScenario({
  name: 'replayed-nonce',
  title: 'A new order signed with a spent nonce → 409 nonce_already_used; the spent order again → 409; nothing on chain',
  tags: ['attack', 'nonce'],
  actors: { takers: ['alice'], ...watched },
  steps: [
    quote('q1', { taker: 'alice' }),
    order('first', { quote: 'q1' }),
    expectOrder('first', settled('first', { webhooks: false })),
    quote('q2', { taker: 'alice' }),
    sign('replay', {
      quote: 'q2',
      nonce: (context) => context.order('first').body.nonce,
      describe: 'quote q2 with the nonce of order first',
    }),
    order('replayed', { quote: 'q2', signature: 'replay', expectError: { status: 409, code: 'nonce_already_used', param: 'nonce' } }),
    check('the first order’s request sent again → 409 quote_already_accepted, nothing on chain', async (context) => {
      const first = context.order('first');
      await chainUntouched(context, 'q1', async () => {
        try {
          await context.rest.createOrder(first.body);
          fail('the service accepted the same order twice');
        } catch (error) {
          if (!(error instanceof ApiRequestError)) throw error;
          expectEqual({ status: error.status, code: error.code }, { status: 409, code: 'quote_already_accepted' }, 'answer');
        }
      });
    }),
    order('honest', { quote: 'q2' }),
    expectOrder('honest', settled('honest', { webhooks: false })),
  ],
});

/** Any change to the signed terms, or another signer, is refused with `signature_invalid`; nothing reaches a chain. */
export const tamperedSignature = defineScenario({
  name: 'tampered-signature',
  title: 'Tampered amount, recipient or ERC-3009 value, or a stranger’s key → 422 signature_invalid; the honest signature settles',
  tags: ['attack', 'signature'],
  actors: { takers: ['alice', 'mallory'], ...watched },
  steps: [
    quote('q', { taker: 'alice' }),
    sign('more', {
      quote: 'q',
      describe: 'output amount + 1',
      tamper: (m) => (m.witness.outputs[0].amount = (BigInt(m.witness.outputs[0].amount) + 1n).toString()),
    }),
    order('amount', { quote: 'q', signature: 'more', expectError: INVALID_SIGNATURE }),
    sign('redirected', {
      quote: 'q',
      describe: 'recipient → mallory',
      tamper: (m, context) => (m.witness.outputs[0].recipient = addressToBytes32(context.taker('mallory').address)),
    }),
    order('recipient', { quote: 'q', signature: 'redirected', expectError: INVALID_SIGNATURE }),
    sign('stranger', { quote: 'q', signer: 'mallory' }),
    order('signer', { quote: 'q', signature: 'stranger', expectError: INVALID_SIGNATURE }),
    quote('q3009', { taker: 'alice', lockType: 'EIP3009Escrow' }),
    sign('less', { quote: 'q3009', describe: 'ERC-3009 value − 1', tamper: (m) => (m.value = (BigInt(m.value) - 1n).toString()) }),
    order('value', { quote: 'q3009', signature: 'less', expectError: INVALID_SIGNATURE }),
    order('honest', { quote: 'q' }),
    expectOrder('honest', settled('honest', { webhooks: false })),
  ],
});

/** A quote is good for 30 s of service clock: a second before it settles, at its expiry it is refused. */
export const expiredQuote = defineScenario({
  name: 'expired-quote',
  title: 'A quote ordered 1 s before it expires settles; at its expiry the order is refused 409 rfq_expired and the quote reads expired',
  tags: ['attack', 'clock', 'quote'],
  requires: { testClock: true },
  actors: { takers: ['alice'], ...watched },
  steps: [
    quote('early', { taker: 'alice' }),
    sign('early-signed', { quote: 'early' }),
    advanceClockTo('1 s before the quote expires', after('early', 'quoteExpiry', -1)),
    order('in-time', { quote: 'early', signature: 'early-signed' }),
    expectOrder('in-time', settled('in-time', { webhooks: false })),
    quote('late', { taker: 'alice' }),
    sign('late-signed', { quote: 'late' }),
    advanceClockTo('the quote’s expiry', after('late', 'quoteExpiry', 0)),
    order('too-late', { quote: 'late', signature: 'late-signed', expectError: { status: 409, code: 'rfq_expired', param: 'quoteId' } }),
    check('the quote reads expired', async (context) => {
      const detail = await context.rest.getQuote(context.quote('late').quote.quoteId);
      expectEqual(detail.status, 'expired', 'quote status');
    }),
  ],
});
