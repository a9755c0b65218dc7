/**
 * Escrow accounting of one input settler, per token: every amount that entered (Open) is claimed (Finalised),
 * refunded (Refunded) or still open, and what is open is exactly what the contract holds beyond what it held when
 * observation began. Pure: the chain observer feeds it logs and balances.
 */
export type Closing = 'claimed' | 'refunded';

export interface TokenTotals {
  escrowed: bigint;
  claimed: bigint;
  refunded: bigint;
}

export interface EscrowOrder {
  inputs: ReadonlyArray<readonly [token: string, amount: bigint]>;
  user: string;
  closedAs: Closing | undefined;
}

export class EscrowLedger {
  readonly orders = new Map<string, EscrowOrder>();
  readonly totals = new Map<string, TokenTotals>();
  /** Problems that break the accounting on their own (a second payout, a close of an order never opened). */
  readonly problems: string[] = [];
  /** Orders closed that were opened before observation began: their amounts are unknown. */
  unknownClosings = 0;

  private _totals(token: string): TokenTotals {
    const key = token.toLowerCase();
    let totals = this.totals.get(key);
    if (totals === undefined) {
      totals = { escrowed: 0n, claimed: 0n, refunded: 0n };
      this.totals.set(key, totals);
    }
    return totals;
  }

  open(orderId: string, user: string, inputs: ReadonlyArray<readonly [string, bigint]>): void {
    const id = orderId.toLowerCase();
    if (this.orders.has(id)) {
      this.problems.push(`order ${id} was opened twice`);
      return;
    }
    this.orders.set(id, { inputs, user: user.toLowerCase(), closedAs: undefined });
    for (const [token, amount] of inputs) this._totals(token).escrowed += amount;
  }

  close(orderId: string, as: Closing): void {
    const order = this.orders.get(orderId.toLowerCase());
    if (order === undefined) {
      this.unknownClosings += 1;
      return;
    }
    if (order.closedAs !== undefined) {
      this.problems.push(`order ${orderId} paid out twice: ${order.closedAs}, then ${as}`);
      return;
    }
    order.closedAs = as;
    for (const [token, amount] of order.inputs) this._totals(token)[as] += amount;
  }

  /** The identity for one token: escrowed = claimed + refunded + open, open = balance − baseline. */
  check(token: string, balance: bigint, baseline: bigint): string | undefined {
    const totals = this.totals.get(token.toLowerCase()) ?? { escrowed: 0n, claimed: 0n, refunded: 0n };
    const open = balance - baseline;
    if (totals.escrowed === totals.claimed + totals.refunded + open && open >= 0n) return undefined;
    return `escrowed ${totals.escrowed} ≠ claimed ${totals.claimed} + refunded ${totals.refunded} + open ${open} (balance ${balance}, baseline ${baseline})`;
  }

  /** What the settler should hold for orders observed: escrowed − claimed − refunded. */
  expectedOpen(token: string): bigint {
    const totals = this.totals.get(token.toLowerCase()) ?? { escrowed: 0n, claimed: 0n, refunded: 0n };
    return totals.escrowed - totals.claimed - totals.refunded;
  }
}
