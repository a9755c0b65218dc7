import { afterAll, describe, expect, it } from 'vitest';
import { runConformance } from './run.js';
import { startOwnSandbox, type OwnSandbox } from '../test/support/conformance/own-sandbox.js';

/**
 * Checks selected on their own (`--only`) run: the checks that look back at what a run made (cursor replay, the
 * webhook retry schedule, pause and enable, deliveries against the WebSocket, page walks, rate-limit headers) make it
 * themselves when the selection ran no flow, or too few, rather than skipping and leaving that part of the deployment
 * unexamined by the run that asked for it. (A scan of every check alone, both profiles, left only
 * quotes.corridor-unavailable skipped: our sandbox has no corridor without solvers.)
 */
const SELECTIONS = {
  // The page walk first, on a fresh sandbox: its lists hold nothing until the flows it runs.
  A: [
    'pagination.walk',
    'ws.replay-by-cursor',
    'webhooks.retry-schedule',
    'webhooks.pause-and-enable',
    'webhooks.deliveries-match-events',
    'ratelimit.observed-values',
    'ws.*',
    'webhooks.*',
  ],
  // Reference B has no paused state (an endpoint that keeps failing is disabled): A's pause check is not B's.
  B: [
    'pagination.walk',
    'ws.replay-by-cursor',
    'webhooks.retry-schedule',
    'webhooks.deliveries-match-events',
    'ratelimit.observed-values',
    'ws.*',
    'webhooks.*',
  ],
};
/** Skips no selection can avoid: real-time waits of 30 s and more run with --long only. */
const ALLOWED_SKIPS = new Set(['webhooks.timeout-30s']);

const started: OwnSandbox[] = [];
afterAll(async () => {
  await Promise.all(started.map((s) => s.stop()));
});

describe.each(['A', 'B'] as const)('checks selected alone, Reference %s', (profile) => {
  let own: Promise<OwnSandbox> | undefined;
  const sandbox = () => {
    own ??= startOwnSandbox({ webhookProfile: profile }).then((s) => (started.push(s), s));
    return own;
  };
  it.each(SELECTIONS[profile])(
    '--only %s: every selected check runs and passes',
    async (only) => {
      const run = await runConformance({ profile, sandbox: (await sandbox()).file, seed: 7, selection: { only: [only] } });
      const results = run.report.results;
      expect(results.length, `nothing selected by ${only}`).toBeGreaterThan(0);
      const problems = results.filter((r) => r.status !== 'PASSED' && !(r.status === 'SKIPPED' && ALLOWED_SKIPS.has(r.id)));
      expect(problems.map((r) => `${r.status} ${r.id}: ${r.message}`)).toEqual([]);
    },
    240_000,
  );
});
