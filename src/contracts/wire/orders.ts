/** Wire shapes of the order routes: the service validates and documents with them, clients derive their types. */
import { z } from 'zod';
import { Address, ChainId, IsoTimestamp, UintString } from './primitives.js';
import { LOCK_TYPES } from './enums.js';
import { OrderStatus, SettlementPath } from './vocabulary.js';

const Hash = z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'must be a 32-byte hex hash');
/**
 * The lock types as a schema instance of their own: the OpenAPI document names vocabulary's `LockType` as a
 * component where corridors and quotes reference it, and shows the order shapes' lock type inline, as it always has
 * (a clone would inherit the component's name).
 */
const LockType = z.enum(LOCK_TYPES);

const Nonce = z
  .union([z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER), UintString])
  .meta({ description: 'Monotonic per user (a number; larger nonces as a decimal string). Must be above the last one the user spent.' });

export const CreateOrderRequest = z
  .object({
    quoteId: z.string().min(1).max(100).meta({ description: 'From the quote response.' }),
    signature: z
      .string()
      .regex(/^0x(?:[0-9a-fA-F]{2}){64,4096}$/, 'must be a 64- or 65-byte signature (or an ERC-1271 blob)')
      .meta({
        description: "EIP-712 signature over the quote's typed data (Permit2 witness, ERC-3009 authorization or BatchCompact).",
      }),
    nonce: Nonce,
    user: Address.optional().meta({ description: 'The signer; needed unless the quote request named the user.' }),
  })
  .strict();
export type CreateOrderRequest = z.infer<typeof CreateOrderRequest>;

export const OrderCreated = z.object({
  orderId: z.string(),
  quoteId: z.string(),
  status: OrderStatus,
  settlementPath: SettlementPath,
  lockType: LockType,
  onchainOrderId: Hash.meta({ description: 'bytes32 order id on the origin chain.' }),
  originTxHash: Hash.meta({
    description: 'The relayed openFor; for ResourceLock the EIP-712 digest of the signed compact (nothing is sent).',
  }),
  destinationTxHash: Hash.nullable(),
  createdAt: IsoTimestamp,
  fillDeadline: IsoTimestamp,
});

export const OrderDetail = z.object({
  orderId: z.string(),
  quoteId: z.string(),
  status: OrderStatus,
  settlementPath: SettlementPath,
  lockType: LockType,
  user: Address,
  onchainOrderId: Hash,
  originChainId: ChainId,
  destinationChainId: ChainId,
  inputToken: Address,
  outputToken: Address,
  inputAmount: UintString,
  outputAmount: UintString,
  originTxHash: Hash,
  destinationTxHash: Hash.nullable(),
  oracleAttestationHash: Hash.nullable().meta({ description: 'Origin-chain transaction that recorded the oracle attestation.' }),
  claimTxHash: Hash.nullable(),
  refundTxHash: Hash.nullable(),
  fillDeadline: IsoTimestamp,
  expires: IsoTimestamp,
  createdAt: IsoTimestamp,
  settledAt: IsoTimestamp.nullable(),
});

export const TimelineStage = z.object({
  stage: z
    .enum([
      'rfq',
      'deposited',
      'filled',
      'attested',
      'claimed',
      'refunded',
      'reorged',
      'fault.held',
      'fault.delayed',
      'fault.dropped',
      'fault.released',
      'fault.solver',
      'fault.reorg',
      'fault.oracle',
    ])
    .meta({
      description:
        '`reorged`: a chain reorganisation took away the chain facts of a later stage, and the order went back (its `txHash` is the transaction that is gone). `fault.*`: a sandbox fault switch acted on this order (held, delayed, dropped or released one of its relays, its solver misbehaved on purpose, its fill was reorganised away, or the oracle lied about it).',
    }),
  at: IsoTimestamp,
  txHash: Hash.optional(),
  oracleHash: Hash.optional().meta({ description: 'Attested stage: keccak256 of the fill description the oracle pair carried.' }),
  chainId: ChainId.optional(),
});

export const Settlement = z.object({
  orderId: z.string(),
  workspaceId: z.string(),
  state: z.enum(['Deposited', 'Filled', 'Attested', 'Settled', 'Refunded']),
  timeline: z.array(TimelineStage),
  evidenceHash: Hash.meta({ description: "Hash of the order's latest WORM ledger entry: the root its evidence chains to." }),
  wormSequence: z.number().int().positive().meta({ description: 'Sequence of that entry in the WORM ledger.' }),
});
