/**
 * Reference B names a trade's settlement `stl_…`; the service keeps one settlement per order. The two ids share
 * their random part, so the mapping needs no table and holds for every order, also orders created through
 * Reference A or before a restart. Clients should still treat both ids as opaque.
 */
const ORDER = /^ord_([0-9a-z]{1,64})$/;
const SETTLEMENT = /^stl_([0-9a-z]{1,64})$/;

export function settlementIdOf(orderId: string): string {
  const match = ORDER.exec(orderId);
  if (match === null) throw new Error(`not an order id: ${orderId}`);
  return `stl_${match[1]}`;
}

/** The order behind a settlement id, or undefined when the text is not one. */
export function orderIdOf(settlementId: string): string | undefined {
  const match = SETTLEMENT.exec(settlementId);
  return match === null ? undefined : `ord_${match[1]}`;
}
