// The one matrix of the layers: which folders form each layer and which layers it may import. Both
// scripts/import-graph.mjs (which enforces it) and the table in docs/architecture.md (which it generates, see
// `node scripts/import-graph.mjs --table`) read this file, so the rules and their documentation cannot drift.
//
// A file belongs to the layer whose folder is the longest prefix of its path. A layer may always import itself;
// every other import must name a layer (or a path prefix ending in `/`) in `mayImport`. `never` is the part of the
// complement worth saying out loud in the doc; the checker refuses a matrix whose `never` overlaps `mayImport`.

/**
 * @typedef {object} Layer
 * @property {string} id
 * @property {string[]} folders path prefixes (a folder ends in `/`, a single file does not)
 * @property {string} holds
 * @property {string[]} mayImport layer ids, or path prefixes ending in `/` for part of a layer
 * @property {string[]} never layer ids the doc names as forbidden (informative; everything outside mayImport is)
 * @property {boolean} [notProduction] tests and harnesses: scanned, but production code may not import them
 */

/** @type {Layer[]} */
export const layers = [
  {
    id: 'clock',
    folders: ['src/clock/'],
    holds: 'real and test clock, the scheduler every timed job uses',
    mayImport: [],
    never: ['contracts', 'devnet', 'service'],
  },
  {
    id: 'terminal',
    folders: ['src/terminal/'],
    holds: 'text for people on a terminal: colours (TTY only, NO_COLOR honoured) and padded tables',
    mayImport: [],
    never: ['contracts', 'service', 'cli'],
  },
  {
    id: 'contracts',
    folders: ['src/contracts/'],
    holds:
      'the protocol both sides of the wire share: generated ABIs and bytecode, order types and ids, EIP-712 payloads per lock type, the StandardOrder wire form and its builder, vault calldata, the ledger’s canonical encoding and verifier, solver-stream message schemas, deployment and chain types',
    mayImport: ['clock'],
    never: ['devnet', 'service', 'clients', 'solvers'],
  },
  {
    id: 'devnet',
    folders: ['src/devnet/'],
    holds: 'anvil processes, deployment at fixed addresses, accounts, chain time, snapshots, `sandbox.json`',
    mayImport: ['contracts', 'clock'],
    never: ['service', 'solvers', 'sandbox'],
  },
  {
    id: 'service-kernel',
    folders: [
      'src/service/api/',
      'src/service/errors/',
      'src/service/module.ts',
      'src/service/config.ts',
      'src/service/resolved-config.ts',
      'src/service/lazy-module.ts',
      'src/service/clock-advances.ts',
    ],
    holds:
      '`module.ts` the module contract (express-free), `api/` the express-free description of routes (wire primitives, OpenAPI registry, pagination, who is calling), `errors/` the typed errors and their code registry, the service config types',
    mayImport: ['service-domain', 'contracts', 'clock'],
    never: ['service-adapters', 'service'],
  },
  {
    id: 'service-domain',
    folders: ['src/service/'],
    holds:
      '`src/service/<domain>/`: auction, orders, settlement, events, webhooks, ledger, compliance, auth, store, reference-b… (every folder of src/service not named elsewhere)',
    mayImport: ['service-kernel', 'contracts', 'clock'],
    never: ['service-adapters', 'service'],
  },
  {
    id: 'service-adapters',
    folders: ['src/service/http/', 'src/service/ws/', 'src/service/dashboard/'],
    holds:
      'the express and ws adapters: routing, validation, error rendering, rate limits, idempotency, upgrades, the solver and taker streams, the dashboard page; they reach the domain through its types and ports',
    mayImport: ['service-kernel', 'service-domain', 'contracts', 'clock'],
    never: ['service'],
  },
  {
    id: 'service',
    folders: [
      'src/service/app.ts',
      'src/service/realtime-config.ts',
      'src/service/auth-module.ts',
      'src/service/corridors-module.ts',
      'src/service/sandbox-clock.ts',
    ],
    holds:
      '`createService`: composes the modules and the adapters into one service; the platform modules that mount adapter routes (auth, corridors, the sandbox clock); the real-time settings of the adapters',
    mayImport: ['service-kernel', 'service-domain', 'service-adapters', 'contracts', 'clock'],
    never: ['cli', 'sandbox', 'solvers', 'scenarios', 'conformance'],
  },
  {
    id: 'clients',
    folders: ['src/clients/'],
    holds: 'wire clients: REST, WebSocket, solver stream, webhook verifier',
    mayImport: ['contracts', 'clock'],
    never: ['service', 'service-kernel', 'service-domain', 'solvers'],
  },
  {
    id: 'solvers',
    folders: ['src/solvers/'],
    holds: 'reference solver strategies, real clients of the solver stream',
    mayImport: ['clients', 'contracts', 'clock'],
    never: ['service', 'service-kernel', 'service-domain', 'devnet'],
  },
  {
    id: 'dashboard',
    folders: ['src/dashboard/'],
    holds: 'the browser page (bundled by esbuild); talks to the service over HTTP and WebSocket like any client',
    mayImport: ['contracts'],
    never: ['service', 'devnet', 'clients', 'solvers', 'sandbox'],
  },
  {
    id: 'sandbox',
    folders: ['src/sandbox/'],
    holds: 'the composition root: devnet + service + solvers into a running sandbox, daemon, supervisor',
    mayImport: ['devnet', 'service', 'service-kernel', 'service-domain', 'service-adapters', 'clients', 'solvers', 'contracts', 'clock'],
    never: ['cli', 'scenarios', 'conformance'],
  },
  {
    id: 'scenarios',
    folders: ['scenarios/'],
    holds: 'scripted takers and solvers',
    mayImport: ['sandbox', 'devnet', 'clients', 'solvers', 'contracts', 'clock', 'terminal'],
    never: ['service', 'service-kernel', 'service-domain', 'cli'],
  },
  {
    id: 'hardening',
    folders: ['hardening/'],
    holds:
      'campaigns (`npm run harden`): crash, fuzz, load, tamper; test tooling, so it may use the test harnesses, and it judges answers with the conformance checks’ wire rules',
    mayImport: ['sandbox', 'devnet', 'clients', 'solvers', 'conformance', 'contracts', 'clock', 'test-support', 'terminal'],
    never: ['service', 'service-kernel', 'service-domain', 'cli'],
  },
  {
    id: 'conformance',
    folders: ['conformance/'],
    holds: 'requirement catalogue, checks, runner, reporters, certify modes — over the wire only',
    mayImport: ['clients', 'contracts', 'clock', 'terminal'],
    never: ['service', 'service-kernel', 'service-domain', 'sandbox', 'devnet'],
  },
  {
    id: 'api',
    folders: ['src/index.ts', 'src/api/'],
    holds:
      'the package’s public entry (`settlement-sandbox`): `up`/`down`/`attach` with clients, clock and fault switches, the vitest global setup, re-exports of the runners',
    mayImport: ['sandbox', 'scenarios', 'conformance', 'devnet', 'clients', 'solvers', 'contracts', 'clock'],
    never: ['cli', 'service', 'test-support'],
  },
  {
    id: 'cli',
    folders: ['src/cli/'],
    holds: 'the `sandbox` commands (commander): parse, call, print',
    mayImport: [
      'sandbox',
      'scenarios',
      'conformance',
      'hardening',
      'devnet',
      'service',
      'service-kernel',
      'service-domain',
      'service-adapters',
      'clients',
      'solvers',
      'contracts',
      'clock',
      'terminal',
      'api',
    ],
    never: ['test-support'],
  },
  {
    id: 'scripts',
    folders: ['scripts/'],
    holds: 'build, bench and release tooling; bench rows load the compiled `dist/` by string path, checked as imports of the source',
    mayImport: [
      'cli',
      'sandbox',
      'scenarios',
      'conformance',
      'hardening',
      'devnet',
      'service',
      'service-kernel',
      'service-domain',
      'service-adapters',
      'clients',
      'solvers',
      'dashboard',
      'contracts',
      'clock',
    ],
    never: ['test-support'],
  },
  {
    id: 'test-support',
    folders: ['test/support/'],
    holds: 'harnesses shared by tests (test solvers, test takers, fake targets, fault proxies)',
    mayImport: [
      'cli',
      'sandbox',
      'scenarios',
      'conformance',
      'hardening',
      'devnet',
      'service',
      'service-kernel',
      'service-domain',
      'service-adapters',
      'clients',
      'solvers',
      'contracts',
      'clock',
    ],
    never: [],
    notProduction: true,
  },
  {
    id: 'test-interop',
    folders: ['test/interop/'],
    holds:
      'outside clients: code written only from upstream sources and our docs, with other libraries (ethers, Uniswap’s Permit2 SDK, raw `fetch` and `ws`), checking every compatibility claim the docs make',
    mayImport: ['sandbox', 'devnet', 'conformance/certify/', 'test-support'],
    never: ['clients', 'solvers'],
    notProduction: true,
  },
];

/**
 * Packages only some layers may load. `express` (and its `express-*` helpers) is the HTTP adapter; `ws` is the
 * WebSocket server adapter and the raw socket of a wire client. `viem` is what our own code uses, so the outside
 * clients of test/interop must not.
 */
export const packageRules = [
  {
    pattern: /^express($|\/|-)|^@types\/express/,
    name: 'express',
    allowedIn: ['src/service/http/', 'src/service/dashboard/', 'src/service/app.ts', 'test/support/'],
    why: 'express is the HTTP adapter: the routers, middleware and the dashboard page; domains and the module contract stay express-free',
  },
  {
    pattern: /^ws($|\/)/,
    name: 'ws',
    allowedIn: [
      'src/service/ws/',
      'src/service/settlement/log-stream.ts',
      'src/clients/',
      'conformance/wire/',
      'hardening/',
      'scripts/',
      'test/',
    ],
    why: 'ws is the service’s WebSocket adapter (src/service/ws/) and the raw socket of wire clients: our clients, the conformance wire, fuzzing and bench takers, outside clients in tests, and the settlement log stream’s JSON-RPC subscription to a chain',
  },
  {
    pattern: /^viem($|\/)/,
    name: 'viem',
    allowedIn: ['src/', 'scenarios/', 'conformance/', 'hardening/', 'scripts/', 'test/support/'],
    why: 'test/interop checks our compatibility claims with other libraries (ethers, the Permit2 SDK), never with the one we use',
  },
];

/**
 * "Where a change goes" in docs/architecture.md: every place named here must exist in the tree (the checker
 * verifies it and the doc's table is generated from these rows).
 */
export const changePlaces = [
  {
    change: 'A new field on the wire that both the service and a client read',
    places: ['src/contracts/'],
    how: 'the type, zod schema or encoder first; then the service’s route or projection, then the client',
  },
  {
    change: 'A new route',
    places: ['src/service/api/', 'src/service/errors/', 'src/contracts/errors/'],
    how: 'the domain’s `routes.ts`, declared with the types of `src/service/api/`; its errors in `src/service/errors/`, their codes in the one registry `src/contracts/errors/error-codes.ts` (a test fails on an unregistered code); its schemas next to the domain, or in `src/contracts/wire/` when a client reads them too. A domain never imports `http/` or `ws/`',
  },
  {
    change: 'A new error class',
    places: ['src/contracts/errors/'],
    how: 'extend `BaseError` (short message, details, docs path, code, cause walk); never `Error` directly',
  },
  {
    change: 'A new fault kind or event type',
    places: ['src/contracts/'],
    how: 'a row of `fault-kinds.ts` (the CLI help, the dashboard panel and docs/faults.md follow it, checked by a test) or of `event-types.ts` (type, generation, payload)',
  },
  {
    change: 'A new way to start or configure a sandbox',
    places: ['src/sandbox/'],
    how: '`startSandbox` and its components; every service option goes through `serviceConfigFor` (`service-config.ts`), which `up`, the in-process sandbox, certify and hardening all use',
  },
  {
    change: 'A new WebSocket endpoint or HTTP middleware',
    places: ['src/service/ws/', 'src/service/http/'],
    how: 'the adapter; the domain exposes a port (an interface in the domain folder) the adapter implements or calls, and `app.ts` wires the two',
  },
  {
    change: 'A new timed job',
    places: ['src/clock/'],
    how: 'schedule it through the clock; never `setTimeout`/`Date.now()` for business time',
  },
  {
    change: 'A contract change',
    places: ['contracts/src/', 'contracts/test/', 'src/contracts/artifacts/'],
    how: 'the Solidity, a forge test, then `npm run build:contracts` regenerates the artifacts',
  },
  {
    change: 'A new command',
    places: ['src/cli/commands/', 'src/sandbox/'],
    how: 'one file per command; the assembly it needs goes to `src/sandbox/`',
  },
  {
    change: 'A helper only tests use',
    places: ['test/support/'],
    how: 'never a `testing/` folder inside production code',
  },
  {
    change: 'A doc that claims compatibility with outside code',
    places: ['test/interop/'],
    how: 'a test written from the outside source with another library, named next to the claim',
  },
  {
    change: 'A scenario',
    places: ['scenarios/catalogue/'],
    how: 'one file per scenario',
  },
  {
    change: 'A conformance check',
    places: ['conformance/checks/', 'conformance/catalogue/'],
    how: 'the check, with its requirement id in the catalogue',
  },
  {
    change: 'A layer rule',
    places: ['scripts/layers.mjs'],
    how: 'the matrix; regenerate this doc’s tables with `node scripts/import-graph.mjs --write-doc`',
  },
];

/**
 * Crossings that parallel steps of issue #31 remove (listed, not fixed here, so the steps do not collide). The
 * checker reports them apart and does not count them; it fails on an entry that no longer occurs, so each is
 * deleted in the change that removes it. Every entry is `file -> imported file`.
 */
export const pendingCrossings = [];
