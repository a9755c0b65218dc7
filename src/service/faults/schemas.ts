import { z } from 'zod';
import { IsoTimestamp } from '../api/wire.js';
import { DESCRIPTIONS, FAULT_KINDS, RELAY_CLASSES } from './fault-kinds.js';

/** `31h`, `1h30m`, `90s`, `500ms`: the clock's duration syntax. */
const DURATION = /^(\d+(ms|s|m|h|d))+$/;
const Duration = z.string().regex(DURATION, 'must be a duration such as 90s, 10m, 1h30m or 500ms').max(64);

export const FaultScope = z
  .strictObject({
    orderId: z
      .string()
      .regex(/^ord_[0-9a-z]{1,80}$/, 'must be an order id (ord_…)')
      .optional(),
    corridor: z.string().min(1).max(200).optional(),
    solverId: z.string().min(1).max(100).optional(),
  })
  .meta({ description: 'Which orders (or requests) the switch acts on; every field given must match. Empty: all.' });

export const FaultRequest = z
  .strictObject({
    kind: z.enum(FAULT_KINDS).meta({
      description: Object.entries(DESCRIPTIONS)
        .map(([kind, text]) => `\`${kind}\`: ${text}`)
        .join(' '),
    }),
    relay: z.enum(RELAY_CLASSES).optional().meta({ description: 'Relay faults: the relay they act on.' }),
    delay: Duration.optional().meta({
      description: '`relay.delay`, `oracle.late` (clock time), `service.slow` and `chain.rpc-slow` (wall time, at most 60 s).',
    }),
    route: z
      .string()
      .regex(
        /^((GET|POST|PUT|PATCH|DELETE) )?\/api\/[!-~]*$/,
        'must be a path under /api, optionally after a method: "POST /api/v1/quotes"',
      )
      .max(300)
      .optional()
      .meta({
        description: 'Service faults: the route, e.g. `POST /api/v1/quotes` or `/api/v1/orders` (every method, and the paths below).',
      }),
    chain: z.number().int().positive().optional().meta({ description: 'Chain faults: the chain id (every chain when left out).' }),
    method: z
      .string()
      .regex(/^[a-z]+_[A-Za-z0-9]+$/, 'must be a JSON-RPC method name such as eth_sendRawTransaction')
      .max(64)
      .optional()
      .meta({ description: 'Chain faults: only this JSON-RPC method (every method when left out).' }),
    scope: FaultScope.optional(),
    count: z.number().int().min(1).max(1_000_000).optional().meta({ description: 'Fire at most this many times.' }),
    for: Duration.optional().meta({ description: 'Turn off after this much clock time.' }),
  })
  .meta({ description: 'A fault switch to set.' });

export const FaultView = z.object({
  id: z.string(),
  kind: z.enum(FAULT_KINDS),
  relay: z.enum(RELAY_CLASSES).nullable(),
  delayMs: z.number().int().nullable(),
  route: z.string().nullable(),
  chainId: z.number().int().nullable(),
  method: z.string().nullable(),
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
