#!/usr/bin/env node
// Reads the TypeScript import graph of the production tree and prints the layer figures that
// docs/architecture.md promises: import circles, and imports that cross a layer rule.
// Usage: node scripts/import-graph.mjs [--json] [--list]
// Exit code 1 when a rule is broken, so `npm test` keeps the layers honest.
import { readFileSync, readdirSync, statSync, existsSync } from 'node:fs';
import { join, dirname, relative, resolve, sep } from 'node:path';

const root = resolve(dirname(new URL(import.meta.url).pathname), '..');
const roots = ['src', 'scenarios', 'conformance', 'hardening', 'scripts'];

function walk(dir, out) {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist') continue;
    const full = join(dir, name);
    if (statSync(full).isDirectory()) walk(full, out);
    else if (/\.(ts|mts)$/.test(name) && !name.endsWith('.d.ts')) out.push(full);
  }
  return out;
}

const isTest = (file) => /\.test\.ts$|\.e2e\.test\.ts$/.test(file);
const files = roots.filter((r) => existsSync(join(root, r))).flatMap((r) => walk(join(root, r), []));
const production = files.filter((f) => !isTest(f)).map((f) => relative(root, f).split(sep).join('/'));
// test/support is resolvable (so imports into it are seen) but is not production code itself.
const supportFiles = existsSync(join(root, 'test/support'))
  ? walk(join(root, 'test/support'), []).map((f) => relative(root, f).split(sep).join('/'))
  : [];
const known = new Set([...production, ...supportFiles]);

const importPattern = /(?:import|export)\s[^;]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/gs;
function resolveImport(from, spec) {
  if (!spec.startsWith('.')) return undefined;
  const base = relative(root, resolve(root, dirname(from), spec))
    .split(sep)
    .join('/');
  for (const candidate of [base.replace(/\.js$/, '.ts'), `${base}.ts`, `${base}/index.ts`, base]) {
    if (known.has(candidate)) return candidate;
  }
  return undefined;
}

/** @type {Map<string, {to: string, typeOnly: boolean}[]>} */
const edges = new Map();
for (const file of production) {
  const text = readFileSync(join(root, file), 'utf8');
  const list = [];
  for (const match of text.matchAll(importPattern)) {
    const target = resolveImport(file, match[1] ?? match[2]);
    if (target) list.push({ to: target, typeOnly: /^(import|export)\s+type\s/.test(match[0]) });
  }
  edges.set(file, list);
}

// Tarjan's strongly connected components: every component of more than one file is a circle.
function circles() {
  let index = 0;
  const stack = [];
  const state = new Map();
  const found = [];
  const visit = (v) => {
    state.set(v, { index, low: index, onStack: true });
    index += 1;
    stack.push(v);
    for (const { to } of edges.get(v) ?? []) {
      if (!state.has(to)) {
        visit(to);
        state.get(v).low = Math.min(state.get(v).low, state.get(to).low);
      } else if (state.get(to).onStack) {
        state.get(v).low = Math.min(state.get(v).low, state.get(to).index);
      }
    }
    if (state.get(v).low === state.get(v).index) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        state.get(w).onStack = false;
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of production) if (!state.has(v)) visit(v);
  return found;
}

const crossing = (fromPrefix, toPrefixes, exceptFrom = () => false) =>
  production.flatMap((file) =>
    file.startsWith(fromPrefix) && !exceptFrom(file)
      ? (edges.get(file) ?? []).filter((e) => toPrefixes.some((p) => e.to.startsWith(p))).map((e) => `${file} -> ${e.to}`)
      : [],
  );

const serviceDomain = (file) =>
  file.startsWith('src/service/') &&
  !file.startsWith('src/service/http/') &&
  !file.startsWith('src/service/ws/') &&
  !file.startsWith('src/service/reference-b/') &&
  !/^src\/service\/[^/]+\.ts$/.test(file);

const harnessFolders = [
  ...new Set(
    production
      .filter((f) => /(^|\/)(testing|test-support)(\/|\.ts$)/.test(f) && !f.startsWith('test/'))
      .map((f) => f.replace(/\/[^/]+$/, '')),
  ),
];

const circleList = circles();
const report = {
  files: production.length,
  circles: circleList.length,
  filesInCircles: circleList.reduce((n, c) => n + c.length, 0),
  devnetToServiceOrSolvers: crossing('src/devnet/', ['src/service/', 'src/solvers/', 'src/sandbox/']),
  serviceDomainToHttp: production.flatMap((file) =>
    serviceDomain(file) ? (edges.get(file) ?? []).filter((e) => e.to.startsWith('src/service/http/')).map((e) => `${file} -> ${e.to}`) : [],
  ),
  conformanceToService: crossing('conformance/', ['src/service/', 'src/sandbox/']),
  scenariosToService: crossing('scenarios/', ['src/service/']),
  clientsOrSolversToService: [...crossing('src/clients/', ['src/service/', 'src/solvers/']), ...crossing('src/solvers/', ['src/service/'])],
  contractsUpward: crossing('src/contracts/', ['src/devnet/', 'src/service/', 'src/clients/', 'src/solvers/', 'src/sandbox/', 'src/cli/']),
  dashboardToOthers: crossing('src/dashboard/', ['src/service/', 'src/devnet/', 'src/clients/', 'src/solvers/', 'src/sandbox/']),
  // hardening/ is test tooling (campaigns run by `npm run harden`): it may use the test harnesses.
  productionToTestSupport: production
    .filter((file) => !file.startsWith('hardening/'))
    .flatMap((file) => (edges.get(file) ?? []).filter((e) => e.to.startsWith('test/')).map((e) => `${file} -> ${e.to}`)),
  serviceToOuterLayers: crossing('src/service/', ['src/cli/', 'scenarios/', 'conformance/', 'src/solvers/', 'src/sandbox/']),
  harnessFoldersInProduction: harnessFolders,
  circleMembers: circleList,
};

const ruleKeys = [
  'devnetToServiceOrSolvers',
  'serviceDomainToHttp',
  'conformanceToService',
  'scenariosToService',
  'clientsOrSolversToService',
  'contractsUpward',
  'dashboardToOthers',
  'serviceToOuterLayers',
  'productionToTestSupport',
  'harnessFoldersInProduction',
];
const broken = report.circles + ruleKeys.reduce((n, key) => n + report[key].length, 0);

if (process.argv.includes('--json')) {
  console.log(JSON.stringify(report, null, 2));
} else {
  const list = process.argv.includes('--list');
  console.log(`production files           ${report.files}`);
  console.log(`import circles             ${report.circles} (${report.filesInCircles} files)`);
  for (const key of ruleKeys) {
    console.log(`${key.padEnd(27)}${report[key].length}`);
    if (list) for (const line of report[key]) console.log(`  ${line}`);
  }
  if (list) for (const c of circleList) console.log(`circle: ${c.join(' ')}`);
}
process.exit(broken === 0 ? 0 : 1);
