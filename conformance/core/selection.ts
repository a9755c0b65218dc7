import { readFileSync } from 'node:fs';
import type { CheckDefinition, Profile } from './types.js';
import { BaseError } from '../../src/contracts/errors/base-error.js';

/** Which checks a run includes: ids or requirement ids (globs allowed), tags to include and to leave out. */
export interface Selection {
  /** Check ids (`quotes.*`) or requirement ids (`A-ORD-003`, `X-WH-*`); a check matching any is included. */
  only?: string[];
  /** Check ids or requirement ids to leave out. */
  exclude?: string[];
  /** A check needs at least one of these tags. */
  tags?: string[];
  /** A check with any of these tags is left out. */
  skipTags?: string[];
}

function globToRegExp(pattern: string): RegExp {
  const escaped = pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*');
  return new RegExp(`^${escaped}$`, 'i');
}

function matchesAny(check: { id: string; requirements: readonly string[] }, patterns: readonly string[]): boolean {
  return patterns.some((pattern) => {
    const re = globToRegExp(pattern);
    return re.test(check.id) || check.requirements.some((r) => re.test(r));
  });
}

export function selectChecks<C extends CheckDefinition<never>>(checks: readonly C[], profile: Profile, selection: Selection = {}): C[] {
  return checks.filter((check) => {
    if (!check.profiles.includes(profile)) return false;
    if (selection.only && selection.only.length > 0 && !matchesAny(check, selection.only)) return false;
    if (selection.exclude && matchesAny(check, selection.exclude)) return false;
    if (selection.tags && selection.tags.length > 0 && !check.tags.some((t) => selection.tags!.includes(t))) return false;
    if (selection.skipTags && check.tags.some((t) => selection.skipTags!.includes(t))) return false;
    return true;
  });
}

export interface ExpectedFailure {
  check: string;
  reason: string;
}

export class ExpectedFailuresError extends BaseError {
  override readonly name = 'ExpectedFailuresError';
  override readonly code = 'usage_error';
}

/**
 * The expected-failures file, for CI that tracks known gaps: JSON (`[{"check": "...", "reason": "..."}]` or
 * `{"<check id>": "<reason>"}`) or text, one check id per line with an optional `# reason`.
 */
export function parseExpectedFailures(text: string, source = 'expected-failures file'): ExpectedFailure[] {
  const trimmed = text.trim();
  if (trimmed.startsWith('[') || trimmed.startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch (error) {
      throw new ExpectedFailuresError(`${source}: not valid JSON (${(error as Error).message})`);
    }
    if (Array.isArray(parsed)) {
      return parsed.map((entry, i) => {
        if (typeof entry === 'string') return { check: entry, reason: '' };
        const e = entry as { check?: unknown; id?: unknown; reason?: unknown };
        const check = typeof e.check === 'string' ? e.check : typeof e.id === 'string' ? e.id : undefined;
        if (check === undefined) throw new ExpectedFailuresError(`${source}: entry ${i} has no "check"`);
        return { check, reason: typeof e.reason === 'string' ? e.reason : '' };
      });
    }
    return Object.entries(parsed as Record<string, unknown>).map(([check, reason]) => ({
      check,
      reason: typeof reason === 'string' ? reason : '',
    }));
  }
  return trimmed
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line.length > 0 && !line.startsWith('#'))
    .map((line) => {
      const [check, ...rest] = line.split('#');
      return { check: check!.trim(), reason: rest.join('#').trim() };
    });
}

export function readExpectedFailures(path: string): ExpectedFailure[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ExpectedFailuresError(`cannot read the expected-failures file ${path}: ${(error as Error).message}`);
  }
  return parseExpectedFailures(text, path);
}
