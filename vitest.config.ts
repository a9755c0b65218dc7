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
  },
});
