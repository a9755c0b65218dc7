import { dim, red, yellow } from '../terminal/style.js';
import { BaseError } from '../contracts/errors/base-error.js';
import type { Command } from 'commander';
import { exitCodeOf, isUsageError } from './exit-codes.js';
import { commandFor } from './hints.js';

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

/** A command used wrongly (a flag's value, a missing argument): exit code 2 (see exit-codes.ts). */
export class UsageError extends BaseError {
  override readonly name = 'UsageError';
  override readonly code = 'usage_error';
  constructor(message: string, docsPath?: string) {
    super(message, { docsPath });
  }
}

/**
 * A state folder the command cannot write (permissions, a read-only file system, a file where a folder should be):
 * node's errno text (`EACCES: permission denied, mkdir …`) names neither the flag nor the fix.
 */
export class StateDirUnwritableError extends BaseError {
  override readonly name = 'StateDirUnwritableError';
  override readonly code = 'state_dir_unwritable';
  constructor(path: string, reason: string, cause: unknown) {
    super(`cannot write the state folder at ${path} (${reason}): pass a writable one with --state-dir`, {
      docsPath: 'docs/devnet.md#state-folder',
      cause,
    });
  }
}

const FILE_SYSTEM_REFUSALS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENOTDIR: 'a file stands where a folder should be',
  EEXIST: 'a file stands where a folder should be',
  ENOSPC: 'no space left on the device',
};

/** Node's file-system refusals become the one readable error; everything else passes through unchanged. */
function readableError(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const { code, path, syscall } = error as NodeJS.ErrnoException;
  if (code === undefined || path === undefined || syscall === undefined) return error;
  // ENOENT from mkdir once the parents exist (devnet/state-dir.ts ensureDir makes them): the file system refuses
  // folders there (/proc, a read-only pseudo file system). ENOENT elsewhere is a missing file, not a refusal.
  const reason = code === 'ENOENT' && syscall === 'mkdir' ? 'the file system refuses to create a folder there' : FILE_SYSTEM_REFUSALS[code];
  if (reason === undefined || !/^(mkdir|open|write|rename|copyfile|unlink|access)/.test(syscall)) return error;
  return new StateDirUnwritableError(path, reason, error);
}

/** Errors we expect carry a string `code` (and maybe a `docsPath`); anything else is a bug. */
function errorFields(error: unknown): { code: string | undefined; docsPath: string | undefined } {
  if (typeof error !== 'object' || error === null) return { code: undefined, docsPath: undefined };
  const { code, docsPath } = error as { code?: unknown; docsPath?: unknown };
  return { code: typeof code === 'string' ? code : undefined, docsPath: typeof docsPath === 'string' ? docsPath : undefined };
}

/** Messages are one line on a terminal and in `--json` (commander's "Did you mean" comes on a line of its own). */
function oneLine(message: string): string {
  return message
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .join(' ');
}

export function toJsonError(error: unknown, docsPath: string = COMMANDS_DOCS): JsonError {
  const readable = readableError(error);
  const fields = errorFields(readable);
  return {
    error: {
      code: fields.code ?? 'internal_error',
      message: oneLine(readable instanceof Error ? readable.message : String(readable)),
      docsPath: fields.docsPath ?? docsPath,
    },
  };
}

export interface ErrorReporting {
  /** Docs page of the command, for errors without a section of their own (default: the README's commands table). */
  docsPath?: string;
  /** Exit code of a failure (default: by the error's code, exit-codes.ts: 2 usage or unreachable target, else 1). */
  exitCode?: (error: unknown) => number;
  /** The command as typed (`sandbox clock advance`): a usage error points at its `--help`. */
  commandPath?: string;
  /** The state folder the command acted on: a hint names it when it is not the default. */
  stateDir?: string;
}

/**
 * Reports a failed command and sets its exit code. With `--json`, stdout gets the one error shape; otherwise
 * stderr gets one line with the message and one with the hint (the exact command to run, or the docs section) of
 * an expected error, or the stack of a bug.
 */
export function reportError(error: unknown, json: boolean, reporting: ErrorReporting = {}): void {
  const readable = readableError(error);
  process.exitCode = reporting.exitCode?.(readable) ?? exitCodeOf(readable);
  if (json) {
    printJson(toJsonError(readable, reporting.docsPath));
    return;
  }
  const { code, docsPath } = errorFields(readable);
  if (code === undefined) {
    process.stderr.write(`${red('error:')} ${readable instanceof Error ? (readable.stack ?? readable.message) : String(readable)}\n`);
    return;
  }
  process.stderr.write(`${red('error:')} ${oneLine((readable as Error).message ?? String(readable))}\n`);
  const hint = hintFor(readable, reporting, docsPath);
  if (hint) process.stderr.write(dim(`  ${hint}\n`));
}

function hintFor(error: unknown, reporting: ErrorReporting, docsPath: string | undefined): string | undefined {
  const docs = docsPath ?? reporting.docsPath;
  if (isUsageError(error) && reporting.commandPath !== undefined) {
    return `usage: \`${reporting.commandPath} --help\`${docs ? ` · docs: ${docs}` : ''}`;
  }
  const stateDir = reporting.stateDir ?? DEFAULT_STATE_DIR;
  const code = errorFields(error).code;
  if (code === 'not_running') return `start one: \`${commandFor(stateDir, 'up --detach')}\``;
  if (code === 'service_unreachable' || code === 'service_not_ready') return `check it: \`${commandFor(stateDir, 'status')}\``;
  return docs ? `see ${docs}` : undefined;
}

/** `sandbox clock advance`: the words of a command from the program down, for hints. */
export function commandPath(command: Command): string {
  const names: string[] = [];
  for (let current: Command | null = command; current !== null; current = current.parent) names.unshift(current.name());
  return names.join(' ');
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
      reportError(error, options.json, { commandPath: commandPath(command), stateDir: options.stateDir, ...reporting });
    }
  };
}

export { bold, cyan, dim, green, red, table, yellow } from '../terminal/style.js';
