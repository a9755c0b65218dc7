/**
 * Text for people on a terminal: colours (only on a TTY, and never with NO_COLOR) and padded tables. Its own
 * layer so that the CLI, the scenario reporter and the harnesses style output alike without importing each other.
 */

/** A plain text table: columns padded to their widest cell. */
export function table(rows: ReadonlyArray<readonly string[]>, indent = '  '): string {
  const widths: number[] = [];
  for (const row of rows)
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, visibleLength(cell));
    });
  return rows.map((row) => indent + row.map((cell, i) => (i === row.length - 1 ? cell : pad(cell, widths[i] ?? 0))).join('  ')).join('\n');
}

const colorEnabled = (): boolean => process.stdout.isTTY === true && !process.env.NO_COLOR;
const paint = (code: string) => (text: string) => (colorEnabled() ? `\u001b[${code}m${text}\u001b[0m` : text);
export const bold = paint('1');
export const dim = paint('2');
export const red = paint('31');
export const green = paint('32');
export const yellow = paint('33');
export const cyan = paint('36');

// eslint-disable-next-line no-control-regex
const visibleLength = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '').length;
const pad = (text: string, width: number) => text + ' '.repeat(Math.max(0, width - visibleLength(text)));
