/**
 * The exit codes README's commands section promises, in one place: 0 success, 1 a failure the command found (a
 * failing check, a broken ledger, a refused request), 2 the command could not do its job as asked (a usage error,
 * or a target that does not answer), 3 INCOMPLETE (`conformance`/`certify`). Scripts branch on them, so an error's
 * code decides its exit code, never the command that happened to throw it.
 */
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;
export const EXIT_INCOMPLETE = 3;

/** Codes of an invocation that cannot run as written: fix the command line. */
const USAGE_CODES: ReadonlySet<string> = new Set(['usage_error', 'invalid_config', 'config_invalid']);

/** Codes of a target that is not there or does not answer: start it, or point at the right one. */
const UNREACHABLE_CODES: ReadonlySet<string> = new Set([
  'not_running',
  'service_not_ready',
  'service_unreachable',
  'target_unreachable',
  'target_unusable',
  'no_docker_engine',
  'image_not_ready',
  'state_dir_unwritable',
]);

export function errorCode(error: unknown): string | undefined {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : undefined;
}

export function isUsageError(error: unknown): boolean {
  const code = errorCode(error);
  return code !== undefined && USAGE_CODES.has(code);
}

export function isUnreachable(error: unknown): boolean {
  const code = errorCode(error);
  return code !== undefined && UNREACHABLE_CODES.has(code);
}

/** 2 for a usage error or an unreachable target, else 1. */
export function exitCodeOf(error: unknown): number {
  return isUsageError(error) || isUnreachable(error) ? EXIT_USAGE : EXIT_FAILURE;
}
