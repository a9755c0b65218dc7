import { ApiRequestError, type OrderDetail, type RestClient } from '../../../src/clients/rest-client.js';

/**
 * Polls the public order route until the order reaches `status` (wall-time timeout). An order whose deposit has not
 * landed yet reads 404 (it is not an order until then): that counts as not there yet.
 */
export async function waitForStatus(
  rest: RestClient,
  orderId: string,
  status: OrderDetail['status'],
  timeoutMs = 15_000,
): Promise<OrderDetail> {
  const started = Date.now();
  let last: OrderDetail | undefined;
  while (Date.now() - started < timeoutMs) {
    try {
      last = await rest.getOrder(orderId);
      if (last.status === status) return last;
    } catch (error) {
      if (!(error instanceof ApiRequestError && error.status === 404)) throw error;
    }
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
