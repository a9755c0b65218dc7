import { resolve } from 'node:path';
import { DEFAULT_STATE_DIR } from '../devnet/state-dir.js';

/**
 * The exact command a hint tells people to run. A sandbox started with `--state-dir X` is stopped, queried and
 * advanced with `--state-dir X` too; a hint without it sends them to the default folder, where nothing runs.
 */
export function commandFor(stateDir: string, command: string): string {
  const custom = resolve(stateDir) !== resolve(DEFAULT_STATE_DIR);
  return `sandbox ${command}${custom ? ` --state-dir ${shellQuote(stateDir)}` : ''}`;
}

/** Quotes a word for a POSIX shell only when it needs it, so the common case stays readable. */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
