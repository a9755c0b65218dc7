import { z } from 'zod';
import { IsoTimestamp } from '../api/wire.js';
import { DESCRIPTIONS, FAULT_KINDS, RELAY_CLASSES, SOLVER_FAULT_KINDS } from './fault-kinds.js';

/** `31h`, `1h30m`, `90s`, `500ms`: the clock's duration syntax (at most six digits a part). */
const Duration = z
  .string()
  .regex(/^(\d{1,6}(ms|s|m|h|d))+$/, 'must be a duration such as 90s, 10m, 1h30m or 500ms')
  .max(64);
/** A wall-time delay of a request or a JSON-RPC call: 1 ms to 60 s. */
const WallDelay = z
  .string()
  .regex(/^([1-9]\d{0,3}ms|([1-9]|[1-5]\d|60)s)$/, 'must be a wall-time delay from 1ms to 9999ms, or 1s to 60s')
  .meta({ description: 'Wall time, at most 60 s: `500ms`, `2s`.' });
const OrderId = z.string().regex(/^ord_[0-9a-z]{1,80}$/, 'must be an order id (ord_…)');

export const FaultScope = z
  .strictObject({
    orderId: OrderId.optional(),
    corridor: z.string().min(1).max(200).optional(),
    solverId: z.string().min(1).max(100).optional(),
  })
  .meta({ description: 'Which orders the switch acts on; every field given must match. Empty: all.' });

/** Service faults are scoped by order id only: a request names no corridor or solver. */
const RequestScope = z.strictObject({ orderId: OrderId.optional() }).meta({ description: 'Only requests whose path names this order.' });

const Route = z
  .string()
  .regex(/^((GET|POST|PUT|PATCH|DELETE) )?\/api\/[!-~]*$/, 'must be a path under /api, optionally after a method: "POST /api/v1/quotes"')
  .max(300)
  .meta({ description: 'The route, e.g. `POST /api/v1/quotes` or `/api/v1/orders` (every method, and the paths below).' });

const RpcMethod = z
  .string()
  .regex(/^[a-z]+_[A-Za-z0-9]+$/, 'must be a JSON-RPC method name such as eth_sendRawTransaction')
  .max(64)
  .meta({ description: 'Only this JSON-RPC method (every method when left out).' });

const limits = {
  count: z.number().int().min(1).max(1_000_000).optional().meta({ description: 'Fire at most this many times.' }),
  for: Duration.optional().meta({ description: 'Turn off after this much clock time.' }),
};

/**
 * A fault switch to set, one shape per kind, so the document says exactly what each kind takes: a body the
 * document allows is a switch the service sets.
 */
export function faultRequestSchema(chainIds: readonly number[]) {
  const relay = z.enum(RELAY_CLASSES).meta({ description: 'The relay the switch acts on.' });
  const chain = (chainIds.length === 0 ? z.never() : z.union(chainIds.map((id) => z.literal(id)))).meta({
    description: 'The chain id (every chain the service settles on when left out).',
  });
  const variant = <K extends (typeof FAULT_KINDS)[number], T extends z.ZodRawShape>(kind: K, shape: T) =>
    z.strictObject({ kind: z.literal(kind).meta({ description: DESCRIPTIONS[kind] }), ...shape, ...limits });
  return z
    .discriminatedUnion('kind', [
      variant('relay.hold', { relay, scope: FaultScope.optional() }),
      variant('relay.delay', { relay, delay: Duration.meta({ description: 'Clock time.' }), scope: FaultScope.optional() }),
      variant('relay.drop', { relay, scope: FaultScope.optional() }),
      variant('oracle.withhold', { scope: FaultScope.optional() }),
      variant('oracle.late', { delay: Duration.meta({ description: 'Clock time.' }), scope: FaultScope.optional() }),
      variant('oracle.wrong-amount', { scope: FaultScope.optional() }),
      variant('oracle.lie', { scope: FaultScope.optional() }),
      variant('service.maintenance', { route: Route, scope: RequestScope.optional() }),
      variant('service.slow', { route: Route, delay: WallDelay, scope: RequestScope.optional() }),
      z.strictObject({
        kind: z.literal('service.restart').meta({ description: DESCRIPTIONS['service.restart'] }),
        down: WallDelay.optional().meta({ description: 'How long the service stays down (wall time, at most 60 s; default none).' }),
      }),
      variant('chain.rpc-drop', { chain: chain.optional(), method: RpcMethod.optional() }),
      variant('chain.rpc-slow', { delay: WallDelay, chain: chain.optional(), method: RpcMethod.optional() }),
      z.strictObject({
        kind: z.literal('chain.halt').meta({ description: DESCRIPTIONS['chain.halt'] }),
        chain: chain.meta({ description: 'The chain id to halt.' }),
        for: limits.for.meta({ description: 'Resume after this much clock time (until cleared when left out).' }),
      }),
      z.strictObject({
        kind: z.literal('chain.restart').meta({ description: DESCRIPTIONS['chain.restart'] }),
        chain: chain.meta({ description: 'The chain id whose node is killed and restarted.' }),
        down: WallDelay.optional().meta({ description: 'How long the node stays down (wall time, at most 60 s; default none).' }),
      }),
      variant('chain.reorg', {
        depth: z
          .number()
          .int()
          .min(1)
          .max(16)
          .optional()
          .meta({ description: "Blocks replaced below the head (the devnet keeps 16); default: down to and including the fill's block." }),
        scope: FaultScope.optional(),
      }),
      // A slow fill waits a wall-time delay; every other solver fault takes a scope only.
      ...SOLVER_FAULT_KINDS.map((kind) =>
        kind === 'solver.fill-slow'
          ? variant(kind, { delay: WallDelay, scope: FaultScope.optional() })
          : variant(kind, { scope: FaultScope.optional() }),
      ),
    ])
    .meta({ description: 'A fault switch to set: `kind` and what that kind takes.' });
}

/** Every field a fault request may carry, whatever its kind (the handler reads the union through this). */
export interface FaultRequestFields {
  kind: (typeof FAULT_KINDS)[number];
  relay?: (typeof RELAY_CLASSES)[number];
  delay?: string;
  route?: string;
  chain?: number;
  method?: string;
  depth?: number;
  down?: string;
  scope?: { orderId?: string; corridor?: string; solverId?: string };
  count?: number;
  for?: string;
}

export const FaultView = z.object({
  id: z.string(),
  kind: z.enum(FAULT_KINDS),
  relay: z.enum(RELAY_CLASSES).nullable(),
  delayMs: z.number().int().nullable(),
  route: z.string().nullable(),
  chainId: z.number().int().nullable(),
  method: z.string().nullable(),
  depth: z.number().int().nullable().meta({ description: 'chain.reorg: blocks replaced (null: down to the fill).' }),
  scope: z.object({ orderId: z.string().nullable(), corridor: z.string().nullable(), solverId: z.string().nullable() }),
  remaining: z.number().int().nullable().meta({ description: 'Firings left; null: unlimited.' }),
  expiresAt: IsoTimestamp.nullable(),
  fired: z.number().int(),
  active: z.boolean().meta({ description: 'False once spent or expired (it stays listed until cleared).' }),
  createdAt: IsoTimestamp,
});

export const FaultList = z.object({ data: z.array(FaultView) });
export const FaultParams = z.object({ faultId: z.string().regex(/^flt_[0-9a-z]{1,64}$/, 'must be a fault id (flt_…)') });
export const ClearedView = z.object({ cleared: z.number().int() });

export const ReleaseRequest = z
  .strictObject({
    orderId: z
      .string()
      .regex(/^ord_[0-9a-z]{1,80}$/, 'must be an order id (ord_…)')
      .optional(),
  })
  .meta({ description: 'Release the held relays of one order; without `orderId`, every held relay.' });
export const ReleaseView = z.object({
  released: z.array(z.object({ relayId: z.number().int(), orderId: z.string().nullable(), faultId: z.string() })),
});

export const FiringRequest = z
  .strictObject({
    solverId: z.string().regex(/^slv_[0-9a-z]{1,64}$/, 'must be a solver id (slv_…)'),
    orderId: OrderId.optional().meta({ description: 'The order the solver is about to misbehave on (fill faults).' }),
    rfqId: z
      .string()
      .regex(/^rfq_[0-9a-z]{1,64}$/, 'must be an RFQ id (rfq_…)')
      .optional()
      .meta({ description: 'The RFQ the solver is about to misbehave on (quote faults).' }),
  })
  .meta({ description: 'A reference solver claims one firing of a solver fault before acting it out.' });
export const FiringView = z.object({
  faultId: z.string(),
  fired: z.number().int(),
  remaining: z.number().int().nullable(),
});
