import { z } from 'zod';
import type { ApiRouter } from './api-router.js';
import type { HealthProbe } from './health.js';
import type { OpenApiRegistry } from '../api/openapi.js';

export const HealthResponse = z.object({
  ok: z.boolean(),
  environment: z.enum(['sandbox', 'production']),
  version: z.string().meta({ description: 'API version label.' }),
  uptimeSeconds: z.number().int().nonnegative(),
  store: z.object({ ok: z.boolean() }),
  chains: z.array(
    z.object({
      name: z.string(),
      chainId: z.number().int(),
      ok: z.boolean(),
      latencyMs: z.number().nullable(),
      error: z.string().optional(),
    }),
  ),
});

/** `GET /health` and `GET /openapi.json`. */
export function mountPlatformRoutes(
  api: ApiRouter,
  openapi: OpenApiRegistry,
  deps: { health: HealthProbe; document(): Record<string, unknown> },
): void {
  openapi.schema('Health', HealthResponse);
  api.route({
    method: 'get',
    path: '/health',
    operationId: 'getHealth',
    summary: 'Service health: 200 when the store and every chain answer, else 503 with the same shape.',
    tags: ['Platform'],
    auth: 'public',
    responses: {
      200: { description: 'Healthy.', schema: HealthResponse },
      503: { description: 'A chain or the store is unavailable.', schema: HealthResponse },
    },
    handler: async () => {
      const report = await deps.health.check();
      return { status: report.ok ? 200 : 503, body: report };
    },
  });
  api.route({
    method: 'get',
    path: '/openapi.json',
    operationId: 'getOpenApiDocument',
    summary: 'This OpenAPI 3.1 document, generated from the schemas that validate requests.',
    tags: ['Platform'],
    auth: 'public',
    responses: { 200: { description: 'OpenAPI 3.1 document.' } },
    handler: () => ({ status: 200, body: deps.document() }),
  });
}
