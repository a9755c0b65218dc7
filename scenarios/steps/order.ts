import type { Hex } from 'viem';
import { ApiRequestError, type OrderCreated, type RequestOptions } from '../../src/clients/rest-client.js';
import type { ScenarioContext, TrackedOrder } from '../core/context.js';
import { expectEqual, fail } from '../core/errors.js';
import type { Step } from '../core/scenario.js';
import { orderBalances } from '../observe/observe-order.js';

export interface OrderOptions {
  quote: string;
  /** A sign step's result; default: the quote's taker signs the quote as handed out. */
  signature?: string;
  /** A compliance step's attestation (`attest`), sent as X-Service-Attestation. */
  attestation?: string;
  /** Whose credential goes with the request: the scenario's workspace key, or none (default: none on the compliant path). */
  credential?: 'workspace' | 'none';
  idempotencyKey?: string;
  /** The order must be refused like this, and nothing may reach a chain. */
  expectError?: { status: number; code: string; param?: string };
}

/** Body of `POST /api/v1/orders` for a quote, signed as the options say. */
export async function orderBody(context: ScenarioContext, options: OrderOptions): Promise<TrackedOrder['body']> {
  const quoted = context.quote(options.quote);
  let signature: Hex;
  let nonce: string;
  if (options.signature !== undefined) {
    const signed = context.signature(options.signature);
    signature = signed.signature;
    nonce = signed.nonce;
  } else {
    signature = await quoted.taker.sign(quoted.quote.typedData ?? fail(`quote ${options.quote} carries no typed data`));
    nonce = quoted.quote.nonce ?? fail(`quote ${options.quote} carries no nonce`);
  }
  return { quoteId: quoted.quote.quoteId, signature, nonce, user: quoted.taker.address };
}

export function orderRequestOptions(context: ScenarioContext, options: OrderOptions): RequestOptions {
  const quoted = context.quote(options.quote);
  const credential = options.credential ?? (quoted.quote.settlementPath === 'compliant' ? 'none' : 'workspace');
  const attestation = options.attestation === undefined ? undefined : context.value<string | null>(options.attestation);
  return {
    ...(credential === 'none' ? { apiKey: null } : {}),
    ...(attestation === undefined || attestation === null ? {} : { attestation }),
    ...(options.idempotencyKey === undefined ? {} : { idempotencyKey: options.idempotencyKey }),
  };
}

/** Starts following an order the service accepted (balances from `before`). */
export function track(
  context: ScenarioContext,
  name: string,
  quoteName: string,
  created: OrderCreated,
  body: TrackedOrder['body'],
  before: TrackedOrder['before'],
  generation: 'A' | 'B' = 'A',
): TrackedOrder {
  const order: TrackedOrder = {
    name,
    orderId: created.orderId,
    onchainOrderId: (created.onchainOrderId as Hex | undefined) ?? fail(`order ${name}: the answer has no onchainOrderId`),
    quote: context.quote(quoteName),
    created,
    body,
    generation,
    before,
  };
  context.orders.set(name, order);
  return order;
}

/** Whatever happened to a refused order, nothing reached a chain: no escrow open by the taker, no balance moved. */
export async function chainUntouched(context: ScenarioContext, quoteName: string, act: () => Promise<void>): Promise<void> {
  const quoted = context.quote(quoteName);
  await context.observer.sync();
  const opens = context.observer.opensBy(quoted.taker.address);
  const before = await orderBalances({ quote: quoted });
  await act();
  await context.observer.sync();
  const after = await orderBalances({ quote: quoted });
  expectEqual(context.observer.opensBy(quoted.taker.address), opens, `escrow opens by ${quoted.taker.label} after the refusal`);
  expectEqual(after, before, `${quoted.taker.label}'s balances after the refusal`);
}

/**
 * `POST /api/v1/orders`: the taker's signed quote becomes an order (the service relays the deposit). ResourceLock
 * takers deposit into the lock first, as they must.
 */
export function order(name: string, options: OrderOptions): Step {
  return {
    title: `order ${name}: quote ${options.quote}${options.signature ? ` signed ${options.signature}` : ''}${options.attestation ? ` with attestation ${options.attestation}` : ''}${options.expectError ? ` → refused ${options.expectError.code}` : ''}`,
    async run(context) {
      const quoted = context.quote(options.quote);
      if (quoted.quote.lockType === 'ResourceLock') {
        const needed = BigInt(quoted.quote.inputAmount);
        const held = await quoted.taker.lockBalance(quoted.origin, quoted.inputSymbol);
        if (held < needed) await quoted.taker.depositToLock(quoted.origin, quoted.inputSymbol, needed - held);
      }
      const body = await orderBody(context, options);
      const requestOptions = orderRequestOptions(context, options);
      if (options.expectError !== undefined) {
        const expected = options.expectError;
        let refusal: ApiRequestError | undefined;
        await chainUntouched(context, options.quote, async () => {
          try {
            const created = await context.rest.createOrder(body, requestOptions);
            fail(
              `order ${name}: expected ${expected.status} ${expected.code}, but the service created ${created.orderId} (${created.status})`,
            );
          } catch (error) {
            if (!(error instanceof ApiRequestError)) throw error;
            refusal = error;
          }
        });
        const seen = { status: refusal!.status, code: refusal!.code, ...(expected.param === undefined ? {} : { param: refusal!.param }) };
        expectEqual(seen, expected, `order ${name} refusal`);
        context.values.set(name, refusal);
        return `refused ${refusal!.status} ${refusal!.code}${refusal!.param ? ` (param ${refusal!.param})` : ''}; nothing on chain`;
      }
      const before = await orderBalances({ quote: quoted });
      const created = await context.rest.createOrder(body, requestOptions);
      track(context, name, options.quote, created, body, before);
      return `${created.orderId} ${created.status}, deposit ${created.originTxHash.slice(0, 10)}…`;
    },
  };
}
