import { describe, expect, it } from 'vitest';
import { ErrorFormatRoutes } from './error-handler.js';

describe('error format routing', () => {
  it('matches a parameter that follows literal text in a segment, and nothing else', () => {
    const routes = new ErrorFormatRoutes();
    routes.add('get', '/api/v1/quotes/rfq_:rfqIdSuffix', 'B');
    routes.add('post', '/api/v1/accept', 'B');
    expect(routes.formatFor('GET', '/api/v1/quotes/rfq_abc123')).toBe('B');
    expect(routes.formatFor('GET', '/api/v1/quotes/qt_abc123')).toBe('A');
    expect(routes.formatFor('GET', '/api/v1/quotes/rfq_abc/extra')).toBe('A');
    expect(routes.formatFor('POST', '/api/v1/accept')).toBe('B');
    expect(routes.formatFor('GET', '/api/v1/accept')).toBe('A');
  });
});
