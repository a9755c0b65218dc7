import type { RouteTable } from '../api/route.js';
import type { OpenApiRegistry } from '../api/openapi.js';
import type { CorridorCatalogue } from './catalogue.js';
import { Corridor, CorridorList, CorridorToken, LockType } from './schemas.js';

export function mountCorridorRoutes(api: RouteTable, openapi: OpenApiRegistry, catalogue: CorridorCatalogue): void {
  openapi.schema('LockType', LockType);
  openapi.schema('CorridorToken', CorridorToken);
  openapi.schema('Corridor', Corridor);
  openapi.schema('CorridorList', CorridorList);
  api.route({
    method: 'get',
    path: '/corridors',
    operationId: 'listCorridors',
    summary: 'Corridors this deployment settles, with notional bounds, oracle, lock types and live solver count.',
    tags: ['Corridors'],
    auth: 'public',
    responses: { 200: { description: 'All corridors.', schema: CorridorList } },
    handler: () => ({ status: 200, body: { corridors: catalogue.list() } }),
  });
}
