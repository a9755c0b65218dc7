import { defineConfig } from 'vitest/config';

// `npm run test:compose`: the sandbox composed of containers (deploy/compose.yaml) through testcontainers; needs a
// Docker engine and the project image (`npm run image`). Not part of `npm test` yet (see vitest.config.ts).
export default defineConfig({
  test: {
    include: ['test/compose/**/*.test.ts'],
    testTimeout: 600_000,
    hookTimeout: 600_000,
    pool: 'forks',
  },
});
