import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { register } from '../../cli/commands/fault.js';
import { FAULT_KIND_TABLE } from '../../contracts/fault-kinds.js';
import { FAULT_KIND_OPTIONS } from '../../dashboard/views/faults-panel.js';
import { FAULT_KINDS } from './fault-kinds.js';
import { faultRequestSchema } from './schemas.js';

/** Every `<target>.<name>` fault kind a text mentions, in order of first mention. */
function kindsIn(text: string): string[] {
  return [...new Set(text.match(/\b(?:relay|oracle|service|chain|solver)\.[a-z][a-z-]*[a-z]/g) ?? [])];
}

/** docs/faults.md's table of switches: kind → its "needs" cell. */
function docsTable(): Map<string, string> {
  const rows = new Map<string, string>();
  for (const line of readFileSync(new URL('../../../docs/faults.md', import.meta.url), 'utf8').split('\n')) {
    const cells = line.match(/^\| `([a-z]+\.[a-z-]+)` \|.*\| ([^|]*) \|$/);
    if (cells !== null) rows.set(cells[1]!, cells[2]!);
  }
  return rows;
}

const sorted = (kinds: readonly string[]) => [...kinds].sort();

describe('the fault kinds: one table, followed everywhere', () => {
  it('`sandbox fault set --help` names exactly the service kinds, each with the flags it takes', () => {
    const program = new Command('sandbox');
    register(program);
    const set = program.commands.find((c) => c.name() === 'fault')!.commands.find((c) => c.name() === 'set')!;
    const help = set.helpInformation({ error: false });
    const [usage, argument] = help.split('Arguments:');
    expect(kindsIn(usage!)).toEqual([...FAULT_KINDS]);
    expect(kindsIn(argument!.split('Options:')[0]!)).toEqual([...FAULT_KINDS]);
    expect(help.replace(/\s+/g, ' ')).toContain('chain.restart (--chain, [--down])');
  });

  it("the dashboard's fault panel offers exactly the service kinds", () => {
    expect([...FAULT_KIND_OPTIONS]).toEqual([...FAULT_KINDS]);
  });

  it("docs/faults.md's table lists exactly the service kinds and names every parameter each one requires", () => {
    const table = docsTable();
    expect(sorted([...table.keys()])).toEqual(sorted(FAULT_KINDS));
    for (const spec of FAULT_KIND_TABLE) {
      for (const param of spec.params.filter((p) => p.required)) expect(table.get(spec.kind), spec.kind).toContain(`\`${param.name}\``);
    }
  });

  it("the table's parameters are the ones the service's request schema takes for each kind", () => {
    const variants = (faultRequestSchema([31337]) as unknown as { options: z.ZodObject[] }).options;
    const generic = new Set(['kind', 'scope', 'count']);
    for (const variant of variants) {
      const kind = (variant.shape.kind as z.ZodLiteral<string>).value;
      const spec = FAULT_KIND_TABLE.find((row) => row.kind === kind);
      expect(spec, kind).toBeDefined();
      // `for` is every kind's limit; it is a parameter of its own only where the table names it (chain.halt).
      const declared = new Set(spec!.params.map((param) => param.name));
      const taken = Object.entries(variant.shape)
        .filter(([name]) => !generic.has(name) && (name !== 'for' || declared.has('for')))
        .map(([name, field]) => ({ name, required: !(field as z.ZodType).safeParse(undefined).success }));
      expect(sorted(taken.map((p) => `${p.name}:${p.required}`)), kind).toEqual(sorted(spec!.params.map((p) => `${p.name}:${p.required}`)));
    }
    expect(variants.length).toBe(FAULT_KINDS.length);
  });
});
