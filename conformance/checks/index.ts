import type { Check } from '../core/runner.js';
import { authChecks } from './platform/auth.js';
import { corridorChecks } from './platform/corridors.js';
import { errorChecks } from './platform/errors.js';
import { healthChecks } from './platform/health.js';
import { idempotencyChecks } from './platform/idempotency.js';
import { paginationChecks } from './platform/pagination.js';
import { rateLimitChecks } from './platform/rate-limits.js';

/** Every check of the suite, in declaration order (the runner orders them by phase). */
export function allChecks(): Check[] {
  return [
    ...healthChecks,
    ...corridorChecks,
    ...authChecks,
    ...errorChecks,
    ...paginationChecks,
    ...idempotencyChecks,
    ...rateLimitChecks,
  ];
}
