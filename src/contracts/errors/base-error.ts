/**
 * The one root of the project's errors, after viem's BaseError: a short message for people, optional details,
 * the docs page that explains the fix, a stable `code` for scripts and clients, and a walk down the `cause`
 * chain. It lives in the lowest layer so that every layer (devnet, service, clients, CLI, harnesses) can extend
 * it, and `instanceof BaseError` tells the project's own errors from everything else.
 *
 * Unlike viem's, the message is the short message as given: rendered errors (HTTP bodies, `--json` output, CLI
 * lines) are part of the wire contract. For the same reason the optional fields become own properties only when
 * they are given, so an error without a code still reads as "no code" to the renderers that test for one.
 */

export interface BaseErrorOptions<Code extends string | number = string> {
  /** Stable machine-readable code; string codes are listed in the registry (src/contracts/errors/error-codes.ts). */
  code?: Code | undefined;
  /** A longer explanation, kept apart from the short message. */
  details?: string | undefined;
  /** The docs section that explains the fix, e.g. `docs/devnet.md#ports`. */
  docsPath?: string | undefined;
  cause?: unknown;
}

/** How deep `walk` follows causes before it stops (a guard against cycles). */
const MAX_CAUSE_DEPTH = 32;

export class BaseError<Code extends string | number = string> extends Error {
  declare readonly code?: Code | undefined;
  declare readonly details?: string | undefined;
  declare readonly docsPath?: string | undefined;

  constructor(shortMessage: string, options: BaseErrorOptions<Code> = {}) {
    super(shortMessage, options.cause === undefined ? undefined : { cause: options.cause });
    const self = this as { -readonly [K in 'code' | 'details' | 'docsPath']?: BaseError<Code>[K] };
    if (options.code !== undefined) self.code = options.code;
    if (options.details !== undefined) self.details = options.details;
    if (options.docsPath !== undefined) self.docsPath = options.docsPath;
  }

  /** The message without details: what a person reads first. */
  get shortMessage(): string {
    return this.message;
  }

  /**
   * Walks this error and its causes. With `fn`, returns the first error `fn` accepts (or null); without it,
   * the innermost cause.
   */
  walk(): unknown;
  walk(fn: (error: unknown) => boolean): unknown | null;
  walk(fn?: (error: unknown) => boolean): unknown | null {
    return walkCauses(this, fn);
  }
}

/** `walk` for any thrown value, project error or not (viem and node wrap their errors in `cause` too). */
export function walkCauses(error: unknown, fn?: (error: unknown) => boolean): unknown | null {
  let current: unknown = error;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH; depth++) {
    if (fn?.(current)) return current;
    const cause = current instanceof Error ? (current as Error & { cause?: unknown }).cause : undefined;
    if (cause === undefined) return fn === undefined ? current : null;
    current = cause;
  }
  return fn === undefined ? current : null;
}
