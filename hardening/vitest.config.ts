// Runs the hardening tests on their own (`npx vitest run --config hardening/vitest.config.ts`) until the root
// vitest.config.ts includes `hardening/**/*.test.ts`; every other setting is the root's.
import { defineConfig } from 'vitest/config';
import root from '../vitest.config.js';

export default defineConfig({ ...root, test: { ...root.test, include: ['hardening/**/*.test.ts'] } });
