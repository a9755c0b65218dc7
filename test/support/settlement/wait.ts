import type { OrderDetail, RestClient } from '../../../src/clients/rest-client.js';

/** Polls the public order route until the order reaches `status` (wall-time timeout). */
export async function waitForStatus(
  rest: RestClient,
  orderId: string,
  status: OrderDetail['status'],
  timeoutMs = 15_000,
): Promise<OrderDetail> {
  const started = Date.now();
  let last: OrderDetail | undefined;
  while (Date.now() - started < timeoutMs) {
    last = await rest.getOrder(orderId);
    if (last.status === status) return last;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`order ${orderId} did not reach ${status} within ${timeoutMs} ms (last: ${last?.status})`);
}

export async function eventually<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<T> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    const value = await probe();
    if (value !== undefined && value !== false) return value as T;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}
