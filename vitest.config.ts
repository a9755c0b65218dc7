import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'scenarios/**/*.test.ts', 'conformance/**/*.test.ts', 'test/**/*.test.ts', 'hardening/**/*.test.ts'],
    // SANDBOX_TEST_STORE=postgres: every `:memory:` store on a throwaway Postgres (see the setup file).
    globalSetup: ['test/support/postgres-global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores: files run in parallel forks, each starting its own anvils and service.
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    // A fork runs file after file in one process instead of a new process per file: the modules (viem, the service)
    // load once per fork, not once per file (collect time 66 s → 10 s, the whole run 280–305 s → about 207 s). Test
    // files must therefore leave no process-wide state behind: they stop what they start and restore what they set
    // (process.env, process.exitCode), which they did already; nothing here relies on a module being fresh.
    isolate: false,
  },
});
