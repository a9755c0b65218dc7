import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/**
 * The tests under src/ as `npm test` runs them (`test:ts` on SQLite, `test:postgres` for src/service on Postgres):
 * the settings of vitest.config.ts, but the files a fork runs share its module cache (`isolate: false`) instead of
 * a process each. Most of these files load the whole service or the devnet (HTTP, store, viem, signatures), and
 * loading it again for every file was a third of what they cost: src/service on Postgres 183 → 125 CPU-s, on SQLite
 * 143 → 85, the rest of src/ about 136 → 106, all passing. They can share it: every test builds its own service,
 * store, clock and chains (`startTestService`, `startTestAnvil`, a `:memory:` store or a Postgres schema of its own),
 * none mocks a module, and the few that set an environment variable put it back. The suites outside src/
 * (conformance, scenarios, hardening, test/) keep a process per file (vitest.config.ts says why).
 */
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ['src/**/*.test.ts'],
    poolOptions: { forks: { ...base.test?.poolOptions?.forks, isolate: false } },
  },
});
