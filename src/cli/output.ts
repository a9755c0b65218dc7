import { dim, red, yellow } from '../terminal/style.js';
import { BaseError } from '../contracts/errors/base-error.js';
import type { Command } from 'commander';

/**
 * Printing for both audiences of every command: people (progress on stderr, readable text on stdout) and
 * scripts (`--json`: exactly one JSON document on stdout, nothing else there, errors included).
 */

/** Options every command gets from the program (main.ts): `--json` and `--state-dir`. */
export interface GlobalOptions {
  json: boolean;
  stateDir: string;
}

import { DEFAULT_STATE_DIR } from '../devnet/state-dir.js';

export { DEFAULT_STATE_DIR };

/** Declares the program options every command reads (main.ts; tests that build a program of a few commands). */
export function addGlobalOptions(program: Command): Command {
  return program
    .option('--json', 'machine-readable output: one JSON document on stdout')
    .option('--state-dir <path>', 'state folder of the sandbox', DEFAULT_STATE_DIR)
    .configureHelp({ showGlobalOptions: true });
}

export function globalOptions(command: Command): GlobalOptions {
  const options = command.optsWithGlobals<{ json?: boolean; stateDir?: string }>();
  return { json: options.json === true, stateDir: options.stateDir ?? DEFAULT_STATE_DIR };
}

export interface Output {
  readonly json: boolean;
  /** A step in progress, for people only (stderr, so that stdout stays parseable). */
  progress(message: string): void;
  /** The result: `human` text for people, `value` as JSON for scripts. */
  result(human: string | (() => string), value: unknown): void;
  /** A warning that does not stop the command. */
  warn(message: string): void;
}

export function createOutput(json: boolean): Output {
  return {
    json,
    progress(message) {
      if (!json) process.stderr.write(`${dim('›')} ${message}\n`);
    },
    result(human, value) {
      if (json) printJson(value);
      else process.stdout.write(`${typeof human === 'function' ? human() : human}\n`);
    },
    warn(message) {
      if (json) process.stderr.write(`${JSON.stringify({ warning: message })}\n`);
      else process.stderr.write(`${yellow('warning:')} ${message}\n`);
    },
  };
}

export function printJson(value: unknown): void {
  process.stdout.write(`${toJson(value)}\n`);
}

/** JSON with bigints as decimal strings (amounts on chain exceed 2^53). */
export function toJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v), 2);
}

/**
 * The one shape of an error for scripts: `{ "error": { "code", "message", "docsPath" } }`, every key always present.
 * `code` is stable (the error's own, or `internal_error` for a bug); `docsPath` is the section that explains the
 * fix, else the docs page of the command.
 */
export interface JsonError {
  error: { code: string; message: string; docsPath: string };
}

/** Where an error without a docs section of its own points: the commands table of the README. */
export const COMMANDS_DOCS = 'README.md#commands';

/** A command used wrongly (a flag's value, a missing argument): exit code 1, or 2 for the harness commands. */
export class UsageError extends BaseError {
  override readonly name = 'UsageError';
  override readonly code = 'usage_error';
  constructor(message: string, docsPath?: string) {
    super(message, { docsPath });
  }
}

/** Errors we expect carry a string `code` (and maybe a `docsPath`); anything else is a bug. */
function errorFields(error: unknown): { code: string | undefined; docsPath: string | undefined } {
  if (typeof error !== 'object' || error === null) return { code: undefined, docsPath: undefined };
  const { code, docsPath } = error as { code?: unknown; docsPath?: unknown };
  return { code: typeof code === 'string' ? code : undefined, docsPath: typeof docsPath === 'string' ? docsPath : undefined };
}

export function toJsonError(error: unknown, docsPath: string = COMMANDS_DOCS): JsonError {
  const fields = errorFields(error);
  return {
    error: {
      code: fields.code ?? 'internal_error',
      message: error instanceof Error ? error.message : String(error),
      docsPath: fields.docsPath ?? docsPath,
    },
  };
}

export interface ErrorReporting {
  /** Docs page of the command, for errors without a section of their own (default: the README's commands table). */
  docsPath?: string;
  /** Exit code of a failure (default 1); the harness commands answer 2 for usage errors. */
  exitCode?: (error: unknown) => number;
}

/**
 * Reports a failed command and sets its exit code. With `--json`, stdout gets the one error shape; otherwise
 * stderr gets the message (and docs path) of an expected error, or the stack of a bug.
 */
export function reportError(error: unknown, json: boolean, reporting: ErrorReporting = {}): void {
  process.exitCode = reporting.exitCode?.(error) ?? 1;
  if (json) {
    printJson(toJsonError(error, reporting.docsPath));
    return;
  }
  const { code, docsPath } = errorFields(error);
  if (code !== undefined) {
    process.stderr.write(`${red('error:')} ${(error as Error).message ?? String(error)}\n${docsPath ? dim(`  see ${docsPath}\n`) : ''}`);
  } else {
    process.stderr.write(`${red('error:')} ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  }
}

/**
 * The one way a command runs: commander calls the returned function with the command's arguments, its flags and
 * itself; `run` gets the output (people or `--json`), the program options and those arguments. A thrown error is
 * reported by `reportError`; a verdict (a broken ledger, a failed check) sets `process.exitCode` itself.
 */
export function action<A extends unknown[]>(
  run: (output: Output, options: GlobalOptions, ...args: A) => Promise<void>,
  reporting: ErrorReporting = {},
): (...args: [...A, Command]) => Promise<void> {
  return async (...args) => {
    const command = args[args.length - 1] as Command;
    const options = globalOptions(command);
    try {
      await run(createOutput(options.json), options, ...(args.slice(0, -1) as A));
    } catch (error) {
      reportError(error, options.json, reporting);
    }
  };
}

export { bold, cyan, dim, green, red, table, yellow } from '../terminal/style.js';
