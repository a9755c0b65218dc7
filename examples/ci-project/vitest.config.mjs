import { defineConfig } from 'vitest/config';

// One sandbox for the whole run, started and stopped by the package's global setup (docs/api.md).
export default defineConfig({
  test: { include: ['test/**/*.test.mjs'], globalSetup: ['settlement-sandbox/vitest'], testTimeout: 30_000 },
});
