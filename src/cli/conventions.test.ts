import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../../test/support/devnet/dist.js';
import { runCli } from '../../test/support/devnet/processes.js';

/**
 * The exit-code table of README's commands section, enforced: every command × {bad usage, unreachable target,
 * --json}. A usage error exits 2 with one line and a hint (`--json`: the one error shape on stdout, nothing on
 * stderr's first line but progress); a sandbox that is not there, or does not answer, exits 2 and names the exact
 * command to start or check it, with the --state-dir that was passed.
 */

const dirs: string[] = [];
const tempDir = (name: string) => {
  const dir = mkdtempSync(join(tmpdir(), `sandbox-conventions-${name}-`));
  dirs.push(dir);
  return dir;
};
let empty: string;
let dead: string;

beforeAll(async () => {
  await ensureBuilt();
  empty = tempDir('empty');
  // A sandbox.json whose service is gone: the port answers nothing.
  dead = tempDir('dead');
  writeFileSync(
    join(dead, 'sandbox.json'),
    JSON.stringify({
      manifestVersion: 1,
      chains: [],
      accounts: { takers: [] },
      api: { url: 'http://127.0.0.1:9', apiKeys: ['svc_test_gone'] },
    }),
  );
}, 180_000);
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Every command with a wrong invocation of its own: what `sandbox <args>` must refuse with exit code 2. */
const BAD_USAGE: ReadonlyArray<readonly string[]> = [
  ['frobnicate'],
  ['up', '--detatch'],
  ['up', '--chains', '0'],
  ['up', '--solver-mode', 'psychic'],
  ['down', '--frobnicate'],
  ['status', 'extra-argument'],
  ['clock', 'advance'],
  ['clock', 'advance', '31hours'],
  ['clock', 'show', '--frobnicate'],
  ['keys', 'create', '--frobnicate'],
  ['keys', 'list', '--frobnicate'],
  ['conformance', '--profile', 'C'],
  ['conformance', 'verify'],
  ['certify', 'solver'],
  ['certify', 'webhook-receiver'],
  ['scenario', 'run', '--seed', 'x'],
  ['scenario', 'list', '--frobnicate'],
  ['ledger', 'verify', '--database-url', 'mysql://x'],
  ['webhooks', 'listen', '--frobnicate'],
  ['webhooks', 'test'],
  ['mailbox', '--frobnicate'],
  ['faucet'],
  ['fault', 'set'],
  ['relay', 'release', '--frobnicate'],
  ['trigger', 'order.frobnicated'],
  ['trigger'],
  ['demo'],
  ['demo', 'frobnicate'],
  ['demo', 'refund', '--lying-oracle'],
  ['completion', 'fish'],
];

/** Commands that act on a running sandbox: with none there (or one that does not answer) they exit 2. */
const NEEDS_SANDBOX: ReadonlyArray<readonly string[]> = [
  ['clock', 'advance', '1h'],
  ['clock', 'show'],
  ['keys', 'create'],
  ['keys', 'rotate'],
  ['keys', 'list'],
  ['webhooks', 'listen'],
  ['webhooks', 'list'],
  ['webhooks', 'test', 'wh_x'],
  ['webhooks', 'deliveries', 'wh_x'],
  ['mailbox'],
  ['faucet', '0x0000000000000000000000000000000000000001'],
  ['fault', 'list'],
  ['fault', 'set', 'solver.never-fill'],
  ['fault', 'clear'],
  ['relay', 'release'],
  ['trigger', 'order.settled'],
  ['demo', 'refund'],
];

const label = (args: readonly string[]) => `sandbox ${args.join(' ')}`;

/** A loopback port nobody listens on: bound once to learn a free one, then closed. */
async function closedPort(): Promise<number> {
  const { createServer } = await import('node:net');
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('usage errors: exit 2, one line and a hint; --json: the one error shape on stdout', () => {
  it.each(BAD_USAGE.map((args) => [label(args), args] as const))('%s', async (_name, args) => {
    const human = await runCli([...args, '--state-dir', empty]);
    expect(human.code, human.stderr).toBe(2);
    expect(human.stdout).toBe('');
    const lines = human.stderr.trimEnd().split('\n');
    expect(lines, human.stderr).toHaveLength(2);
    expect(lines[0]).toMatch(/^(\u001b\[\d+m)?error:/);
    expect(lines[1]).toMatch(/usage: `sandbox[\w -]* --help`/);

    const json = await runCli([...args, '--state-dir', empty, '--json']);
    expect(json.code, json.stderr).toBe(2);
    const body = JSON.parse(json.stdout);
    expect(Object.keys(body)).toEqual(['error']);
    expect(Object.keys(body.error)).toEqual(['code', 'message', 'docsPath']);
    expect(['usage_error', 'invalid_config']).toContain(body.error.code);
    expect(body.error.message).not.toContain('\n');
  });
});

describe('unreachable sandbox: exit 2, the exact command to run, the one error shape with --json', () => {
  it.each(NEEDS_SANDBOX.map((args) => [label(args), args] as const))('%s', async (_name, args) => {
    const missing = await runCli([...args, '--state-dir', empty]);
    expect(missing.code, missing.stderr).toBe(2);
    expect(missing.stderr).toContain(`start one: \`sandbox up --detach --state-dir ${empty}\``);
    const missingJson = await runCli([...args, '--state-dir', empty, '--json']);
    expect(missingJson.code).toBe(2);
    expect(JSON.parse(missingJson.stdout).error).toMatchObject({ code: 'not_running', docsPath: 'docs/devnet.md#state-folder' });

    if (args[0] === 'webhooks' && args[1] === 'listen') return; // listens before it registers: covered by the not-running row
    const gone = await runCli([...args, '--state-dir', dead, '--json']);
    expect(gone.code, gone.stdout).toBe(2);
    expect(JSON.parse(gone.stdout).error.code).toBe('service_unreachable');
    const goneHuman = await runCli([...args, '--state-dir', dead]);
    expect(goneHuman.stderr).toContain(`check it: \`sandbox status --state-dir ${dead}\``);
  });

  it('status and down report rather than fail: status exits 1 (scripts wait on it), down 0 (nothing to stop)', async () => {
    expect((await runCli(['status', '--state-dir', empty])).code).toBe(1);
    const down = await runCli(['down', '--state-dir', empty, '--json']);
    expect(down.code).toBe(0);
    expect(JSON.parse(down.stdout)).toMatchObject({ stopped: false });
  });

  it('certify webhook-receiver with nobody listening at --url exits 2 with one line naming the URL', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/webhooks`;
    const args = ['certify', 'webhook-receiver', '--url', url, '--secret', `whsec_${'ab'.repeat(16)}`, '--no-sign'];
    const human = await runCli(args);
    expect(human.code, human.stderr).toBe(2);
    expect(human.stdout).toBe('');
    const [line] = human.stderr.split('\n');
    expect(line).toMatch(/^(\u001b\[\d+m)?error:/);
    expect(line).toContain(`${url} does not answer (connection refused)`);
    const json = await runCli([...args, '--json']);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout).error.code).toBe('target_unreachable');
  });

  it('scenario run --target and conformance without a deployment exit 2', async () => {
    const scenario = await runCli(['scenario', 'run', '--target', empty, '--json']);
    expect(scenario.code).toBe(2);
    expect(JSON.parse(scenario.stdout).error.code).toBe('target_unusable');
    const conformance = await runCli(['conformance', '--state-dir', empty, '--json']);
    expect(conformance.code).toBe(2);
    expect(JSON.parse(conformance.stdout).error.code).toBe('usage_error');
  });
});

describe('help, pipes, completion, state folders', () => {
  it('every command shows the global options and examples in its help', async () => {
    for (const args of [['up'], ['down'], ['status'], ['ledger', 'verify'], ['conformance'], ['trigger'], ['clock', 'advance']]) {
      const help = await runCli([...args, '--help']);
      expect(help.code).toBe(0);
      expect(help.stdout, label(args)).toContain('--state-dir');
      expect(help.stdout, label(args)).toContain('--json');
      expect(help.stdout, label(args)).toContain('Examples:');
    }
  });

  it('a reader that closes the pipe early ends the command quietly (no EPIPE crash)', async () => {
    for (const command of ['scenario list', 'conformance --list']) {
      const piped = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
        import('node:child_process').then(({ exec }) => {
          exec(
            `node dist/src/cli/main.js ${command} | head -1 >/dev/null; echo "\${PIPESTATUS[0]}"`,
            { shell: '/bin/bash' },
            (_e, out, err) => resolve({ code: Number(out.trim()), stderr: err }),
          );
        });
      });
      expect(piped.stderr, command).not.toMatch(/EPIPE|Error/);
      expect(piped.code, command).toBe(0);
    }
  });

  it('sandbox completion bash|zsh prints a script built from the command tree', async () => {
    const bash = await runCli(['completion', 'bash']);
    expect(bash.code).toBe(0);
    expect(bash.stdout).toContain('complete -o default -F _sandbox_completions sandbox');
    expect(bash.stdout).toContain('"clock") words="advance show');
    const zsh = await runCli(['completion', 'zsh']);
    expect(zsh.stdout.startsWith('#compdef sandbox')).toBe(true);
    expect(zsh.stdout).toContain('trigger');
  });

  it('a state folder the file system refuses (/proc) fails fast with exit 2, not a hang', async () => {
    const started = Date.now();
    for (const detach of [[], ['--detach']]) {
      const up = await runCli(['up', ...detach, '--state-dir', '/proc/sandbox-state', '--chain-ports', 'any', '--json'], {
        timeoutMs: 20_000,
      });
      expect(up.code, up.stderr).toBe(2);
      const { error } = JSON.parse(up.stdout);
      expect(error.code).toBe('state_dir_unwritable');
      expect(error.message).toContain('cannot write the state folder at /proc/sandbox-state');
    }
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it('a state folder that cannot be written is a readable error, not errno text', async () => {
    const file = join(tempDir('file'), 'not-a-folder');
    writeFileSync(file, '');
    const up = await runCli(['up', '--state-dir', join(file, 'state'), '--chains', '1', '--chain-ports', 'any', '--json']);
    expect(up.code).toBe(2);
    const { error } = JSON.parse(up.stdout);
    expect(error.code).toBe('state_dir_unwritable');
    expect(error.message).toMatch(/cannot write the state folder at .*--state-dir/);
  });
});
