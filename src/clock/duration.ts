const UNIT_MS: Record<string, number> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

const PART = /(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)/gy;

/**
 * Parses durations as people type them: `31h`, `1h30m`, `90s`, `500ms`, `2d 4h`, `1.5h`.
 * A bare number means seconds. Throws RangeError on anything else, naming the input.
 */
export function parseDuration(text: string): number {
  const input = text.trim().toLowerCase();
  if (/^\d+(\.\d+)?$/.test(input)) return Math.round(Number(input) * 1_000);
  let total = 0;
  let index = 0;
  let parts = 0;
  while (index < input.length) {
    if (input[index] === ' ') {
      index += 1;
      continue;
    }
    PART.lastIndex = index;
    const match = PART.exec(input);
    if (match === null) break;
    total += Number(match[1]) * UNIT_MS[match[2]!]!;
    index = PART.lastIndex;
    parts += 1;
  }
  if (parts === 0 || index < input.length || !Number.isFinite(total)) {
    throw new RangeError(`invalid duration "${text}": use e.g. 31h, 1h30m, 90s, 500ms or 2d`);
  }
  return Math.round(total);
}

/** `111_035_000` → `1d 6h 50m 35s`; sub-second remainders shown as ms. */
export function formatDuration(ms: number): string {
  const sign = ms < 0 ? '-' : '';
  let rest = Math.abs(Math.round(ms));
  const parts: string[] = [];
  for (const [unit, size] of [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1_000],
    ['ms', 1],
  ] as const) {
    const count = Math.floor(rest / size);
    rest -= count * size;
    if (count > 0) parts.push(`${count}${unit}`);
  }
  return parts.length === 0 ? '0s' : sign + parts.join(' ');
}
