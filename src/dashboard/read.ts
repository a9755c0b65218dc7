/**
 * Tolerant readers for wire objects. The page reads routes that other modules own and that grow over time, so it
 * takes the first field present under any of the names it knows and ignores the rest.
 */
export type Json = Record<string, unknown>;

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function obj(value: unknown, ...keys: string[]): Json | undefined {
  if (!isObject(value)) return undefined;
  for (const key of keys) if (isObject(value[key])) return value[key] as Json;
  return undefined;
}

export function str(value: unknown, ...keys: string[]): string | undefined {
  if (!isObject(value)) return undefined;
  for (const key of keys) {
    const found = value[key];
    if (typeof found === 'string' && found !== '') return found;
  }
  return undefined;
}

export function num(value: unknown, ...keys: string[]): number | undefined {
  if (!isObject(value)) return undefined;
  for (const key of keys) {
    const found = value[key];
    if (typeof found === 'number' && Number.isFinite(found)) return found;
    if (typeof found === 'string' && /^\d+$/.test(found)) return Number(found);
    if (typeof found === 'string' && /^0x[0-9a-f]+$/i.test(found)) return Number.parseInt(found, 16);
  }
  return undefined;
}

/** A list under the first matching key, or the value itself when it is an array (page envelopes use `data`). */
export function list(value: unknown, ...keys: string[]): unknown[] {
  if (Array.isArray(value)) return value;
  if (!isObject(value)) return [];
  for (const key of keys) if (Array.isArray(value[key])) return value[key] as unknown[];
  return [];
}
