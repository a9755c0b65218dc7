import { type Command, CommanderError } from 'commander';
import { EXIT_OK, EXIT_USAGE } from './exit-codes.js';
import { COMMANDS_DOCS, commandPath, dim, printJson, red } from './output.js';

/**
 * What every command of the program does alike, applied once to the whole tree after the commands registered:
 * a usage error commander finds (unknown command or option, missing argument, bad choice) exits 2 with one line
 * and a hint (`--json`: the one error shape on stdout), help and version exit 0, and a reader that goes away
 * (`sandbox scenario list | head`) ends the command quietly instead of crashing with EPIPE.
 */
export function applyConventions(program: Command, argv: readonly string[]): Command {
  const json = argv.includes('--json');
  const visit = (command: Command) => {
    command.exitOverride();
    command.configureOutput({
      outputError: (message) => reportUsage(command, message, json),
    });
    for (const sub of command.commands) visit(sub);
  };
  visit(program);
  endQuietlyOnClosedPipe();
  return program;
}

/** Runs the program; commander's own exits (help, version, usage errors) become exit codes here. */
export async function runProgram(program: Command, argv: readonly string[]): Promise<void> {
  try {
    await program.parseAsync([...argv]);
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    process.exitCode = error.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
  }
}

function reportUsage(command: Command, message: string, json: boolean): void {
  const line = message
    .replace(/^error:\s*/, '')
    .split('\n')
    .map((part) => part.trim())
    .filter(Boolean)
    .join(' ');
  if (json) {
    printJson({ error: { code: 'usage_error', message: line, docsPath: COMMANDS_DOCS } });
    return;
  }
  process.stderr.write(`${red('error:')} ${line}\n${dim(`  usage: \`${commandPath(command)} --help\``)}\n`);
}

let guarded = false;

/** EPIPE: the reader of stdout (or stderr) closed it; nothing more can be said, so stop without a stack. */
function endQuietlyOnClosedPipe(): void {
  if (guarded) return;
  guarded = true;
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(process.exitCode ?? EXIT_OK);
      throw error;
    });
  }
}

/**
 * For a command tree registered into a program that does not run `applyConventions` (the harness programs tests
 * build from one command's `register`): commander's usage errors exit 2 there too, help exits 0. The full program
 * replaces these overrides with its own (same codes, plus the one-line message and `--json` shape).
 */
export function usageExitsTree(command: Command): Command {
  command.exitOverride((error) => {
    process.exit(error.exitCode === 0 ? EXIT_OK : EXIT_USAGE);
  });
  for (const sub of command.commands) usageExitsTree(sub);
  return command;
}
