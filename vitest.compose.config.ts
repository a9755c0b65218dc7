import { defineConfig } from 'vitest/config';

// `npm run test:compose` (the last step of `npm test`): the sandbox composed of containers (deploy/compose.yaml)
// through testcontainers. Needs a Docker engine; builds the project image and the Postgres image when missing
// (`npm run image`, deploy/postgres/build.sh), and skips without an engine unless SANDBOX_REQUIRE_DOCKER=1.
export default defineConfig({
  test: {
    include: ['test/compose/**/*.test.ts'],
    testTimeout: 600_000,
    hookTimeout: 600_000,
    pool: 'forks',
  },
});
