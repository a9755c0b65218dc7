import type { Target } from '../../../conformance/deployment/discover.js';

/** A target for runner and reporter tests that never touch the wire. */
export function fakeTarget(overrides: Partial<Target> = {}): Target {
  return {
    url: 'http://127.0.0.1:9',
    apiBase: 'http://127.0.0.1:9/api/v1',
    wsUrl: 'ws://127.0.0.1:9/api/v1/ws',
    solverStreamUrl: 'ws://127.0.0.1:9/ws/v1/solver/stream',
    profile: 'A',
    environment: 'sandbox',
    capabilities: new Set(['apiKey']),
    missing: { clock: 'no sandbox clock control' },
    corridors: [],
    sandboxRoutes: [],
    documentedOperations: new Set(),
    discovery: [],
    apiKey: 'svc_test_abc_0123',
    ...overrides,
  };
}
