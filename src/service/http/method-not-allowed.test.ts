import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatAError, startTestService, type TestService } from '../../../test/support/service/service.js';

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t.stop());

describe('unsupported methods', () => {
  it('a path that exists answers 405 with Allow (the methods OPTIONS reports), in Format A', async () => {
    const answer = await t.request('PUT', '/api/v1/health');
    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expect(formatAError(answer)).toMatchObject({ type: 'invalid_request', code: 'method_not_allowed' });
    const options = await t.request('OPTIONS', '/api/v1/health');
    expect(options.headers.get('allow')?.split(/,\s*/).sort()).toEqual(['GET', 'HEAD']);
  });

  it('lists every method of a path with several, and parameterised paths match', async () => {
    const answer = await t.request('PATCH', '/api/v1/webhooks/wh_unknown');
    expect(answer.status).toBe(405);
    const allowed = answer.headers.get('allow')!.split(', ');
    expect(allowed).toContain('GET');
    expect(allowed).toContain('OPTIONS');
    expect(allowed).not.toContain('PATCH');
  });

  it('a Reference B path answers a method it lacks in Format A (there is no route, so no Format B)', async () => {
    const answer = await t.request('GET', '/api/v1/rfq');
    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toBe('OPTIONS, POST');
    expect(formatAError(answer)).toMatchObject({ type: 'invalid_request', code: 'method_not_allowed' });
  });

  it('a literal path is not taken by a templated sibling: its own methods in 405s and in OPTIONS', async () => {
    for (const [method, path, allow] of [
      ['DELETE', '/api/v1/auth/sessions/revoke-others', 'OPTIONS, POST'],
      ['GET', '/api/v1/solvers/register', 'OPTIONS, POST'],
    ] as const) {
      const answer = await t.request(method, path);
      expect(answer.status, `${method} ${path}`).toBe(405);
      expect(answer.headers.get('allow')).toBe(allow);
      expect(formatAError(answer)).toMatchObject({ code: 'method_not_allowed' });
      const options = await t.request('OPTIONS', path);
      expect(options.status).toBe(200);
      expect(options.headers.get('allow')).toBe('POST');
    }
    // The templated route still answers its own ids.
    const solver = await t.request('GET', '/api/v1/solvers/slv_unknown');
    expect(solver.status).toBe(404);
    const options = await t.request('OPTIONS', '/api/v1/solvers/slv_unknown');
    expect(options.headers.get('allow')).toBe('GET, HEAD');
  });

  it('a path that does not exist is still a 404 route_not_found', async () => {
    const answer = await t.request('PUT', '/api/v1/nothing-here');
    expect(answer.status).toBe(404);
    expect(formatAError(answer)).toMatchObject({ code: 'route_not_found' });
  });
});
