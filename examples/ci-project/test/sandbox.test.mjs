import { attach } from 'settlement-sandbox';
import { expect, inject, it } from 'vitest';

// The global setup hands over the sandbox twice: SANDBOX_STATE_DIR for attach(), and inject('settlementSandbox').
const sandbox = attach(process.env.SANDBOX_STATE_DIR);

it('runs a sandbox of its own for this test run', async () => {
  const provided = inject('settlementSandbox');
  expect(provided.stateDir).toBe(sandbox.stateDir);
  expect(provided.manifest.api.url).toBe(sandbox.manifest.api.url);
  expect((await sandbox.clients.rest.corridors()).length).toBeGreaterThan(0);
});

it('moves its clock without touching anyone else', async () => {
  const advance = await sandbox.clock.advance('1h');
  expect(advance.advancedMs).toBe(3_600_000);
});
