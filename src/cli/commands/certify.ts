import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { ensureDir } from '../../devnet/state-dir.js';
import { dirname, join, resolve } from 'node:path';
import { usageExitsTree } from '../conventions.js';
import { type Command, Option } from 'commander';
import { checkProgress } from '../run-progress.js';
import { globalOptions, printJson, reportError } from '../output.js';
import { parseReportOption } from './conformance.js';
import { sandboxClockOffset } from '../../api/webhook-listener.js';

/**
 * `sandbox certify webhook-receiver|solver`: the harness plays the service's side against a receiver or a solver
 * under test and reports like `sandbox conformance` (signed JSON, JUnit, HTML). Exit codes: 0 certified, 1 a
 * failure, 2 usage.
 */

const USAGE = 2;

interface CommonFlags {
  report?: string;
  signingKey?: string;
  sign: boolean;
}

async function loadSigningKey(flags: CommonFlags, stateDir: string, json: boolean) {
  if (!flags.sign) return undefined;
  const c = await import('../../../conformance/index.js');
  const path = flags.signingKey ?? join(resolve(stateDir), 'conformance-signing-key.pem');
  if (existsSync(path)) return c.signingKeyFromPem(readFileSync(path, 'utf8'));
  if (flags.signingKey !== undefined) throw new c.UsageError(`--signing-key ${path} does not exist`);
  const key = c.generateSigningKey();
  ensureDir(dirname(path));
  writeFileSync(path, c.signingKeyToPem(key).privatePem, { mode: 0o600 });
  if (!json) process.stderr.write(`› created the report signing key ${path} (${c.keyIdOf(key.publicKey)})\n`);
  return key;
}

async function writeReports(
  report: import('../../../conformance/index.js').ConformanceReport,
  spec: string | undefined,
  json: boolean,
): Promise<void> {
  const c = await import('../../../conformance/index.js');
  const reports = parseReportOption(spec);
  if (reports.json) c.writeJsonReport(report, reports.json);
  if (reports.junit) c.writeJunitReport(report, reports.junit);
  if (reports.html) c.writeHtmlReport(report, reports.html);
  if (json) printJson(report);
  else {
    c.consoleSummary(report, process.stdout);
    for (const [kind, file] of Object.entries(reports)) process.stdout.write(`  ${kind} report: ${file}\n`);
    if (report.signature) process.stdout.write(`  signed by ${report.signature.keyId}\n`);
  }
}

/** Reports through the one CLI convention (output.ts); usage errors and unreachable targets exit 2. */
function failure(error: unknown, json: boolean): number {
  const usage =
    typeof (error as { code?: unknown }).code === 'string' && /usage|unreachable|no_docker/.test(String((error as { code: string }).code));
  const exitCode = usage ? USAGE : 1;
  reportError(error, json, { docsPath: 'docs/conformance.md', exitCode: () => exitCode });
  return exitCode;
}

export function register(program: Command): void {
  const certify = program.command('certify').description('play the service against a solver or a webhook receiver and certify it');

  certify
    .command('webhook-receiver')
    .description(
      'send the attack pack (valid, wrong secret, mutated body, stale, future, missing headers, duplicate) to a receiver: 2xx only for valid deliveries',
    )
    .requiredOption('--url <url>', "the receiver's URL")
    .requiredOption('--secret <secret>', 'the signing secret the receiver verifies with (whsec_…)')
    .addOption(
      new Option(
        '--clock <clock>',
        'clock the deliveries are signed by: the sandbox of --state-dir when one runs (auto), its clock (sandbox), or wall time',
      )
        .choices(['auto', 'sandbox', 'wall'])
        .default('auto'),
    )
    .option('--report <spec>', 'write reports: json=FILE,junit=FILE,html=FILE')
    .option('--signing-key <file>', 'Ed25519 PKCS#8 PEM key that signs the JSON report')
    .option('--no-sign', 'do not sign the JSON report')
    .action(async (flags: CommonFlags & { url: string; secret: string; clock: 'auto' | 'sandbox' | 'wall' }, command: Command) => {
      const { json, stateDir } = globalOptions(command);
      try {
        parseReportOption(flags.report);
        const c = await import('../../../conformance/index.js');
        const signingKey = await loadSigningKey(flags, stateDir, json);
        // Sign by the clock the receiver judges by: the sandbox's, as `webhooks listen` does (docs/conformance.md).
        const offset = flags.clock === 'wall' ? undefined : await sandboxClockOffset(stateDir);
        if (flags.clock === 'sandbox' && offset === undefined)
          throw new c.UsageError(`--clock sandbox: no sandbox answers GET /api/v1/sandbox/clock (state dir ${stateDir})`);
        if (!json && offset !== undefined)
          process.stderr.write(`› signing deliveries by the sandbox clock (${Math.round(offset / 1000)} s ahead of wall time)\n`);
        const checks = checkProgress(json, c.consoleProgress);
        const run = await c
          .certifyWebhookReceiver({
            url: flags.url,
            secret: flags.secret,
            ...(offset === undefined ? {} : { nowMs: () => Date.now() + offset, clock: `sandbox (${Math.round(offset / 1000)} s ahead)` }),
            ...(signingKey === undefined ? {} : { signingKey }),
            onResult: checks.onResult,
          })
          .finally(() => checks.end());
        await writeReports(run.report, flags.report, json);
        process.exitCode = run.exitCode;
      } catch (error) {
        process.exitCode = failure(error, json);
      }
    });

  certify
    .command('solver')
    .description(
      'run a sandbox with no reference solvers, wait for your solver to connect, then quote, order and watch its fill, claim and pongs',
    )
    .requiredOption(
      '--solver-key <key>',
      "the solver's on-chain key or address (funded on the certification chains; fills and claims must come from it)",
    )
    .option('--solver-id <id>', 'the solver under test, when it registers as one of several')
    .option('--rfqs <n>', 'RFQs to send', '3')
    .option('--wait <seconds>', 'how long to wait for the solver to connect', '120')
    .option('--out <file>', 'where to write the connection details for the solver (default <state-dir>/certify-solver.json)')
    .option('--long', 'real-time waits instead of the sandbox clock')
    .option('--report <spec>', 'write reports: json=FILE,junit=FILE,html=FILE')
    .option('--signing-key <file>', 'Ed25519 PKCS#8 PEM key that signs the JSON report')
    .option('--no-sign', 'do not sign the JSON report')
    .action(
      async (
        flags: CommonFlags & { solverKey: string; solverId?: string; rfqs: string; wait: string; out?: string; long?: boolean },
        command: Command,
      ) => {
        const { json, stateDir } = globalOptions(command);
        let stop: (() => Promise<void>) | undefined;
        try {
          parseReportOption(flags.report);
          const c = await import('../../../conformance/index.js');
          const address = c.solverAddressFrom(flags.solverKey);
          const rfqs = Number(flags.rfqs);
          const waitSeconds = Number(flags.wait);
          if (!Number.isInteger(rfqs) || rfqs < 1) throw new c.UsageError(`--rfqs must be a positive integer, got ${flags.rfqs}`);
          if (!Number.isFinite(waitSeconds) || waitSeconds <= 0)
            throw new c.UsageError(`--wait must be a number of seconds, got ${flags.wait}`);
          const signingKey = await loadSigningKey(flags, stateDir, json);
          const progress = (line: string) => {
            if (!json) process.stderr.write(`› ${line}\n`);
          };
          // The harness's own deployment: chains, contracts, the service, and no reference solver to compete.
          const { runScratchSandbox } = await import('../../sandbox/run.js');
          progress('starting the certification sandbox');
          const sandbox = await runScratchSandbox({ solvers: 0, logLevel: 'silent' }, progress);
          stop = () => sandbox.stop();
          const api = sandbox.manifest.api;
          if (!api) throw new Error('the certification sandbox started without the service');
          const file = sandbox.manifest as unknown as import('../../../conformance/index.js').SandboxFile;
          await c.fundSolver(file, address);
          const details = {
            api: { url: api.url, wsUrl: api.wsUrl, workspaceId: api.workspaceId, apiKeys: api.apiKeys },
            solverStream: `${api.url.replace(/^http/, 'ws')}/ws/v1/solver/stream`,
            register: `POST ${api.url}/api/v1/solvers/register with Authorization: Bearer ${api.apiKeys[0]}`,
            solverAddress: address,
            chains: sandbox.manifest.chains,
          };
          const out = flags.out ?? join(resolve(stateDir), 'certify-solver.json');
          ensureDir(dirname(out));
          writeFileSync(out, `${JSON.stringify(details, null, 2)}\n`, { mode: 0o600 });
          if (!json) {
            process.stdout.write(
              `Certification sandbox ready. Point your solver at it:\n` +
                `  API        ${api.url}  (key ${c.redactSecret(api.apiKeys[0]!, 11)}: in full in the details file)\n` +
                `  stream     ${details.solverStream}\n` +
                sandbox.manifest.chains.map((chain) => `  chain      ${chain.name} (${chain.chainId}) ${chain.rpcUrl}\n`).join('') +
                `  funded     ${address}\n  details    ${out}\n` +
                `Waiting up to ${waitSeconds} s for it to register and connect…\n`,
            );
          }
          const checks = checkProgress(json, c.consoleProgress);
          const run = await c
            .certifySolver({
              url: api.url,
              apiKey: api.apiKeys[0]!,
              sandbox: file,
              solverAddress: address,
              ...(flags.solverId === undefined ? {} : { solverId: flags.solverId }),
              rfqs,
              waitMs: waitSeconds * 1_000,
              long: flags.long === true,
              ...(signingKey === undefined ? {} : { signingKey }),
              onResult: checks.onResult,
            })
            .finally(() => checks.end());
          await writeReports(run.report, flags.report, json);
          process.exitCode = run.exitCode;
        } catch (error) {
          process.exitCode = failure(error, json);
        } finally {
          await stop?.();
        }
      },
    );
  usageExitsTree(certify);
}
