#!/usr/bin/env node
// `npm run image [-- --base IMAGE] [--tag TAG] [--json]`: builds the sandbox image (default settlement-sandbox:local).
// Stages a small build context (package.json, dist/ without tests, the production node_modules minus compile-time
// packages, the entrypoint) and runs the classic builder (DOCKER_BUILDKIT=0: the preinstalled Docker CLI 28 would
// need buildx). With no --base and no node:20-bookworm-slim on the engine (no registry reachable), it first builds a
// base from this machine's own Node 20 (scripts/image/build-base.sh).
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const args = process.argv.slice(2);
const flag = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const json = args.includes('--json');
const tag = flag('--tag') ?? 'settlement-sandbox:local';
const DEFAULT_BASE = 'node:20-bookworm-slim';
const LOCAL_BASE = 'settlement-sandbox-base:node20';
const docker = process.env.DOCKER ?? (existsSync('/usr/bin/docker') ? '/usr/bin/docker' : 'docker');
const env = { ...process.env, DOCKER_BUILDKIT: '0' };
const log = (line) => process.stderr.write(`› ${line}\n`);

/** Needed only to compile contracts or to drive containers from the host: never inside the image. */
// typescript arrives as an optional peer of viem/abitype/ox: types only, 23 MB.
const LEAVE_OUT = new Set([
  '@foundry-rs/forge',
  'solc',
  '@layerzerolabs/toolbox-foundry',
  '@openzeppelin/contracts',
  'testcontainers',
  'typescript',
]);

const hasImage = (name) => spawnSync(docker, ['image', 'inspect', name], { stdio: 'ignore', env }).status === 0;

const started = Date.now();
let base = flag('--base') ?? process.env.SANDBOX_IMAGE_BASE;
let baseBuildMs = 0;
if (base === undefined) {
  base = DEFAULT_BASE;
  if (!hasImage(DEFAULT_BASE)) {
    log(`${DEFAULT_BASE} is not on this engine (no registry here?): building ${LOCAL_BASE} from this machine's Node`);
    const t = Date.now();
    execFileSync(join(root, 'scripts/image/build-base.sh'), [LOCAL_BASE], {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...env, DOCKER: docker },
    });
    baseBuildMs = Date.now() - t;
    base = LOCAL_BASE;
  }
}
if (!existsSync(join(root, 'dist/src/cli/main.js'))) throw new Error('dist/ is missing: run `npm run build` (npm install does) first');

// Production packages: walk `npm ls` from the project's dependencies, leaving out LEAVE_OUT subtrees, then copy
// every installed copy of each kept package (nested copies included), dereferencing symlinks.
const tree = JSON.parse(execFileSync('npm', ['ls', '--omit=dev', '--all', '--json'], { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 }));
const keep = new Set();
const walk = (deps) => {
  for (const [name, node] of Object.entries(deps ?? {})) {
    if (LEAVE_OUT.has(name) || name.startsWith('@foundry-rs/forge-')) continue;
    if (keep.has(name) && node.dependencies === undefined) continue;
    keep.add(name);
    walk(node.dependencies);
  }
};
walk(tree.dependencies);
const installed = execFileSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 })
  .split('\n')
  .filter(Boolean)
  .slice(1);

const stage = mkdtempSync(join(tmpdir(), 'sandbox-image-'));
try {
  const modules = join(root, 'node_modules');
  let packages = 0;
  for (const path of installed) {
    const rel = relative(modules, path);
    const name = rel.split('/node_modules/').pop();
    if (name === undefined || !keep.has(name) || !existsSync(path)) continue;
    const nestedUnderDropped = rel
      .split('/node_modules/')
      .slice(0, -1)
      .some((parent) => !keep.has(parent));
    if (nestedUnderDropped) continue;
    cpSync(path, join(stage, 'node_modules', rel), {
      recursive: true,
      dereference: true,
      // Nested node_modules are copied on their own; better-sqlite3's C sources and object files are build leftovers.
      filter: (src) => {
        const inner = relative(path, src);
        if (inner.startsWith('node_modules')) return false;
        return name !== 'better-sqlite3' || !/^(deps|src)(\/|$)|^build\/(Release\/)?(obj\.target|\.deps|deps|test_extension)/.test(inner);
      },
    });
    packages += 1;
  }
  cpSync(join(root, 'package.json'), join(stage, 'package.json'));
  mkdirSync(join(stage, 'dist'));
  for (const part of ['src', 'scenarios', 'conformance', 'dashboard']) {
    if (existsSync(join(root, 'dist', part))) cpSync(join(root, 'dist', part), join(stage, 'dist', part), { recursive: true });
  }
  mkdirSync(join(stage, 'scripts/image'), { recursive: true });
  cpSync(join(root, 'scripts/image/entrypoint.mjs'), join(stage, 'scripts/image/entrypoint.mjs'));
  cpSync(join(root, 'Dockerfile'), join(stage, 'Dockerfile'));
  cpSync(join(root, '.dockerignore'), join(stage, '.dockerignore'));
  log(`staged ${packages} production packages and dist/ in ${basename(stage)}; building ${tag} on ${base}`);

  const t = Date.now();
  const build = spawnSync(docker, ['build', '-q', '--build-arg', `BASE=${base}`, '-t', tag, stage], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env,
  });
  if (build.status !== 0) throw new Error(`docker build failed (exit ${build.status})`);
  const imageBuildMs = Date.now() - t;
  const sizeBytes = Number(execFileSync(docker, ['image', 'inspect', '--format', '{{.Size}}', tag], { encoding: 'utf8', env }).trim());
  const baseSizeBytes = Number(execFileSync(docker, ['image', 'inspect', '--format', '{{.Size}}', base], { encoding: 'utf8', env }).trim());
  const figures = { tag, base, sizeBytes, baseSizeBytes, baseBuildMs, imageBuildMs, totalMs: Date.now() - started, packages };
  if (json) process.stdout.write(`${JSON.stringify(figures)}\n`);
  else
    process.stdout.write(
      `${tag}: ${(sizeBytes / 1e6).toFixed(0)} MB (base ${base} ${(baseSizeBytes / 1e6).toFixed(0)} MB); ` +
        `built in ${(imageBuildMs / 1000).toFixed(1)} s${baseBuildMs > 0 ? ` + base ${(baseBuildMs / 1000).toFixed(1)} s` : ''}\n`,
    );
} finally {
  rmSync(stage, { recursive: true, force: true });
}
