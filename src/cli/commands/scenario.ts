import type { Command } from 'commander';
import { usageExitsTree } from '../conventions.js';
import type { RunEvent } from '../../../scenarios/index.js';
import { addImageOptions, type ImageFlags, imageOptions } from '../image-options.js';
import { bold, dim, globalOptions, printJson, reportError, table } from '../output.js';
import { scenarioRunProgress } from '../run-progress.js';

/**
 * `sandbox scenario run [names…]`: scripted takers and solvers through every path of the settlement service against
 * a fresh in-process sandbox (default) or a running one (`--target sandbox.json`), with invariants checked after
 * every step. Exit codes: 0 all passed (or skipped), 1 a scenario failed, 2 usage error.
 */

interface RunFlags extends ImageFlags {
  target?: string;
  workspace?: string;
  seed?: string;
  report?: string;
  timeout?: string;
  json?: boolean;
}

/**
 * Ends the process once stdout and stderr are flushed: a stopped in-process sandbox can leave a timer behind
 * (@viem/anvil's stop timeout) that would keep the command alive for seconds after its report is out.
 */
async function exitWhenFlushed(): Promise<void> {
  await Promise.all([process.stdout, process.stderr].map((stream) => new Promise<void>((resolve) => stream.write('', () => resolve()))));
  process.exit(Number(process.exitCode ?? 0));
}

async function run(names: string[], flags: RunFlags, command: Command): Promise<void> {
  const json = flags.json === true || globalOptions(command).json;
  let stopImage: (() => Promise<void>) | undefined;
  try {
    const s = await import('../../../scenarios/index.js');
    const scenarios = s.selectScenarios(s.catalogue, names);
    const seed = s.parseSeed(flags.seed, s.DEFAULT_SEED);
    const reports = s.parseReportSpec(flags.report);
    if (flags.image !== undefined && flags.target !== undefined)
      throw new s.ScenarioUsageError('--image and --target: name one deployment');
    const options =
      flags.image === undefined ? undefined : await imageOptions(flags, json ? undefined : (line) => process.stderr.write(`› ${line}\n`));
    if (flags.image !== undefined && options !== undefined) {
      // Scenarios need the chains beside the API: the image must publish a manifest (sandbox.json).
      if (options.manifest === null)
        throw new s.ScenarioUsageError('scenarios need the manifest of the image (chains, accounts): drop --image-manifest none');
      const { startImage } = await import('../../../conformance/deployment/image.js');
      if (!json) process.stderr.write(`› starting ${flags.image} (Docker)\n`);
      const started = await startImage(flags.image, options);
      stopImage = started.stop;
      flags.target = started.manifestFile;
      if (!json) process.stderr.write(`› ${flags.image} ready in ${started.readyMs} ms at ${started.url}\n`);
    }
    // A target that cannot be read is a usage error; one that reads but does not answer fails its scenarios.
    const manifest = flags.target === undefined ? undefined : s.readTargetManifest(flags.target);
    const workspace = workspaceOption(flags.workspace, manifest?.api.workspaceId, s);
    const expectTimeoutMs = flags.timeout === undefined ? undefined : Number(flags.timeout);
    if (expectTimeoutMs !== undefined && !(Number.isInteger(expectTimeoutMs) && expectTimeoutMs > 0)) {
      throw new s.ScenarioUsageError(`--timeout must be a positive number of milliseconds, got ${JSON.stringify(flags.timeout)}`);
    }
    const progress = scenarioRunProgress(json, (write) => scenarioProgress(s.progressPrinter(write), flags.target, write));
    // The bar (or the JSON heartbeat) ends also when the run throws, so the error prints on a clean line.
    const report = await s
      .runScenarios({
        scenarios,
        seed,
        ...(flags.target === undefined ? {} : { target: flags.target }),
        ...(workspace === undefined ? {} : { workspace }),
        ...(expectTimeoutMs === undefined ? {} : { expectTimeoutMs }),
        onEvent: (event) => progress.onEvent(event),
      })
      .finally(() => progress.end());
    const written = s.writeReports(report, reports);
    if (report.summary.failed > 0) process.exitCode = 1;
    if (json) {
      printJson(report);
      return;
    }
    process.stdout.write(`\n${s.summaryTable(report)}\n`);
    // The table cuts long notes to fit a terminal; a skip's reason is what to do next, so it is printed whole here.
    for (const r of report.scenarios)
      if (r.status === 'skipped' && r.reason) process.stdout.write(dim(`  ${r.name} skipped: ${r.reason}\n`));
    for (const path of written) process.stdout.write(dim(`  report: ${path}\n`));
  } catch (error) {
    reportError(error, json, { docsPath: 'docs/scenarios.md', commandPath: 'sandbox scenario run' });
  } finally {
    await stopImage?.();
  }
  await exitWhenFlushed();
}

/**
 * `--workspace`: `sandbox` (or the workspace id sandbox.json names) is the sandbox's own workspace, the one the
 * dashboard and `webhooks listen` show; it needs `--target`, since a fresh in-process sandbox is gone after the run.
 */
function workspaceOption(
  name: string | undefined,
  targetWorkspaceId: string | undefined,
  s: Pick<typeof import('../../../scenarios/index.js'), 'SANDBOX_WORKSPACE' | 'ScenarioUsageError'>,
): typeof s.SANDBOX_WORKSPACE | undefined {
  if (name === undefined) return undefined;
  if (targetWorkspaceId === undefined)
    throw new s.ScenarioUsageError('--workspace needs --target: the workspace of a running sandbox (sandbox up --detach)');
  if (name === s.SANDBOX_WORKSPACE || name === targetWorkspaceId) return s.SANDBOX_WORKSPACE;
  throw new s.ScenarioUsageError(
    `--workspace ${JSON.stringify(name)}: name the sandbox's own workspace, \`sandbox\` (or ${targetWorkspaceId}, as sandbox.json says)`,
  );
}

/**
 * People's progress, with one correction: against `--target` nothing starts (the sandbox runs already), so the
 * runner's "starting" line becomes "connecting to".
 */
function scenarioProgress(
  print: (event: RunEvent) => void,
  target: string | undefined,
  write: (text: string) => void,
): (event: RunEvent) => void {
  return (event) => {
    if (target !== undefined && event.type === 'target.starting') {
      write(dim(`› connecting to ${event.description}…\n`));
      return;
    }
    print(event);
  };
}

async function list(flags: { json?: boolean }, command: Command): Promise<void> {
  const json = flags.json === true || globalOptions(command).json;
  const { catalogue, INVARIANTS } = await import('../../../scenarios/index.js');
  const rows = catalogue.map((scenario) => ({
    name: scenario.name,
    title: scenario.title,
    tags: [...scenario.tags],
    steps: scenario.steps.length,
  }));
  if (json) {
    printJson({ scenarios: rows, invariants: INVARIANTS });
    return;
  }
  process.stdout.write(
    `${table([[bold('scenario'), bold('tags'), bold('title')], ...rows.map((r) => [r.name, r.tags.join(','), r.title])])}\n`,
  );
  process.stdout.write(
    `\n  Invariants checked after every step:\n${Object.entries(INVARIANTS)
      .map(([name, text]) => `    ${name}: ${text}`)
      .join('\n')}\n`,
  );
}

export function register(program: Command): void {
  const scenario = program
    .command('scenario')
    .description('scripted takers and solvers through every path, invariants checked after every step');
  addImageOptions(scenario.command('run'))
    .description('run scenarios (all, or those named: exact names, globs like success-*, or tag:<tag>)')
    .argument('[names...]', 'scenarios to run (default: all)')
    .option('--target <sandbox.json>', 'a running sandbox (its sandbox.json or state folder); default: a fresh in-process sandbox')
    .option(
      '--workspace <name>',
      "play every scenario in the sandbox's own workspace (`sandbox`): its orders show on the dashboard and at `webhooks listen`; default: a fresh workspace each (needs --target)",
    )
    .option('--seed <n>', 'seed of the participants and amounts: the same seed reproduces a run', '1')
    .option('--report <spec>', 'also write reports: junit=FILE,json=FILE')
    .option('--timeout <ms>', 'how long an expectation waits for the world to catch up (default 10000)')
    .option('--json', 'print the run as one JSON document on stdout')
    .action((names: string[], flags: RunFlags, command: Command) => run(names, flags, command));
  scenario
    .command('list')
    .description('list the scenarios and the invariants they are held to')
    .option('--json', 'print JSON for scripts')
    .action((flags: { json?: boolean }, command: Command) => list(flags, command));
  usageExitsTree(scenario);
}
