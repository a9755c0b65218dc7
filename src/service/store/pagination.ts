import type { SqlDatabase } from './sql.js';

/** Sort position of one row: its sort key, then its id to break ties. */
export interface PagePosition {
  key: number | string;
  id: string;
}

/**
 * A cursor names a gap between two rows rather than a row: just after or just before `position` in
 * display order. `after` a gap gives the rows that follow it, `before` the rows that precede it, so a
 * walk forward from any cursor and a walk backward from the same cursor partition the list exactly.
 */
export interface PageGap {
  position: PagePosition;
  side: 'after' | 'before';
}

export interface PageRequest {
  limit: number;
  /** With `before` too: the rows between the two gaps, walked forward; `before` bounds the walk. */
  after?: PageGap | undefined;
  before?: PageGap | undefined;
}

export interface Page<Row> {
  /** In display order, whichever direction was walked. */
  items: Row[];
  /** More rows exist beyond this page in the direction walked. */
  hasMore: boolean;
  /** The gap to pass to continue in the same direction; present exactly when `hasMore`. */
  next: PageGap | undefined;
  total: number;
}

export interface KeysetQuery<Row> {
  /** Table or view name; trusted code only (it is interpolated). */
  from: string;
  /** SQL condition without `WHERE`, e.g. `workspace_id = ?`; `1=1` for all rows. */
  where: string;
  params: readonly unknown[];
  /** Column ordering rows; ties broken by `idColumn`. */
  sortColumn: string;
  idColumn?: string;
  /** Display order; `desc` = newest first, as list endpoints usually show. */
  order: 'asc' | 'desc';
  request: PageRequest;
  position(row: Row): PagePosition;
  columns?: string;
}

/** Keyset pagination over one table: stable under inserts, no OFFSET scans. */
export function keysetPage<Row>(db: SqlDatabase, query: KeysetQuery<Row>): Page<Row> {
  const { request } = query;
  const idColumn = query.idColumn ?? 'id';
  const tuple = `(${query.sortColumn}, ${idColumn})`;
  // Both gaps: the rows between them, walked forward from `after`; `before` only bounds the walk.
  const backward = request.before !== undefined && request.after === undefined;
  // "Later in display order" is a smaller tuple when showing newest first.
  const later = query.order === 'desc' ? '<' : '>';
  const earlier = query.order === 'desc' ? '>' : '<';
  const conditions = [`(${query.where})`];
  const params: unknown[] = [...query.params];
  if (request.after !== undefined) {
    const gap = request.after;
    // Rows after the gap: after a row excludes it, before a row includes it.
    conditions.push(`${tuple} ${later}${gap.side === 'before' ? '=' : ''} (?, ?)`);
    params.push(gap.position.key, gap.position.id);
  }
  if (request.before !== undefined) {
    const gap = request.before;
    conditions.push(`${tuple} ${earlier}${gap.side === 'after' ? '=' : ''} (?, ?)`);
    params.push(gap.position.key, gap.position.id);
  }
  const direction = (query.order === 'desc') !== backward ? 'DESC' : 'ASC';
  const sql =
    `SELECT ${query.columns ?? '*'} FROM ${query.from} WHERE ${conditions.join(' AND ')} ` +
    `ORDER BY ${query.sortColumn} ${direction}, ${idColumn} ${direction} LIMIT ?`;
  const rows = db.prepare(sql).all(...params, request.limit + 1) as Row[];
  const hasMore = rows.length > request.limit;
  const items = rows.slice(0, request.limit);
  if (backward) items.reverse();
  let next: PageGap | undefined;
  if (hasMore) {
    next = backward
      ? { position: query.position(items[0]!), side: 'before' }
      : { position: query.position(items[items.length - 1]!), side: 'after' };
  }
  const total = (db.prepare(`SELECT COUNT(*) AS n FROM ${query.from} WHERE ${query.where}`).get(...query.params) as { n: number }).n;
  return { items, hasMore, next, total };
}
