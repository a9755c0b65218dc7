import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runConformance } from './run.js';
import type { SandboxFile } from './deployment/sandbox-file.js';
import { FAULTS, FaultProxy, type Fault } from '../test/support/conformance/fault-proxy.js';
import { startOwnSandbox, type OwnSandbox } from '../test/support/conformance/own-sandbox.js';

/**
 * The suite must be able to fail: a proxy in front of our sandbox breaks one thing at a time and the checks that
 * hold the deployment to that thing fail, while the same checks pass through a faultless proxy.
 */
let own: OwnSandbox;
let proxy: FaultProxy;

beforeAll(async () => {
  own = await startOwnSandbox();
  proxy = await FaultProxy.start(own.url);
}, 120_000);
afterAll(async () => {
  await proxy?.stop();
  await own?.stop();
});

async function run(fault: Fault | undefined, only: string[]) {
  proxy.fault = fault;
  const sandbox: SandboxFile = { ...own.file, api: { ...own.file.api, url: proxy.url } };
  const outcome = await runConformance({ profile: 'A', sandbox, seed: 7, selection: { only } });
  return Object.fromEntries(outcome.report.results.map((r) => [r.id, r]));
}

const cases: Array<{ fault: Fault; only: string[]; fails: string[]; because: RegExp }> = [
  {
    fault: FAULTS.dropHeader('X-RateLimit-Remaining'),
    only: ['ratelimit.headers'],
    fails: ['ratelimit.headers'],
    because: /x-ratelimit-remaining is missing/,
  },
  {
    fault: FAULTS.status(401, 403, /\/api\/v1\//),
    only: ['auth.credential-required', 'auth.invalid-key'],
    fails: ['auth.credential-required', 'auth.invalid-key'],
    because: /answered 403, expected 401/,
  },
  {
    fault: FAULTS.status(404, 200, /\/quotes\/qt_/),
    only: ['quotes.unknown-id'],
    fails: ['quotes.unknown-id'],
    because: /answered 200, expected 404/,
  },
  { fault: FAULTS.unsortQuotes(), only: ['quotes.ranked-best-first'], fails: ['quotes.ranked-best-first'], because: /more than quote/ },
  {
    fault: FAULTS.dropErrorField('doc_url'),
    only: ['errors.a.unknown-route'],
    fails: ['errors.a.unknown-route'],
    because: /doc_url is missing/,
  },
  {
    fault: FAULTS.badWebhookSignature(),
    only: ['webhooks.test-event'],
    fails: ['webhooks.test-event'],
    because: /X-WH-002.*not HMAC-SHA256/,
  },
];

describe('fault-injecting proxy', () => {
  it('passes the same checks when the proxy changes nothing', async () => {
    const results = await run(
      undefined,
      cases.flatMap((c) => c.only),
    );
    const failing = Object.values(results)
      .filter((r) => r.status !== 'PASSED')
      .map((r) => `${r.id}: ${r.message}`);
    expect(failing).toEqual([]);
  }, 60_000);

  it.each(cases)(
    '$fault.name makes $fails fail',
    async ({ fault, only, fails, because }) => {
      const results = await run(fault, only);
      for (const id of fails) {
        expect(results[id]?.status, `${id}: ${results[id]?.message}`).toBe('FAILED');
        expect(results[id]!.message).toMatch(because);
        expect(results[id]!.evidence.length).toBeGreaterThan(0);
      }
    },
    60_000,
  );
});
