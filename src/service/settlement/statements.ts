import type { SqlStatement as Statement } from '../store/sql.js';
import type { Store } from '../store/store.js';

/**
 * Prepared statements by SQL text. Compiling a statement costs more than running it, and the settlement path runs the
 * same few dozen statements for every order.
 */
export class Statements {
  private readonly cache = new Map<string, Statement>();

  constructor(private readonly store: Store) {}

  get(sql: string): Statement {
    let statement = this.cache.get(sql);
    if (statement === undefined) {
      statement = this.store.db.prepare(sql);
      this.cache.set(sql, statement);
    }
    return statement;
  }
}
