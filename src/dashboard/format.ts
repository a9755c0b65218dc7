/** How the page writes amounts, hashes, times and ages. Pure: unit-tested in Node. */

/** `0x1234abcd…` → `0x1234…abcd`; short values unchanged. */
export function shortHash(value: string, keep = 4): string {
  if (value.length <= 2 + keep * 2 + 1) return value;
  return `${value.slice(0, 2 + keep)}…${value.slice(-keep)}`;
}

/** `ord_7k2m…` ids keep their prefix and a recognisable tail. */
export function shortId(value: string): string {
  const cut = value.indexOf('_');
  if (cut < 0 || value.length <= cut + 11) return value;
  return `${value.slice(0, cut + 1)}${value.slice(cut + 1, cut + 7)}…${value.slice(-3)}`;
}

/**
 * An integer amount in the token's smallest unit as a decimal number with thousands separators: exact (bigint),
 * trailing zeros dropped, at most `maxFraction` fraction digits (truncated, marked with `…`).
 */
export function formatUnits(raw: string, decimals: number, maxFraction = 6): string {
  if (!/^\d+$/.test(raw)) return raw;
  const value = BigInt(raw);
  const scale = 10n ** BigInt(decimals);
  const whole = (value / scale).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  if (decimals === 0) return whole;
  const fractionFull = (value % scale).toString().padStart(decimals, '0').replace(/0+$/, '');
  if (fractionFull === '') return whole;
  const fraction = fractionFull.slice(0, maxFraction);
  return `${whole}.${fraction}${fractionFull.length > maxFraction ? '…' : ''}`;
}

export function formatAmount(raw: string | undefined, token: { symbol: string; decimals: number } | undefined): string {
  if (raw === undefined) return '—';
  if (token === undefined) return raw;
  return `${formatUnits(raw, token.decimals)} ${token.symbol}`;
}

/** Ages and durations as people read them: `42 s`, `5 min`, `3 h 12 min`, `2 d 4 h`. */
export function formatAge(ms: number): string {
  if (!Number.isFinite(ms)) return '—';
  const s = Math.floor(Math.abs(ms) / 1_000);
  const sign = ms < 0 && s > 0 ? '-' : '';
  if (s < 60) return `${sign}${s} s`;
  const min = Math.floor(s / 60);
  if (min < 60) return `${sign}${min} min`;
  const h = Math.floor(min / 60);
  if (h < 24) return `${sign}${h} h${min % 60 === 0 ? '' : ` ${min % 60} min`}`;
  const d = Math.floor(h / 24);
  return `${sign}${d} d${h % 24 === 0 ? '' : ` ${h % 24} h`}`;
}

/** `2030-01-01 00:00:05 UTC`: the sandbox clock is a UTC clock; local zones would only confuse timelines. */
export function formatClock(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return '—';
  return `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

export function parseTime(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) {
    // Unix seconds on chain and in events, milliseconds elsewhere: nothing after 1973 is under 1e11 ms.
    return value < 1e11 ? value * 1_000 : value;
  }
  if (typeof value === 'string' && value !== '') {
    if (/^\d+$/.test(value)) return parseTime(Number(value));
    const ms = Date.parse(value);
    return Number.isNaN(ms) ? undefined : ms;
  }
  return undefined;
}
