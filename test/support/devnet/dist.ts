import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmdirSync, statSync, utimesSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The CLI and the detached supervisor run as compiled JavaScript (as users run them). Tests of them call
 * ensureBuilt() first: it compiles with tsconfig.build.json when a source of the devnet or the CLI is newer
 * than its output, one test process at a time.
 */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../..');
export const CLI = join(ROOT, 'dist/src/cli/main.js');

const WATCHED = ['src/devnet', 'src/cli', 'src/api', 'src/clients', 'src/contracts/artifacts'];

function outputOf(source: string): string {
  return join(ROOT, 'dist', relative(ROOT, source).replace(/\.ts$/, '.js'));
}

function staleOf(watched: readonly string[]): string[] {
  const stale: string[] = [];
  const visit = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'test-support') visit(path);
      } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) {
        const output = outputOf(path);
        if (!existsSync(output) || statSync(output).mtimeMs < statSync(path).mtimeMs) stale.push(path);
      }
    }
  };
  for (const dir of watched) visit(join(ROOT, dir));
  return stale;
}

export function ensureBuilt(): Promise<void> {
  return ensureBuiltWith([]);
}

/** ensureBuilt, watching more source folders whose output the test runs too (the scenarios, the service…). */
export async function ensureBuiltWith(also: readonly string[]): Promise<void> {
  const watched = [...WATCHED, ...also];
  const staleSources = () => staleOf(watched);
  if (staleSources().length === 0) return;
  const lock = join(ROOT, 'dist', '.test-build-lock');
  mkdirSync(join(ROOT, 'dist'), { recursive: true });
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 200));
      if (staleSources().length === 0) return;
      // A lock older than two minutes belongs to a test process that died mid-build.
      try {
        if (Date.now() - statSync(lock).mtimeMs > 120_000) rmdirSync(lock);
      } catch {
        // Released meanwhile.
      }
    }
  }
  try {
    // Other people's half-written files may fail to typecheck; tsc still emits, and only ours are checked below.
    await new Promise<void>((resolve) =>
      execFile(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: ROOT }, () =>
        resolve(),
      ),
    );
    // The detached supervisor runs from its bundle (what users run); rebuilt from the fresh compile.
    await new Promise<void>((resolve) =>
      execFile(process.execPath, [join(ROOT, 'scripts/build-bundle.mjs')], { cwd: ROOT }, () => resolve()),
    );
  } finally {
    rmdirSync(lock);
  }
  // The build project is composite, so tsc builds incrementally: a source whose time changed but whose text did not
  // (a checkout, a stash) is not emitted again. tsc has judged its output current, so it is marked as such.
  const now = new Date();
  for (const source of staleSources()) {
    const output = outputOf(source);
    if (existsSync(output)) utimesSync(output, now, now);
  }
  const stale = staleSources();
  if (stale.length > 0) throw new Error(`build left stale outputs for: ${stale.join(', ')}`);
}
