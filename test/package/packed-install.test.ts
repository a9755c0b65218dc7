import { execFile, execFileSync } from 'node:child_process';
import {
  cpSync,
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT } from '../support/devnet/dist.js';

/**
 * The package as its users get it: `npm pack`, the tarball installed into an empty project, and there the README's
 * first command, a TypeScript file on the typed API that settles an order, and the example CI script
 * (examples/ci-project/ci.sh). Nothing here reads the source tree: the project sees the tarball's files only.
 *
 * Installing: `SANDBOX_PACKAGE_INSTALL=npm` runs a real `npm install --prefer-offline <tarball>` (4 min 15 s and
 * 4 min 20 s on the shared 2-core machine, too long for the suite). By default the test lays out what that install
 * produces: the tarball unpacked into node_modules/settlement-sandbox, its `bin` linked into node_modules/.bin, and
 * each dependency its package.json declares linked from this repository's install (same lockfile versions). Only the
 * declared ones: a runtime import of a dev dependency fails here as it would for a user.
 */

const INSTALL = process.env.SANDBOX_PACKAGE_INSTALL === 'npm' ? 'npm' : 'linked';
/** `up --detach` ready, first time (no genesis cached yet), wall: the bound is 3 s on an idle machine. */
const FIRST_UP_BUDGET_MS = Number(process.env.SANDBOX_PACKAGE_UP_BUDGET_MS ?? 10_000);
const DOWN_BUDGET_MS = Number(process.env.SANDBOX_PACKAGE_DOWN_BUDGET_MS ?? 3_000);

interface PackResult {
  filename: string;
  size: number;
  unpackedSize: number;
  entryCount: number;
  files: { path: string }[];
}

let work: string;
let project: string;
let packed: PackResult;

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}, timeoutMs = 120_000) {
  return new Promise<{ code: number; stdout: string; stderr: string; ms: number }>((resolve) => {
    const started = performance.now();
    execFile(
      command,
      args,
      { cwd, env: { ...process.env, ...env }, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr, ms: performance.now() - started }),
    );
  });
}

/** dist/src/index.* older than the public entry's sources: build (tsconfig.build.json) before packing. */
async function ensurePublicEntryBuilt(): Promise<void> {
  await ensureBuilt();
  const sources = [join(ROOT, 'src/index.ts'), ...readdirSync(join(ROOT, 'src/api')).map((f) => join(ROOT, 'src/api', f))];
  const stale = sources.some((source) => {
    const output = join(ROOT, 'dist', relative(ROOT, source)).replace(/\.ts$/, '.d.ts');
    return !existsSync(output) || statSync(output).mtimeMs < statSync(source).mtimeMs;
  });
  if (stale) {
    execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: ROOT });
    execFileSync(process.execPath, [join(ROOT, 'scripts/build-bundle.mjs')], { cwd: ROOT });
  }
}

function linkedInstall(tarball: string): void {
  const modules = join(project, 'node_modules');
  const target = join(modules, 'settlement-sandbox');
  mkdirSync(target, { recursive: true });
  execFileSync('tar', ['xzf', tarball, '-C', target, '--strip-components=1']);
  const manifest = JSON.parse(readFileSync(join(target, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
    bin: Record<string, string>;
  };
  // The example's own dev dependencies (typescript, viem) come the same way.
  const example = JSON.parse(readFileSync(join(ROOT, 'examples/ci-project/package.json'), 'utf8')) as {
    devDependencies: Record<string, string>;
  };
  const names = new Set([...Object.keys(manifest.dependencies), ...Object.keys(example.devDependencies)]);
  names.delete('settlement-sandbox');
  // The platform binaries of anvil and forge are optional dependencies npm hoists next to them.
  for (const name of [...names]) {
    const own = JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as {
      optionalDependencies?: Record<string, string>;
    };
    for (const optional of Object.keys(own.optionalDependencies ?? {}))
      if (existsSync(join(ROOT, 'node_modules', optional))) names.add(optional);
  }
  for (const name of names) {
    const link = join(modules, name);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules', name), link);
  }
  const bin = join(modules, '.bin');
  mkdirSync(bin, { recursive: true });
  // npm makes every bin target executable when it links it (bin-links); a tarball packed from a build that did not
  // run prepare.mjs carries the CLI without its x bit, so this layout must do the same.
  for (const [name, file] of Object.entries(manifest.bin)) {
    chmodSync(join(target, file), 0o755);
    symlinkSync(join('..', 'settlement-sandbox', file), join(bin, name));
  }
  symlinkSync(join('..', 'typescript', 'bin', 'tsc'), join(bin, 'tsc'));
  symlinkSync(join('..', 'vitest', 'vitest.mjs'), join(bin, 'vitest'));
}

describe('the packed package in an empty project', () => {
  beforeAll(async () => {
    await ensurePublicEntryBuilt();
    work = mkdtempSync(join(tmpdir(), 'sandbox-package-'));
    project = join(work, 'project');
    mkdirSync(project);
    // --ignore-scripts: `prepare` would rebuild everything; dist is current (checked above).
    const pack = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], ROOT);
    expect(pack.code, pack.stderr).toBe(0);
    packed = (JSON.parse(pack.stdout) as PackResult[])[0] as PackResult;
    console.log(
      `npm pack: ${packed.filename} ${(packed.size / 1e6).toFixed(2)} MB, ${packed.entryCount} files, ${(packed.unpackedSize / 1e6).toFixed(2)} MB unpacked`,
    );

    // The example project as a user would have it: its package.json, tsconfig, sources and CI script.
    cpSync(join(ROOT, 'examples/ci-project'), project, {
      recursive: true,
      filter: (src) => !/node_modules|dist|reports|\.sandbox/.test(relative(join(ROOT, 'examples/ci-project'), src)),
    });
    const tarball = join(work, packed.filename);
    if (INSTALL === 'npm') {
      const install = await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball], project, {}, 600_000);
      console.log(`npm install of the tarball: ${(install.ms / 1000).toFixed(1)} s`);
      expect(install.code, install.stderr).toBe(0);
    } else {
      linkedInstall(tarball);
    }
  }, 700_000);

  afterAll(async () => {
    if (project && existsSync(join(project, '.sandbox/sandbox.lock'))) {
      await run(join(project, 'node_modules/.bin/settlement-sandbox'), ['down'], project);
    }
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('ships what runs: the build with declarations, artifacts and dashboard; no tests, sources or tooling', () => {
    const paths = packed.files.map((f) => f.path);
    for (const required of [
      'package.json',
      'dist/src/index.js',
      'dist/src/index.d.ts',
      'dist/src/api/vitest-global-setup.js',
      'dist/scenarios/index.d.ts',
      'dist/conformance/index.d.ts',
      'dist/src/cli/main.js',
      'dist/src/contracts/artifacts/index.js',
      'dist/dashboard/index.html',
      'dist/bundle/supervisor.js',
      'dist/bundle/service-worker.js',
    ]) {
      expect(paths, required).toContain(required);
    }
    // The bundles' shared chunks ship with them (the supervisor imports them at start).
    expect(paths.filter((p) => p.startsWith('dist/bundle/chunks/')).length).toBeGreaterThan(0);
    const unwanted = paths.filter((p) =>
      /^(src|test|hardening|contracts|\.ci)\/|Dockerfile|\.map$|\.test\.|^dist\/(test|hardening)\//.test(p),
    );
    expect(unwanted).toEqual([]);
  });

  it('`npx settlement-sandbox up --detach` is ready the first time, the example CI passes, `down` is quick', async () => {
    const env = { SANDBOX_UP_FLAGS: '--chain-ports any', NO_COLOR: '1' };
    const first = await run('npx', ['settlement-sandbox', 'up', '--detach', '--chain-ports', 'any'], project, env);
    expect(first.code, first.stderr).toBe(0);
    const down = await run(join(project, 'node_modules/.bin/settlement-sandbox'), ['down'], project, env);
    expect(down.code, down.stderr).toBe(0);
    console.log(
      `first \`npx settlement-sandbox up --detach\`: ${(first.ms / 1000).toFixed(2)} s wall; down (bin): ${(down.ms / 1000).toFixed(2)} s`,
    );
    expect(first.ms).toBeLessThan(FIRST_UP_BUDGET_MS);
    expect(down.ms).toBeLessThan(DOWN_BUDGET_MS);

    // ci.sh: up, tsc over src/settle-order.ts against the package's declarations, the order settles, a scenario
    // and a conformance run write their reports, down.
    const ci = await run('sh', ['ci.sh'], project, env, 180_000);
    expect(ci.code, `${ci.stdout}\n${ci.stderr}`).toBe(0);
    expect(ci.stdout).toMatch(/order ord_\w+: Claimed/);
    expect(ci.stdout).toMatch(/Conformance of .* PASSED/);
    for (const report of ['scenarios.xml', 'conformance.xml', 'conformance.json']) {
      expect(existsSync(join(project, 'reports', report)), report).toBe(true);
    }
    expect(readFileSync(join(project, 'reports/scenarios.xml'), 'utf8')).toMatch(/<testsuite[^>]*failures="0"/);
    console.log(`example ci.sh: ${(ci.ms / 1000).toFixed(1)} s`);

    // Warm (genesis cached, chain state saved by ci.sh's down): the same command again, and `down` through npx too.
    const warm = await run('npx', ['settlement-sandbox', 'up', '--detach', '--chain-ports', 'any'], project, env);
    expect(warm.code, warm.stderr).toBe(0);
    const warmDown = await run('npx', ['settlement-sandbox', 'down'], project, env);
    expect(warmDown.code, warmDown.stderr).toBe(0);
    console.log(
      `warm \`npx settlement-sandbox up --detach\`: ${(warm.ms / 1000).toFixed(2)} s; \`npx settlement-sandbox down\`: ${(warmDown.ms / 1000).toFixed(2)} s`,
    );
    expect(warm.ms).toBeLessThan(FIRST_UP_BUDGET_MS);
  }, 240_000);

  it("a user's vitest suite gets a sandbox per run from `globalSetup: ['settlement-sandbox/vitest']`", async () => {
    const suite = await run(join(project, 'node_modules/.bin/vitest'), ['run'], project, { NO_COLOR: '1', CI: '1' }, 120_000);
    expect(suite.code, `${suite.stdout}\n${suite.stderr}`).toBe(0);
    expect(suite.stdout).toMatch(/Tests\s+2 passed/);
    console.log(`example vitest suite with the global setup: ${(suite.ms / 1000).toFixed(1)} s`);
  }, 150_000);

  it('the code blocks the docs mark `js runnable` run against the installed package', async () => {
    const blocks = RUNNABLE_DOCS.flatMap((doc) => runnableBlocks(doc));
    expect(blocks.length).toBeGreaterThan(0);
    mkdirSync(join(project, 'snippets'), { recursive: true });
    for (const [i, block] of blocks.entries()) {
      const file = join(project, 'snippets', `${i + 1}.mjs`);
      writeFileSync(file, block.code);
      // The blocks make temp folders of their own: under the work folder, removed with it.
      mkdirSync(join(work, 'tmp'), { recursive: true });
      const result = await run(process.execPath, [file], project, { NO_COLOR: '1', TMPDIR: join(work, 'tmp') }, 120_000);
      expect(result.code, `${block.doc} block ${i + 1}:\n${result.stdout}\n${result.stderr}`).toBe(0);
      console.log(`${block.doc} runnable block: ${(result.ms / 1000).toFixed(1)} s\n${result.stdout.trim()}`);
    }
  }, 300_000);
});

/** Docs whose ```js runnable blocks are executed (in the packed project, where `settlement-sandbox` is the tarball). */
const RUNNABLE_DOCS = ['README.md', 'docs/api.md', 'docs/ci.md'];

function runnableBlocks(doc: string): { doc: string; code: string }[] {
  const text = readFileSync(join(ROOT, doc), 'utf8');
  return [...text.matchAll(/^```js runnable\n([\s\S]*?)^```$/gm)].map((match) => ({ doc, code: match[1] ?? '' }));
}
