import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * DESIGN.md's rule: the certifier talks to a deployment only over the wire. Its runtime code may use
 * src/contracts (EIP-712 helpers) and src/clients, never the service, the devnet or the reference solvers; only
 * tests and test-support start our own sandbox as the deployment under test.
 */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'test-support' ? [] : sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

describe('conformance boundary', () => {
  it('imports nothing of src/ but src/contracts and src/clients', () => {
    const root = import.meta.dirname;
    const offending: string[] = [];
    for (const file of sources(root)) {
      for (const match of readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)) {
        const spec = match[1]!;
        if (spec.includes('/src/') && !/\/src\/(contracts|clients)\//.test(spec)) offending.push(`${relative(root, file)} → ${spec}`);
      }
    }
    expect(offending).toEqual([]);
  });
});
