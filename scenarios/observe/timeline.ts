/**
 * One timeline per order, as every channel saw it — API status and settlement stages, events per WebSocket
 * subscriber and per webhook receiver, on-chain logs, ledger entries, balance changes of the taker — and the
 * comparison with what a scenario expected, printed side by side when they differ.
 */
export interface ObservedTimeline {
  status: string;
  stages: string[];
  ws: Record<string, string[]>;
  webhooks: Record<string, string[]>;
  chain: string[];
  /** Undefined when the ledger cannot be read from here (a remote target on another machine). */
  ledger: string[] | undefined;
  balances: { input: bigint; output: bigint };
}

export interface ExpectedTimeline {
  status?: string;
  stages?: readonly string[];
  /** Events of the order on every stream (a list), or per stream name. */
  ws?: readonly string[] | Readonly<Record<string, readonly string[]>>;
  /** Distinct events of the order per receiver (a list for every receiver, or per receiver name). */
  webhooks?: readonly string[] | Readonly<Record<string, readonly string[]>>;
  chain?: readonly string[];
  ledger?: readonly string[];
  /** Taker's balance changes since just before the order: input (origin, negative when paid) and output. */
  balances?: { input?: bigint; output?: bigint };
}

export interface TimelineRow {
  field: string;
  expected: string;
  seen: string;
  /** `skipped`: the channel cannot be observed from here. */
  verdict: 'ok' | 'differs' | 'skipped';
}

export interface TimelineFormat {
  /** Turns a balance change into text (`−20,000.00 USDC`). */
  amount(field: 'input' | 'output', value: bigint): string;
}

const arrow = (items: readonly string[]) => (items.length === 0 ? '(none)' : items.join(' → '));

function perName(
  expected: readonly string[] | Readonly<Record<string, readonly string[]>>,
  names: string[],
): Record<string, readonly string[]> {
  if (Array.isArray(expected)) return Object.fromEntries(names.map((name) => [name, expected as readonly string[]]));
  return expected as Readonly<Record<string, readonly string[]>>;
}

function listRow(field: string, expected: readonly string[], seen: readonly string[] | undefined): TimelineRow {
  if (seen === undefined) return { field, expected: arrow(expected), seen: '(not observable from here)', verdict: 'skipped' };
  const same = expected.length === seen.length && expected.every((item, i) => item === seen[i]);
  return { field, expected: arrow(expected), seen: arrow(seen), verdict: same ? 'ok' : 'differs' };
}

/** Every expected field against what was seen; fields the scenario does not name are not compared. */
export function compareTimeline(expected: ExpectedTimeline, seen: ObservedTimeline, format: TimelineFormat): TimelineRow[] {
  const rows: TimelineRow[] = [];
  if (expected.status !== undefined) {
    rows.push({
      field: 'status',
      expected: expected.status,
      seen: seen.status,
      verdict: expected.status === seen.status ? 'ok' : 'differs',
    });
  }
  if (expected.stages !== undefined) rows.push(listRow('stages', expected.stages, seen.stages));
  if (expected.ws !== undefined) {
    for (const [name, list] of Object.entries(perName(expected.ws, Object.keys(seen.ws))))
      rows.push(listRow(`ws ${name}`, list, seen.ws[name] ?? []));
  }
  if (expected.webhooks !== undefined) {
    for (const [name, list] of Object.entries(perName(expected.webhooks, Object.keys(seen.webhooks)))) {
      rows.push(listRow(`webhook ${name}`, list, seen.webhooks[name] ?? []));
    }
  }
  if (expected.chain !== undefined) rows.push(listRow('chain', expected.chain, seen.chain));
  if (expected.ledger !== undefined) rows.push(listRow('ledger', expected.ledger, seen.ledger));
  for (const field of ['input', 'output'] as const) {
    const want = expected.balances?.[field];
    if (want === undefined) continue;
    const got = seen.balances[field];
    rows.push({
      field: `balance ${field}`,
      expected: format.amount(field, want),
      seen: format.amount(field, got),
      verdict: want === got ? 'ok' : 'differs',
    });
  }
  return rows;
}

export function timelineMatches(rows: readonly TimelineRow[]): boolean {
  return rows.every((row) => row.verdict !== 'differs');
}

/** The two timelines side by side, one line per field, differing lines marked. */
export function formatTimelineDiff(title: string, rows: readonly TimelineRow[]): string {
  const fieldWidth = Math.max(5, ...rows.map((r) => r.field.length));
  const expectedWidth = Math.min(64, Math.max(8, ...rows.map((r) => r.expected.length)));
  const mark = { ok: ' ', differs: '✗', skipped: '·' } as const;
  const lines = [`${title}`, `  ${' '.repeat(2)}${'field'.padEnd(fieldWidth)}  ${'expected'.padEnd(expectedWidth)}  seen`];
  for (const row of rows) {
    lines.push(
      `  ${mark[row.verdict]} ${row.field.padEnd(fieldWidth)}  ${row.expected.padEnd(expectedWidth)}  ${row.verdict === 'ok' ? '=' : row.seen}`,
    );
  }
  return lines.join('\n');
}
