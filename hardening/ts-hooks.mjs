// Module hooks that let Node 20 run this repository's TypeScript sources in place (the campaigns, the service
// child process and everything they import from src/): `.ts` files are transpiled with esbuild on load, and
// the `.js` specifiers of NodeNext imports fall back to the `.ts` file beside them. `import.meta.url` stays the
// source file's URL, so code that finds files relative to itself behaves as under vitest.
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transform } from 'esbuild';

// Transpiled files are kept by content hash, so a service restarted twenty times in a campaign transpiles once.
const CACHE_DIR = fileURLToPath(new URL('../node_modules/.cache/settlement-sandbox/ts-hooks/', import.meta.url));

const TS_OPTIONS = {
  loader: 'ts',
  format: 'esm',
  target: 'node20',
  sourcemap: 'inline',
  tsconfigRaw: { compilerOptions: { target: 'ES2023', useDefineForClassFields: true } },
};

export async function resolve(specifier, context, nextResolve) {
  try {
    return await nextResolve(specifier, context);
  } catch (error) {
    const relative = specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('file:');
    if (!relative || error?.code !== 'ERR_MODULE_NOT_FOUND' || !specifier.endsWith('.js')) throw error;
    return nextResolve(`${specifier.slice(0, -3)}.ts`, context);
  }
}

export async function load(url, context, nextLoad) {
  if (!url.startsWith('file:') || !url.endsWith('.ts')) return nextLoad(url, context);
  const path = fileURLToPath(url);
  const source = await readFile(path, 'utf8');
  const cached = join(CACHE_DIR, `${createHash('sha256').update(path).update('\0').update(source).digest('hex')}.mjs`);
  const hit = await readFile(cached, 'utf8').catch(() => undefined);
  if (hit !== undefined) return { format: 'module', source: hit, shortCircuit: true };
  const { code } = await transform(source, { ...TS_OPTIONS, sourcefile: path });
  await mkdir(CACHE_DIR, { recursive: true });
  const temporary = `${cached}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  await writeFile(temporary, code);
  await rename(temporary, cached);
  return { format: 'module', source: code, shortCircuit: true };
}
