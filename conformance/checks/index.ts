import type { Check } from '../core/runner.js';
import { eventChecks } from './events.js';
import { orderChecks } from './orders.js';
import { projectChecks } from './project.js';
import { authChecks } from './platform/auth.js';
import { corridorChecks } from './platform/corridors.js';
import { errorChecks } from './platform/errors.js';
import { healthChecks } from './platform/health.js';
import { idempotencyChecks } from './platform/idempotency.js';
import { paginationChecks } from './platform/pagination.js';
import { rateLimitChecks } from './platform/rate-limits.js';
import { quoteChecks } from './quotes.js';
import { referenceBChecks } from './reference-b.js';
import { settlementChecks } from './settlements.js';
import { solverChecks } from './solvers.js';
import { webhookChecks } from './webhooks.js';
import { valueChecks } from './values/index.js';
import { wsChecks } from './ws.js';

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
    ...quoteChecks,
    ...orderChecks,
    ...settlementChecks,
    ...eventChecks,
    ...wsChecks,
    ...webhookChecks,
    ...solverChecks,
    ...referenceBChecks,
    ...projectChecks,
    ...valueChecks,
  ];
}
