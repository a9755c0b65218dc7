import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { ensureDir } from '../../devnet/state-dir.js';
import { dirname, join, resolve } from 'node:path';
import { usageExitsTree } from '../conventions.js';
import { type Command, Option } from 'commander';
import { checkProgress } from '../run-progress.js';
import { addImageOptions, type ImageFlags, imageOptions } from '../image-options.js';
import { exitCodeOf } from '../exit-codes.js';
import { globalOptions, printJson, reportError, UsageError } from '../output.js';

/**
 * `sandbox conformance`: checks a deployment against Reference A or B over the wire, writes JSON/JUnit/HTML
 * reports and signs the JSON one; `verify` checks a signed report, `coverage` lists every requirement with its
 * checks, `keygen` makes a signing key. Exit codes: 0 PASSED, 1 FAILED, 2 usage, unreachable target or a failed
 * pre-flight (refused API key, a chain that does not answer, unfunded takers), 3 INCOMPLETE (checks skipped for
 * what the target or the caller did not provide).
 */

const USAGE = 2;

interface RunFlags extends ImageFlags {
  target?: string;
  profile: string;
  apiKey?: string;
  workspace?: string;
  sandbox?: string;
  long?: boolean;
  seed?: string;
  only?: string[];
  exclude?: string[];
  tag?: string[];
  skipTag?: string[];
  expectedFailures?: string;
  report?: string;
  signingKey?: string;
  sign: boolean;
  timeout?: string;
  list?: boolean;
  capabilities?: boolean;
  takerKey?: string[];
  takerKeysFile?: string;
  rpc?: string[];
  expectedSkips?: string;
}

const repeated = (value: string, previous: string[] = []) => [...previous, value];

const DOCS = 'docs/conformance.md';

class UsageFailure extends UsageError {
  constructor(message: string) {
    super(message, DOCS);
  }
}

const commaList = (value: string, previous: string[] = []) => [
  ...previous,
  ...value
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean),
];

/** `json=FILE,junit=FILE,html=FILE` */
export function parseReportOption(value: string | undefined): Partial<Record<'json' | 'junit' | 'html', string>> {
  if (value === undefined) return {};
  const out: Partial<Record<'json' | 'junit' | 'html', string>> = {};
  for (const part of value
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [kind, ...rest] = part.split('=');
    const file = rest.join('=');
    if ((kind !== 'json' && kind !== 'junit' && kind !== 'html') || file.length === 0) {
      throw new UsageFailure(`--report takes json=FILE,junit=FILE,html=FILE; cannot read ${JSON.stringify(part)}`);
    }
    out[kind] = file;
  }
  return out;
}

function defaultSigningKeyPath(stateDir: string): string {
  return join(resolve(stateDir), 'conformance-signing-key.pem');
}

export function register(program: Command): void {
  const conformance = addImageOptions(
    program
      .command('conformance')
      .description('check a deployment against Reference A or B over the wire (HTTP, WebSocket, webhooks, JSON-RPC)')
      .option('--target <url>', 'base URL of the deployment (default: api.url of --sandbox or <state-dir>/sandbox.json)')
      .addOption(new Option('--profile <profile>', 'interface generation').choices(['A', 'B']).default('A'))
      .option('--api-key <key>', 'API key of the deployment (default: the first key of the sandbox file)')
      .option('--workspace <id>', 'workspace id of the key (settlement routes)')
      .option('--sandbox <file>', 'sandbox.json: funded accounts, chains, key, workspace (enables the positive flows)')
      .option(
        '--taker-key <key>',
        'private key of a funded taker account (repeatable): runs the order flows without sandbox.json',
        repeated,
      )
      .option('--taker-keys-file <file>', 'funded taker private keys, one per line (or a JSON array)')
      .option('--rpc <chainId=url>', "JSON-RPC URL for a chain where the target's own is not reachable (repeatable)", repeated)
      .option('--long', 'let timing checks wait in real time when the target has no sandbox clock')
      .option('--seed <n>', 'seed of the generated inputs (replays a run)')
      .option('--only <ids>', 'check ids or requirement ids, comma-separated, * allowed', commaList)
      .option('--exclude <ids>', 'check ids or requirement ids to leave out', commaList)
      .option('--tag <tags>', 'run checks with any of these tags', commaList)
      .option('--skip-tag <tags>', 'leave out checks with any of these tags', commaList)
      .option(
        '--expected-failures <file>',
        'checks expected to fail (JSON or one id per line); an expected failure that passes fails the run',
      )
      .option('--expected-skips <file>', 'checks whose skip is expected (same format): they do not make the run INCOMPLETE (exit 3)')
      .option('--report <spec>', 'write reports: json=FILE,junit=FILE,html=FILE')
      .option(
        '--signing-key <file>',
        'Ed25519 PKCS#8 PEM key that signs the JSON report (default <state-dir>/conformance-signing-key.pem, created once)',
      )
      .option('--no-sign', 'do not sign the JSON report'),
  )
    .option('--timeout <ms>', 'time limit per check', '60000')
    .option('--list', 'list the selected checks and exit')
    .option('--capabilities', 'report what the target offers (and which selected checks its gaps skip), then exit')
    .action(async (flags: RunFlags, command: Command) => {
      process.exitCode = await runCommand(flags, command);
    });

  conformance
    .command('verify')
    .description('verify a signed JSON report: exit 0 valid, 1 not')
    .argument('<report>', 'the JSON report')
    .option('--public-key <file>', 'require this signer (PEM or base64 SPKI)')
    .action(async (file: string, flags: { publicKey?: string }, command: Command) => {
      process.exitCode = await verifyCommand(file, flags, command);
    });

  conformance
    .command('coverage')
    .description('list every requirement of the catalogue with the checks that test it')
    .addOption(new Option('--profile <profile>', 'only this generation').choices(['A', 'B']))
    .action(async (flags: { profile?: 'A' | 'B' }, command: Command) => {
      const { json } = globalOptions(command);
      const { everyCheck, coverageText } = await import('../../../conformance/index.js');
      const checks = everyCheck().filter((c) => flags.profile === undefined || c.profiles.includes(flags.profile));
      const { text, report } = coverageText(checks);
      if (json) printJson({ ...report, entries: report.entries.map((e) => ({ ...e.requirement, checks: e.checks })) });
      else process.stdout.write(`${text}\n`);
      process.exitCode = report.uncoveredMust.length === 0 ? 0 : 1;
    });

  conformance
    .command('keygen')
    .description('create an Ed25519 key to sign reports with (PKCS#8 PEM, mode 0600) and print its key id')
    .requiredOption('--out <file>', 'where to write the private key (the public key goes to <file>.pub)')
    .action(async (flags: { out: string }, command: Command) => {
      const { json } = globalOptions(command);
      const { generateSigningKey, signingKeyToPem, keyIdOf } = await import('../../../conformance/index.js');
      if (existsSync(flags.out)) {
        reportError(new UsageFailure(`${flags.out} exists; not overwriting a key`), json, { exitCode: () => USAGE });
        return;
      }
      const key = generateSigningKey();
      const { privatePem, publicPem } = signingKeyToPem(key);
      ensureDir(dirname(resolve(flags.out)));
      writeFileSync(flags.out, privatePem, { mode: 0o600 });
      writeFileSync(`${flags.out}.pub`, publicPem);
      const keyId = keyIdOf(key.publicKey);
      if (json) printJson({ keyId, privateKey: flags.out, publicKey: `${flags.out}.pub` });
      else process.stdout.write(`Signing key ${keyId}\n  private ${flags.out}\n  public  ${flags.out}.pub\n`);
    });
  usageExitsTree(conformance);
}

async function runCommand(flags: RunFlags, command: Command): Promise<number> {
  const { json, stateDir } = globalOptions(command);
  const c = await import('../../../conformance/index.js');
  const progress = (line: string) => process.stderr.write(`› ${line}\n`);
  let stopImage: (() => Promise<void>) | undefined;
  try {
    const reports = parseReportOption(flags.report);
    const seed = flags.seed === undefined ? undefined : Number(flags.seed);
    if (seed !== undefined && !Number.isInteger(seed)) throw new UsageFailure(`--seed must be an integer, got ${flags.seed}`);
    const timeoutMs = Number(flags.timeout);
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0)
      throw new UsageFailure(`--timeout must be a positive number of ms, got ${flags.timeout}`);
    const selection = {
      ...(flags.only ? { only: flags.only } : {}),
      ...(flags.exclude ? { exclude: flags.exclude } : {}),
      ...(flags.tag ? { tags: flags.tag } : {}),
      ...(flags.skipTag ? { skipTags: flags.skipTag } : {}),
    };
    const profile = flags.profile as 'A' | 'B';
    if (flags.list) {
      const selected = c.selectChecks(c.allChecks(), profile, selection);
      if (json)
        printJson(selected.map((k) => ({ id: k.id, title: k.title, requirements: k.requirements, tags: k.tags, needs: k.needs ?? [] })));
      else for (const k of selected) process.stdout.write(`${k.id.padEnd(44)} ${k.requirements.join(',').padEnd(36)} ${k.title}\n`);
      return 0;
    }
    const expectedFailures = flags.expectedFailures ? c.readExpectedFailures(flags.expectedFailures) : undefined;
    const expectedSkips = flags.expectedSkips ? c.readExpectedFailures(flags.expectedSkips) : undefined;
    const takerKeys = [...(flags.takerKey ?? []), ...(flags.takerKeysFile ? readTakerKeys(flags.takerKeysFile) : [])];
    const rpc = new Map<number, string>();
    for (const entry of flags.rpc ?? []) {
      try {
        rpc.set(...c.parseRpcOverride(entry));
      } catch (error) {
        throw new UsageFailure((error as Error).message);
      }
    }
    const callerInputs = {
      ...(takerKeys.length === 0 ? {} : { takerKeys }),
      ...(rpc.size === 0 ? {} : { rpc }),
    };

    let sandboxFile = flags.sandbox;
    const implied = join(resolve(stateDir), 'sandbox.json');
    if (sandboxFile === undefined && flags.target === undefined && flags.image === undefined && existsSync(implied)) sandboxFile = implied;
    let url = flags.target;
    if (flags.image !== undefined) {
      if (!json) progress(`starting ${flags.image} (Docker)`);
      const started = await c.startImage(flags.image, await imageOptions(flags, json ? undefined : progress));
      stopImage = started.stop;
      url = started.url;
      sandboxFile ??= started.manifestFile;
      if (!json) progress(`${flags.image} ready in ${started.readyMs} ms at ${url}`);
    }
    if (url === undefined && sandboxFile === undefined) {
      throw new UsageFailure(`name the deployment: --target URL, --sandbox FILE or --image NAME (no ${implied})`);
    }

    if (flags.capabilities) {
      const discovered = await c.discoverTarget({
        profile,
        ...(url === undefined ? {} : { url }),
        ...(flags.apiKey === undefined ? {} : { apiKey: flags.apiKey }),
        ...(flags.workspace === undefined ? {} : { workspaceId: flags.workspace }),
        ...(sandboxFile === undefined ? {} : { sandbox: c.readSandboxFile(sandboxFile) }),
        long: flags.long === true,
        ...callerInputs,
      });
      // The same pre-flight as a run: a refused key or a silent chain is reported here too (exit 2).
      const { target } = await c.preflight(discovered);
      const report = c.capabilitiesReport(target, c.selectChecks(c.allChecks(), profile, selection), profile);
      if (json) printJson(report);
      else process.stdout.write(c.capabilitiesText(report));
      return 0;
    }

    let signingKey: ReturnType<typeof c.generateSigningKey> | undefined;
    if (flags.sign) {
      const path = flags.signingKey ?? defaultSigningKeyPath(stateDir);
      if (existsSync(path)) signingKey = c.signingKeyFromPem(readFileSync(path, 'utf8'));
      else if (flags.signingKey !== undefined)
        throw new UsageFailure(`--signing-key ${path} does not exist (create one with \`sandbox conformance keygen --out ${path}\`)`);
      else {
        signingKey = c.generateSigningKey();
        ensureDir(dirname(path));
        writeFileSync(path, c.signingKeyToPem(signingKey).privatePem, { mode: 0o600 });
        if (!json) progress(`created the report signing key ${path} (${c.keyIdOf(signingKey.publicKey)})`);
      }
    }

    const checks = checkProgress(json, c.consoleProgress);
    // The bar (or the JSON heartbeat) ends also when the run throws, so the error prints on a clean line.
    const run = await c
      .runConformance({
        profile,
        ...(url === undefined ? {} : { url }),
        ...(flags.apiKey === undefined ? {} : { apiKey: flags.apiKey }),
        ...(flags.workspace === undefined ? {} : { workspaceId: flags.workspace }),
        ...(sandboxFile === undefined ? {} : { sandbox: sandboxFile }),
        long: flags.long === true,
        ...(seed === undefined ? {} : { seed }),
        selection,
        ...(expectedFailures === undefined ? {} : { expectedFailures }),
        ...(expectedSkips === undefined ? {} : { expectedSkips }),
        ...callerInputs,
        ...(signingKey === undefined ? {} : { signingKey }),
        timeoutMs,
        onTarget: (target) => {
          if (!json) progress(`target ${target.url} (${target.environment}), Reference ${profile}`);
        },
        onPreflight: (lines) => {
          if (!json) for (const line of lines) progress(`pre-flight: ${line}`);
        },
        // What the target offers, and what its gaps will skip, heads the output of every run.
        onCapabilities: (report) => {
          if (!json) process.stdout.write(`${c.capabilitiesText(report)}\n`);
        },
        onResult: checks.onResult,
      })
      .finally(() => checks.end());
    if (reports.json) c.writeJsonReport(run.report, reports.json);
    if (reports.junit) c.writeJunitReport(run.report, reports.junit);
    if (reports.html) c.writeHtmlReport(run.report, reports.html);
    if (json) printJson(run.report);
    else {
      c.consoleSummary(run.report, process.stdout);
      for (const [kind, file] of Object.entries(reports)) process.stdout.write(`  ${kind} report: ${file}\n`);
      if (run.report.signature) process.stdout.write(`  signed by ${run.report.signature.keyId}\n`);
    }
    return run.exitCode;
  } catch (error) {
    const usage =
      error instanceof UsageFailure ||
      error instanceof c.UsageError ||
      error instanceof c.TargetUnreachable ||
      error instanceof c.PreflightRefused ||
      error instanceof c.NoDockerEngine ||
      error instanceof c.ImageNotReady ||
      error instanceof c.ImageOptionError ||
      (error as { name?: string }).name === 'SandboxFileError' ||
      (error as { name?: string }).name === 'ExpectedFailuresError';
    const exitCode = usage ? USAGE : exitCodeOf(error);
    reportError(error, json, { docsPath: DOCS, exitCode: () => exitCode, commandPath: 'sandbox conformance' });
    return exitCode;
  } finally {
    await stopImage?.();
  }
}

/** `--taker-keys-file`: one private key per line (`#` comments), or a JSON array of keys or of `{ privateKey }`. */
function readTakerKeys(path: string): string[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageFailure(`cannot read --taker-keys-file ${path}: ${(error as Error).message}`);
  }
  if (text.trim().startsWith('[')) {
    try {
      const parsed = JSON.parse(text) as unknown[];
      return parsed.map((entry) => (typeof entry === 'string' ? entry : String((entry as { privateKey?: unknown }).privateKey ?? '')));
    } catch {
      throw new UsageFailure(`--taker-keys-file ${path}: not a JSON array of keys`);
    }
  }
  return text
    .split(/\r?\n/)
    .map((line) => line.replace(/#.*$/, '').trim())
    .filter((line) => line.length > 0);
}

async function verifyCommand(file: string, flags: { publicKey?: string }, command: Command): Promise<number> {
  const { json } = globalOptions(command);
  const { verifyDocument } = await import('../../../conformance/index.js');
  let document: unknown;
  try {
    document = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    const message = `cannot read ${file} as JSON: ${(error as Error).message}`;
    if (json) printJson({ valid: false, reason: message });
    else process.stderr.write(`invalid: ${message}\n`);
    return 1;
  }
  let trusted: string | undefined;
  if (flags.publicKey !== undefined) {
    try {
      trusted = readFileSync(flags.publicKey, 'utf8');
    } catch {
      trusted = flags.publicKey;
    }
  }
  const outcome = verifyDocument(document, trusted);
  const summary = (document as { summary?: { verdict?: string }; target?: { url?: string; profile?: string } }) ?? {};
  if (json) printJson({ ...outcome, verdict: summary.summary?.verdict, target: summary.target });
  else if (outcome.valid) {
    process.stdout.write(
      `valid: signed by ${outcome.keyId} at ${outcome.signedAt}; Reference ${summary.target?.profile} ${summary.target?.url}: ${summary.summary?.verdict}\n`,
    );
  } else process.stdout.write(`invalid: ${outcome.reason}\n`);
  return outcome.valid ? 0 : 1;
}
