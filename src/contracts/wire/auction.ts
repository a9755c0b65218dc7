/**
 * Wire shapes of the auction routes: one zod schema per shape validates requests, checks responses and documents
 * both in the OpenAPI document; the REST client derives its types from the same schemas.
 */
import { z } from 'zod';
import { Address, ChainId, HexBytes, IsoTimestamp, PositiveUintString, UintString } from './primitives.js';
import { CALLBACK_URL_PATTERN } from './urls.js';
import { LockType, Preference, QuoteStatus, SettlementPath, SwapType } from './vocabulary.js';

/** Fields both request shapes share (extensions of the spec, all optional). */
const commonRequestFields = {
  preference: Preference.optional(),
  lockType: LockType.optional().meta({
    description: 'Lock mechanism the quotes are for (default Permit2Escrow); must be one the input token supports.',
  }),
  settlementPath: SettlementPath.optional().meta({
    description:
      "Settlement rail (default direct). `deferred` (project extension): the order holds the workspace's DeferredVault credit instead of an escrow deposit; it needs an API key or session.",
  }),
  user: Address.optional().meta({
    description: 'Taker address: quotes then carry the StandardOrder and EIP-712 payload for this user, with its next free nonce.',
  }),
};

export const QuoteRequestFields = z
  .strictObject({
    inputToken: Address,
    outputToken: Address,
    inputAmount: PositiveUintString.optional().meta({ description: 'Required unless swapType is exactOutput.' }),
    outputAmount: PositiveUintString.optional().meta({ description: 'exactOutput only: the amount to receive.' }),
    originChainId: ChainId,
    destinationChainId: ChainId,
    swapType: SwapType.optional(),
    ...commonRequestFields,
  })
  .meta({
    description: 'Reference A quote request.',
    // The swapType rule in the document itself: exactInput (the default) takes inputAmount and no outputAmount;
    // exactOutput takes outputAmount (and inputAmount not at all).
    if: { properties: { swapType: { const: 'exactOutput' } }, required: ['swapType'] },
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then/else keyword, not a thenable.
    then: { required: ['outputAmount'], not: { required: ['inputAmount'] } },
    else: { required: ['inputAmount'], not: { required: ['outputAmount'] } },
  });

const DecimalAmount = z
  .string()
  .regex(/^(0|[1-9][0-9]*)(\.[0-9]+)?$/, 'must be a decimal string of whole tokens, e.g. "25000" or "25000.5"')
  .max(96);

export const PairQuoteRequestFields = z
  .strictObject({
    pair: z.string().regex(/^[A-Za-z0-9._-]{1,32}\/[A-Za-z0-9._-]{1,32}$/, 'must be <INPUT>/<OUTPUT> token symbols, e.g. "USDC/USDC"'),
    side: z
      .enum(['buy', 'sell'])
      .meta({ description: '`sell`: amount is what you send (exactInput); `buy`: what you receive (exactOutput).' }),
    amount: DecimalAmount.meta({ description: 'Decimal string of whole tokens.' }),
    chain: z.string().min(1).max(64).optional().meta({ description: 'Origin chain name (e.g. `alpha`).' }),
    destinationChain: z.string().min(1).max(64).optional().meta({ description: 'Destination chain name; needed when several fit.' }),
    ...commonRequestFields,
  })
  .meta({ description: 'Alternative quote request shape (pair, side, amount, chain).' });

export type QuoteRequestFields = z.output<typeof QuoteRequestFields>;
export type PairQuoteRequestFields = z.output<typeof PairQuoteRequestFields>;

export const MandateOutputWire = z.object({
  oracle: HexBytes,
  settler: HexBytes,
  chainId: ChainId,
  token: HexBytes,
  amount: UintString,
  recipient: HexBytes,
  callbackData: HexBytes,
  context: HexBytes,
});

export const StandardOrderWire = z
  .object({
    user: Address,
    nonce: UintString,
    originChainId: ChainId,
    expires: z.number().int().nonnegative().meta({ description: 'Unix seconds.' }),
    fillDeadline: z.number().int().nonnegative().meta({ description: 'Unix seconds.' }),
    inputOracle: Address,
    inputs: z.array(z.tuple([HexBytes, UintString])).meta({
      description: '[token, amount]: the token address for escrows, the 32-byte lock id for ResourceLock.',
    }),
    outputs: z.array(MandateOutputWire),
  })
  .meta({ description: 'The StandardOrder (uint256 values as decimal strings; address-valued bytes32 as addresses).' });

export const TypedDataWire = z
  .object({
    domain: z.object({
      name: z.string(),
      version: z.string().optional(),
      chainId: z.string(),
      verifyingContract: Address,
    }),
    types: z.record(z.string(), z.array(z.object({ name: z.string(), type: z.string() }))),
    primaryType: z.string(),
    message: z.record(z.string(), z.unknown()),
  })
  .meta({ description: 'EIP-712 payload to sign (uints as decimal strings; `typedDataFromJson` in src/contracts revives them).' });

export const Quote = z.object({
  quoteId: z.string(),
  solverId: z.string(),
  inputAmount: UintString,
  outputAmount: UintString,
  feeBps: z.number().meta({ description: 'Effective fee versus par, gas included: (input − output) / input, decimals normalised.' }),
  priceImpactBps: z.number().meta({ description: 'Versus the mid-market rate (1:1 for stable corridors).' }),
  expiresAt: IsoTimestamp,
  settlementPath: SettlementPath,
  lockType: LockType,
  rank: z.number().int().positive(),
  latencyMs: z.number().nonnegative().meta({ description: 'Time the solver took to answer this RFQ.' }),
  nonce: UintString.optional(),
  standardOrder: StandardOrderWire.optional(),
  typedData: TypedDataWire.optional(),
});

export const QuoteResponse = z.object({
  rfqId: z.string(),
  quotes: z.array(Quote),
  uccpBps: z.number().meta({
    description: 'Uniform clearing competitive price: fee in bps versus par of the best-priced quote received, whatever the preference.',
  }),
  corridor: z.string(),
  requestId: z.string(),
  preference: Preference,
  swapType: SwapType,
  fillDeadline: z.number().int().meta({ description: 'Unix seconds; fixed for every quote of the RFQ.' }),
  expires: z.number().int().meta({ description: 'Unix seconds; escrow refunds are possible after it.' }),
});

export const QuoteDetail = z.object({
  quoteId: z.string(),
  rfqId: z.string(),
  status: QuoteStatus,
  solverId: z.string(),
  corridor: z.string(),
  originChainId: ChainId,
  destinationChainId: ChainId,
  inputToken: Address,
  outputToken: Address,
  inputAmount: UintString,
  outputAmount: UintString,
  feeBps: z.number(),
  priceImpactBps: z.number(),
  settlementPath: SettlementPath,
  lockType: LockType,
  swapType: SwapType,
  createdAt: IsoTimestamp,
  expiresAt: IsoTimestamp,
  fillDeadline: z.number().int(),
  expires: z.number().int(),
  orderId: z.string().nullable(),
  user: Address.nullable(),
  nonce: UintString.nullable(),
  onchainOrderId: HexBytes.nullable(),
  standardOrder: StandardOrderWire.meta({
    description: 'For `user` with `nonce`; without a user, a template with the zero address and nonce 0.',
  }),
  typedData: TypedDataWire.nullable().meta({ description: 'Null until a user is known (`?user=`).' }),
});

export const RfqResponse = z.object({
  solverId: z.string(),
  solverName: z.string().nullable(),
  outcome: z.enum(['quoted', 'declined', 'rejected', 'silent']),
  quoteId: z.string().nullable(),
  rank: z.number().int().positive().nullable(),
  price: z.string().nullable().meta({ description: 'Output per input in whole tokens (decimal string).' }),
  inputAmount: UintString.nullable(),
  outputAmount: UintString.nullable(),
  feeBps: z.number().nullable(),
  latencyMs: z.number().nonnegative().nullable(),
  fillRate: z
    .number()
    .min(0)
    .max(1)
    .nullable()
    .meta({ description: "The solver's fill rate over finished orders; null before its first." }),
  quoteStatus: QuoteStatus.nullable(),
  reason: z.string().nullable(),
});

export const RfqView = z
  .object({
    rfqId: z.string(),
    status: z.enum(['collecting', 'quoted', 'no_quotes']),
    corridor: z.string(),
    pair: z.string(),
    side: z.enum(['buy', 'sell']),
    amount: z.string(),
    swapType: SwapType,
    preference: Preference,
    lockType: LockType,
    settlementPath: SettlementPath,
    createdAt: IsoTimestamp,
    closedAt: IsoTimestamp.nullable(),
    deadline: z.number().int().meta({ description: 'Unix seconds by which quotes had to arrive.' }),
    responses: z.array(RfqResponse),
  })
  .meta({ description: 'Reference B view of an RFQ: every invited solver and its response.' });

export const SolverName = z.string().trim().min(1).max(100);

/** Where a solver is called back: https, or http to a loopback host in the sandbox (urls.ts states the grammar). */
export const CallbackUrl = z
  .string()
  .max(2048)
  .regex(CALLBACK_URL_PATTERN, 'callbackUrl must be an https URL (http is accepted for loopback hosts in the sandbox).')
  .meta({
    description: 'HTTPS URL (http://127.0.0.1 / localhost accepted in the sandbox). Optional: the solver stream carries everything.',
  });

export const SolverRegistrationRequest = z.strictObject({
  name: SolverName,
  corridors: z.array(z.string().min(1).max(200)).min(1).max(500),
  callbackUrl: CallbackUrl.optional(),
  address: Address.optional().meta({ description: 'EVM address the solver fills and claims with (informational).' }),
});

export const SolverRegistration = z.object({
  solverId: z.string(),
  name: z.string(),
  corridors: z.array(z.string()),
  callbackUrl: z.string().nullable(),
  address: Address.nullable(),
  wsToken: z.string().meta({ description: 'Solver stream credential (`wst_test_…` / `wst_live_…`), shown once.' }),
  wsUrl: z.string(),
  createdAt: IsoTimestamp,
});

export const SolverToken = z.object({ solverId: z.string(), wsToken: z.string(), wsUrl: z.string() });

export const SolverStats = z.object({
  quotes: z.number().int().nonnegative(),
  rfqsInvited: z.number().int().nonnegative(),
  responseRate: z.number().min(0).max(1).nullable(),
  medianQuoteLatencyMs: z.number().nonnegative().nullable(),
  bestQuotes: z.number().int().nonnegative().meta({ description: 'RFQs where this solver had the best price.' }),
  wins: z.number().int().nonnegative().meta({ description: 'Quotes a taker turned into an order.' }),
  filled: z.number().int().nonnegative(),
  failed: z.number().int().nonnegative(),
  fillRate: z.number().min(0).max(1).nullable(),
  volume: z.string().meta({ description: 'Input volume of won orders, USD (1 stable token = 1 USD), decimal string.' }),
});

export type SolverStats = z.output<typeof SolverStats>;

export const Solver = z.object({
  solverId: z.string(),
  name: z.string(),
  corridors: z.array(z.string()),
  createdAt: IsoTimestamp,
  connected: z.boolean(),
  connections: z.number().int().nonnegative(),
  stats: SolverStats,
});

export const LeaderboardRow = SolverStats.extend({ rank: z.number().int().positive(), solverId: z.string(), name: z.string() });
export const Leaderboard = z.object({ data: z.array(LeaderboardRow), generatedAt: IsoTimestamp });
