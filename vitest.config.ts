import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'scenarios/**/*.test.ts', 'conformance/**/*.test.ts', 'test/**/*.test.ts', 'hardening/**/*.test.ts'],
    // The composed sandbox across containers (docs/deployment.md) runs with a config of its own, as the last step of
    // `npm test` (`npm run test:compose`): it needs a Docker engine and starts containers, not loopback processes.
    exclude: [...configDefaults.exclude, 'test/compose/**'],
    // SANDBOX_TEST_STORE=postgres: every `:memory:` store on a throwaway Postgres (see the setup file).
    globalSetup: ['test/support/postgres-global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores: files run in parallel forks, each starting its own anvils and service.
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    // Each file still gets a process of its own (vitest's default isolation). Without it (`isolate: false`) the modules
    // load once per fork and the whole run took 207–219 s instead of 280–305 s, and every file passed in two local
    // runs; but in the one fresh-clone CI run tried, the quick failover campaign (hardening/harden.test.ts) left an
    // order short of a terminal state after 45 s, which 10 separate runs of that campaign did not reproduce. Isolation
    // stays until that is understood (the campaign now reports which statuses such an order went through). The tests
    // under src/ do share a module cache per fork in `npm test` (vitest.src.config.ts, used by test:ts and test:postgres).
  },
});
