#!/usr/bin/env node
// Reads the import graph of the tree (TypeScript and the .mjs tooling) and enforces the layer matrix of
// scripts/layers.mjs, which docs/architecture.md's tables are generated from: import circles, folder cycles inside
// src/service, every import that leaves a layer for one it may not import, packages outside their adapters,
// harness folders inside production code, and places the "where a change goes" table names that do not exist.
// Usage: node scripts/import-graph.mjs [--json] [--list] [--write-doc]
// Exit code 1 when a figure is not 0, so `npm test` keeps the layers honest.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { changePlaces, layers, packageRules, pendingCrossings } from './layers.mjs';

const root = resolve(dirname(new URL(import.meta.url).pathname), '..');
const docPath = join(root, 'docs/architecture.md');
const productionRoots = ['src', 'scenarios', 'conformance', 'hardening', 'scripts'];
const posix = (path) => path.split(sep).join('/');

function walk(dir, out) {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name === 'artifacts-cache') continue;
    const full = join(dir, name);
    if (statSync(full).isDirectory()) walk(full, out);
    else if (/\.(ts|mts|mjs)$/.test(name) && !name.endsWith('.d.ts')) out.push(posix(relative(root, full)));
  }
  return out;
}

const isTest = (file) => /\.test\.ts$/.test(file);
const production = productionRoots.flatMap((r) => walk(join(root, r), [])).filter((f) => !isTest(f));
// test/support and test/interop have rules of their own (the table's last rows); they are not production code.
const supportFiles = walk(join(root, 'test/support'), []);
const interopFiles = walk(join(root, 'test/interop'), []);
const scanned = [...production, ...supportFiles, ...interopFiles];
const known = new Set(scanned);

const importPattern =
  /(?:^|[;\s])(?:import|export)\s[^;]*?from\s*["']([^"']+)["']|(?:^|[;\s])import\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/gs;
// Bench rows and scripts load the compiled tree by string path (`dist/src/service/app.js`, or `load('src/…js')`
// joined onto dist/): each such path is an import of the source file it was compiled from.
const distPathPattern = /["'`](?:dist\/)?((?:src|scenarios|conformance|hardening)\/[\w./-]+?)\.js["'`]/g;

function resolveRelative(from, spec) {
  const base = posix(relative(root, resolve(root, dirname(from), spec)));
  for (const candidate of [base.replace(/\.js$/, '.ts'), base.replace(/\.js$/, '.mjs'), `${base}.ts`, `${base}/index.ts`, base]) {
    if (known.has(candidate)) return candidate;
  }
  return undefined;
}

const builtins = new Set(builtinModules);
const packageOf = (spec) => (spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);

/** @type {Map<string, {to: string, line: string}[]>} */
const edges = new Map();
/** @type {Map<string, string[]>} packages each file loads */
const packages = new Map();
for (const file of scanned) {
  const text = readFileSync(join(root, file), 'utf8');
  const list = [];
  const used = [];
  for (const match of text.matchAll(importPattern)) {
    const spec = match[1] ?? match[2] ?? match[3];
    if (spec.startsWith('.')) {
      const target = resolveRelative(file, spec);
      if (target) list.push({ to: target });
    } else if (!spec.startsWith('node:') && !builtins.has(packageOf(spec))) {
      used.push(spec);
    }
  }
  if (file.endsWith('.mjs')) {
    for (const match of text.matchAll(distPathPattern)) {
      const source = `${match[1]}.ts`;
      if (known.has(source)) list.push({ to: source });
    }
  }
  edges.set(file, list);
  packages.set(file, used);
}

// --- the matrix itself ---------------------------------------------------------------------------------------
const byId = new Map(layers.map((layer) => [layer.id, layer]));
const matrixProblems = [];
for (const layer of layers) {
  for (const id of [...layer.mayImport, ...layer.never]) {
    if (!id.endsWith('/') && !byId.has(id)) matrixProblems.push(`${layer.id}: unknown layer ${id}`);
  }
  for (const id of layer.never) if (layer.mayImport.includes(id)) matrixProblems.push(`${layer.id}: ${id} is both allowed and forbidden`);
  for (const folder of layer.folders) if (!existsSync(join(root, folder))) matrixProblems.push(`${layer.id}: ${folder} does not exist`);
}
const folderOwners = layers.flatMap((layer) => layer.folders.map((folder) => ({ folder, layer })));
folderOwners.sort((a, b) => b.folder.length - a.folder.length);
/** The layer of a file: the one whose folder is the longest prefix of its path. */
const layerOf = (file) => folderOwners.find(({ folder }) => (folder.endsWith('/') ? file.startsWith(folder) : file === folder))?.layer;

// --- figures -------------------------------------------------------------------------------------------------
// Tarjan's strongly connected components over any graph given as a map of node -> successor nodes.
function components(nodes, next) {
  let index = 0;
  const stack = [];
  const state = new Map();
  const found = [];
  const visit = (v) => {
    state.set(v, { index, low: index, onStack: true });
    index += 1;
    stack.push(v);
    for (const to of next(v)) {
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
  for (const v of nodes) if (!state.has(v)) visit(v);
  return found;
}

const productionSet = new Set(production);
const circleList = components(production, (v) => (edges.get(v) ?? []).map((e) => e.to).filter((to) => productionSet.has(to)));

// Folder cycles inside src/service: each folder (and each top-level file) is one unit; two units that reach each
// other are knotted even when no single file circle exists.
const serviceUnit = (file) =>
  file.startsWith('src/service/') ? file.slice('src/service/'.length).split('/')[0].replace(/\.ts$/, '') : undefined;
const unitEdges = new Map();
for (const file of production) {
  const from = serviceUnit(file);
  if (from === undefined) continue;
  for (const { to } of edges.get(file) ?? []) {
    const target = serviceUnit(to);
    if (target === undefined || target === from) continue;
    if (!unitEdges.has(from)) unitEdges.set(from, new Map());
    const lines = unitEdges.get(from).get(target) ?? [];
    lines.push(`${file} -> ${to}`);
    unitEdges.get(from).set(target, lines);
  }
}
const serviceCycles = components([...unitEdges.keys()], (u) => [...(unitEdges.get(u)?.keys() ?? [])]);
// The pairs inside each cycle, with the imports that make them (both directions).
const serviceCyclePairs = serviceCycles.flatMap((members) =>
  members.flatMap((a) =>
    [...(unitEdges.get(a)?.keys() ?? [])]
      .filter((b) => members.includes(b))
      .map((b) => ({ pair: `${a} -> ${b}`, imports: unitEdges.get(a).get(b) })),
  ),
);

const pending = new Map(pendingCrossings.flatMap((entry) => entry.imports.map((line) => [line, entry.removedBy])));
const pendingSeen = new Set();
const layerCrossings = [];
for (const file of scanned) {
  const from = layerOf(file);
  if (from === undefined) continue;
  for (const { to } of edges.get(file) ?? []) {
    const target = layerOf(to);
    if (target === undefined || target === from) continue;
    const allowed = from.mayImport.some((entry) => (entry.endsWith('/') ? to.startsWith(entry) : entry === target.id));
    if (allowed) continue;
    if (pending.has(`${file} -> ${to}`)) pendingSeen.add(`${file} -> ${to}`);
    else layerCrossings.push(`${from.id} -> ${target.id}: ${file} -> ${to}`);
  }
}

const adapterPackages = [];
for (const file of scanned) {
  for (const spec of packages.get(file) ?? []) {
    for (const rule of packageRules) {
      if (rule.pattern.test(spec) && !rule.allowedIn.some((prefix) => (prefix.endsWith('/') ? file.startsWith(prefix) : file === prefix))) {
        adapterPackages.push(`${rule.name}: ${file} imports ${spec}`);
      }
    }
  }
}

// A pending entry that no longer occurs is stale: delete it with the change that removed the crossing.
const stalePending = [...pending.keys()].filter((line) => !pendingSeen.has(line)).map((line) => `no longer imported: ${line}`);
const pendingList = [...pendingSeen].map((line) => `${line}  (${pending.get(line)})`);

const harnessFolders = [
  ...new Set(production.filter((f) => /(^|\/)(testing|test-support)(\/|\.ts$)/.test(f)).map((f) => f.replace(/\/[^/]+$/, ''))),
];
const missingChangePlaces = changePlaces.flatMap((row) =>
  row.places.filter((place) => !existsSync(join(root, place))).map((place) => `${row.change}: ${place}`),
);

// --- the doc's generated tables --------------------------------------------------------------------------------
const code = (text) => `\`${text}\``;
const layerName = (id) => (id.endsWith('/') ? code(id) : id);
function layerTable() {
  const rows = layers.map((layer) => {
    const may = layer.mayImport.length === 0 ? 'nothing of ours' : layer.mayImport.map(layerName).join(', ');
    const never = layer.never.length === 0 ? '—' : `${layer.never.map(layerName).join(', ')}, and every layer not listed`;
    return `| ${layer.id} | ${layer.folders.map(code).join(' ')} | ${layer.holds} | ${may} | ${layer.id === 'clock' ? 'everything else' : never} |`;
  });
  return ['| layer | folders | holds | may import | never imports |', '|---|---|---|---|---|', ...rows].join('\n');
}
function packageTable() {
  const rows = packageRules.map((rule) => `| \`${rule.name}\` | ${rule.allowedIn.map(code).join(' ')} | ${rule.why} |`);
  return ['| package | only in | why |', '|---|---|---|', ...rows].join('\n');
}
function changeTable() {
  const rows = changePlaces.map((row) => `| ${row.change} | ${row.places.map(code).join(' ')} | ${row.how} |`);
  return ['| change | goes to | how |', '|---|---|---|', ...rows].join('\n');
}
const generated = { layers: layerTable(), packages: packageTable(), 'change-places': changeTable() };
const markerPattern = (name) => new RegExp(`(<!-- ${name}:begin[^>]*-->\\n)([\\s\\S]*?)\\n?(<!-- ${name}:end -->)`);

let doc = existsSync(docPath) ? readFileSync(docPath, 'utf8') : '';
if (process.argv.includes('--write-doc')) {
  for (const [name, table] of Object.entries(generated)) doc = doc.replace(markerPattern(name), `$1${table}\n$3`);
  writeFileSync(docPath, doc);
}
const docOutOfDate = Object.entries(generated)
  .filter(([name, table]) => doc.match(markerPattern(name))?.[2] !== table)
  .map(([name]) => `docs/architecture.md: the ${name} table is not the one scripts/layers.mjs generates (run --write-doc)`);

const report = {
  files: production.length,
  circles: circleList.length,
  filesInCircles: circleList.reduce((n, c) => n + c.length, 0),
  serviceFolderCycles: serviceCycles.map((members) => members.join(' <-> ')),
  layerCrossings,
  stalePending,
  adapterPackages,
  harnessFoldersInProduction: harnessFolders,
  missingChangePlaces,
  matrixProblems,
  docOutOfDate,
  pendingCrossings: pendingList,
  circleMembers: circleList,
  serviceCyclePairs,
};

const ruleKeys = [
  'serviceFolderCycles',
  'layerCrossings',
  'stalePending',
  'adapterPackages',
  'harnessFoldersInProduction',
  'missingChangePlaces',
  'matrixProblems',
  'docOutOfDate',
];
const broken = report.circles + ruleKeys.reduce((n, key) => n + report[key].length, 0);

if (process.argv.includes('--json')) {
  console.log(JSON.stringify(report, null, 2));
} else {
  const list = process.argv.includes('--list');
  console.log(`files scanned              ${scanned.length} (${report.files} production)`);
  console.log(`import circles             ${report.circles} (${report.filesInCircles} files)`);
  if (list) for (const c of circleList) console.log(`  circle: ${c.join(' ')}`);
  for (const key of ruleKeys) {
    console.log(`${key.padEnd(27)}${report[key].length}`);
    if (!list) continue;
    if (key === 'serviceFolderCycles') {
      for (const line of report.serviceFolderCycles) console.log(`  cycle: ${line}`);
      for (const { pair, imports } of serviceCyclePairs) console.log(`  ${pair}\n${imports.map((i) => `      ${i}`).join('\n')}`);
    } else {
      for (const line of report[key]) console.log(`  ${line}`);
    }
  }
  console.log(`pending (not counted)       ${pendingList.length}`);
  if (list) for (const line of pendingList) console.log(`  ${line}`);
  if (!list && layerCrossings.length > 0) {
    const byPair = new Map();
    for (const line of layerCrossings) {
      const pair = line.slice(0, line.indexOf(':'));
      byPair.set(pair, (byPair.get(pair) ?? 0) + 1);
    }
    for (const [pair, n] of byPair) console.log(`  ${pair.padEnd(40)}${n}`);
  }
}
process.exit(broken === 0 ? 0 : 1);
