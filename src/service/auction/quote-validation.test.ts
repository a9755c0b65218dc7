/** Every validation error of POST /api/v1/quotes, each with its status, code and param (Format A). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatAError } from '../../../test/support/service/service.js';
import { ALPHA_BETA_USDC, startAuctionService, TOKENS, usdcRequest, type AuctionTestService } from '../../../test/support/auction.js';

let t: AuctionTestService;

beforeAll(async () => {
  t = await startAuctionService({ auction: { windowMs: 2_000 } });
  // One solver on alpha→beta USDC that quotes 1 bp below par, so valid requests succeed (and prove the checks passed).
  await t.solver('par solver', (rfq) => ({ outputAmount: ((BigInt(rfq.rfq.inputAmount ?? '0') * 9_999n) / 10_000n).toString() }), [
    ALPHA_BETA_USDC,
    'alpha:DAI-beta:DAI',
  ]);
});
afterAll(async () => {
  await t.stop();
});

type Case = [name: string, body: unknown, status: number, code: string, param: string];

const MIN = '10000000000';

const cases: Case[] = [
  // Shape (400).
  ['empty body', {}, 400, 'parameter_missing', 'inputToken'],
  ['missing outputToken', usdcRequest({ outputToken: undefined }), 400, 'parameter_missing', 'outputToken'],
  ['missing inputAmount', usdcRequest({ inputAmount: undefined }), 400, 'parameter_missing', 'inputAmount'],
  ['missing originChainId', usdcRequest({ originChainId: undefined }), 400, 'parameter_missing', 'originChainId'],
  ['missing destinationChainId', usdcRequest({ destinationChainId: undefined }), 400, 'parameter_missing', 'destinationChainId'],
  ['inputToken not hex', usdcRequest({ inputToken: 'USDC' }), 400, 'parameter_invalid', 'inputToken'],
  ['outputToken too short', usdcRequest({ outputToken: '0x1234' }), 400, 'parameter_invalid', 'outputToken'],
  ['inputAmount zero', usdcRequest({ inputAmount: '0' }), 400, 'parameter_invalid', 'inputAmount'],
  ['inputAmount negative', usdcRequest({ inputAmount: '-5' }), 400, 'parameter_invalid', 'inputAmount'],
  ['inputAmount decimal', usdcRequest({ inputAmount: '25000.5' }), 400, 'parameter_invalid', 'inputAmount'],
  ['inputAmount leading zero', usdcRequest({ inputAmount: '025000000000' }), 400, 'parameter_invalid', 'inputAmount'],
  ['inputAmount as number', usdcRequest({ inputAmount: 25_000_000_000 }), 400, 'parameter_invalid', 'inputAmount'],
  ['inputAmount beyond uint256 digits', usdcRequest({ inputAmount: '1'.repeat(79) }), 400, 'parameter_invalid', 'inputAmount'],
  ['originChainId as string', usdcRequest({ originChainId: '31337' }), 400, 'parameter_invalid', 'originChainId'],
  ['originChainId zero', usdcRequest({ originChainId: 0 }), 400, 'parameter_invalid', 'originChainId'],
  ['destinationChainId fractional', usdcRequest({ destinationChainId: 1.5 }), 400, 'parameter_invalid', 'destinationChainId'],
  ['preference unknown', usdcRequest({ preference: 'cheap' }), 400, 'parameter_invalid', 'preference'],
  ['swapType unknown', usdcRequest({ swapType: 'exact' }), 400, 'parameter_invalid', 'swapType'],
  ['lockType unknown', usdcRequest({ lockType: 'Escrow' }), 400, 'parameter_invalid', 'lockType'],
  ['settlementPath unknown', usdcRequest({ settlementPath: 'fast' }), 400, 'parameter_invalid', 'settlementPath'],
  ['user not an address', usdcRequest({ user: '0xabc' }), 400, 'parameter_invalid', 'user'],
  ['unknown field', usdcRequest({ slippage: 5 }), 400, 'parameter_unknown', 'slippage'],
  [
    'exactOutput without outputAmount',
    usdcRequest({ swapType: 'exactOutput', inputAmount: undefined }),
    400,
    'parameter_missing',
    'outputAmount',
  ],
  ['exactOutput with inputAmount', usdcRequest({ swapType: 'exactOutput', outputAmount: MIN }), 400, 'parameter_invalid', 'inputAmount'],
  ['exactInput with outputAmount', usdcRequest({ outputAmount: MIN }), 400, 'parameter_invalid', 'outputAmount'],
  ['body is an array', [usdcRequest()], 400, 'parameter_invalid', 'body'],
  // Business rules (422).
  ['unknown origin chain', usdcRequest({ originChainId: 999 }), 422, 'chain_not_supported', 'originChainId'],
  ['unknown destination chain', usdcRequest({ destinationChainId: 999 }), 422, 'chain_not_supported', 'destinationChainId'],
  ['same chain twice', usdcRequest({ destinationChainId: 31_337 }), 422, 'pair_not_supported', 'destinationChainId'],
  [
    'input token not on origin',
    usdcRequest({ inputToken: '0x00000000000000000000000000000000000000ff' }),
    422,
    'pair_not_supported',
    'inputToken',
  ],
  [
    'output token not on destination',
    usdcRequest({ outputToken: '0x00000000000000000000000000000000000000ff' }),
    422,
    'pair_not_supported',
    'outputToken',
  ],
  ['no corridor between the tokens', usdcRequest({ outputToken: TOKENS.USDT }), 422, 'pair_not_supported', 'outputToken'],
  [
    'ERC-3009 lock on a token without it',
    usdcRequest({ inputToken: TOKENS.USDT, outputToken: TOKENS.USDT, lockType: 'EIP3009Escrow' }),
    422,
    'lock_type_not_supported',
    'lockType',
  ],
  ['below 10,000 USD by one unit', usdcRequest({ inputAmount: '9999999999' }), 422, 'amount_too_small', 'inputAmount'],
  ['above the maximum by one unit', usdcRequest({ inputAmount: '1000000000001' }), 422, 'amount_too_large', 'inputAmount'],
  [
    '18-decimal token below minimum',
    usdcRequest({ inputToken: TOKENS.DAI, outputToken: TOKENS.DAI, inputAmount: `${'9999'}${'9'.repeat(18)}` }),
    422,
    'amount_too_small',
    'inputAmount',
  ],
  [
    'exactOutput below minimum',
    usdcRequest({ swapType: 'exactOutput', inputAmount: undefined, outputAmount: '9999999999' }),
    422,
    'amount_too_small',
    'outputAmount',
  ],
  [
    'corridor without solvers',
    usdcRequest({ originChainId: 31_338, destinationChainId: 31_337 }),
    422,
    'corridor_unavailable',
    'destinationChainId',
  ],
  // The pair shape.
  ['pair without slash', { pair: 'USDC', side: 'sell', amount: '25000', chain: 'alpha' }, 400, 'parameter_invalid', 'pair'],
  ['side unknown', { pair: 'USDC/USDC', side: 'hold', amount: '25000', chain: 'alpha' }, 400, 'parameter_invalid', 'side'],
  ['amount in exponent form', { pair: 'USDC/USDC', side: 'sell', amount: '2.5e4', chain: 'alpha' }, 400, 'parameter_invalid', 'amount'],
  ['amount missing', { pair: 'USDC/USDC', side: 'sell', chain: 'alpha' }, 400, 'parameter_missing', 'amount'],
  [
    'amount beyond token precision',
    { pair: 'USDC/USDC', side: 'sell', amount: '25000.0000001', chain: 'alpha' },
    400,
    'parameter_invalid',
    'amount',
  ],
  ['amount zero', { pair: 'USDC/USDC', side: 'sell', amount: '0', chain: 'alpha' }, 400, 'parameter_invalid', 'amount'],
  ['ambiguous pair without chain', { pair: 'USDC/USDC', side: 'sell', amount: '25000' }, 400, 'parameter_missing', 'chain'],
  [
    'pair mixed with token fields',
    { pair: 'USDC/USDC', side: 'sell', amount: '25000', chain: 'alpha', inputToken: TOKENS.USDC },
    400,
    'parameter_unknown',
    'inputToken',
  ],
  ['unknown chain name', { pair: 'USDC/USDC', side: 'sell', amount: '25000', chain: 'gamma' }, 422, 'chain_not_supported', 'chain'],
  [
    'unknown destination name',
    { pair: 'USDC/USDC', side: 'sell', amount: '25000', chain: 'alpha', destinationChain: 'gamma' },
    422,
    'chain_not_supported',
    'destinationChain',
  ],
  ['pair not carried', { pair: 'EUR/EUR', side: 'sell', amount: '25000', chain: 'alpha' }, 422, 'pair_not_supported', 'pair'],
  ['pair amount too small', { pair: 'USDC/USDC', side: 'sell', amount: '9999.999999', chain: 'alpha' }, 422, 'amount_too_small', 'amount'],
  [
    'pair amount too large',
    { pair: 'USDC/USDC', side: 'buy', amount: '1000000.000001', chain: 'alpha' },
    422,
    'amount_too_large',
    'amount',
  ],
  [
    'pair corridor without solvers',
    { pair: 'USDC/USDC', side: 'sell', amount: '25000', chain: 'beta' },
    422,
    'corridor_unavailable',
    'pair',
  ],
];

describe('POST /api/v1/quotes validation', () => {
  it.each(cases)('%s → %i %s (%s)', async (_name, body, status, code, param) => {
    const response = await t.request('POST', '/api/v1/quotes', { body, key: null });
    expect(response.status, response.text).toBe(status);
    const error = formatAError(response);
    expect(error).toMatchObject({ code, param, type: status === 400 ? 'invalid_request' : 'validation_error' });
    expect(error.doc_url).toContain(`/docs/errors#${code}`);
    const docs = await fetch(error.doc_url);
    expect(await docs.text()).toContain(code);
  });

  it('malformed JSON and a non-JSON content type are 400s naming the problem', async () => {
    const bad = await t.request('POST', '/api/v1/quotes', {
      raw: '{"inputToken":',
      headers: { 'Content-Type': 'application/json' },
      key: null,
    });
    expect(bad.status).toBe(400);
    expect(formatAError(bad).code).toBe('invalid_json');
    const text = await t.request('POST', '/api/v1/quotes', { raw: 'inputToken=0x', headers: { 'Content-Type': 'text/plain' }, key: null });
    expect(text.status).toBe(400);
    expect(formatAError(text).code).toBe('invalid_content_type');
  });

  it('the edges themselves pass: exactly 10,000 and exactly 1,000,000 USD, exactOutput, both shapes', async () => {
    for (const body of [
      usdcRequest({ inputAmount: MIN }),
      usdcRequest({ inputAmount: '1000000000000' }),
      usdcRequest({ inputToken: TOKENS.DAI, outputToken: TOKENS.DAI, inputAmount: `10000${'0'.repeat(18)}` }),
      { pair: 'usdc/usdc', side: 'sell', amount: '10000', chain: 'alpha' },
      { pair: 'USDC/USDC', side: 'sell', amount: '10000', chain: 'ALPHA', destinationChain: 'beta' },
      usdcRequest({ lockType: 'EIP3009Escrow', settlementPath: 'compliant', preference: 'speed' }),
    ]) {
      const response = await t.request('POST', '/api/v1/quotes', { body, key: null });
      expect(response.status, `${JSON.stringify(body)} → ${response.text}`).toBe(200);
    }
  });

  it('an invalid credential is a 401 even on this public route; a valid one is recorded', async () => {
    const response = await t.request('POST', '/api/v1/quotes', { body: usdcRequest(), key: 'svc_test_0000000000000000_' + '0'.repeat(64) });
    expect(response.status).toBe(401);
  });
});
