import type { OpenApiRegistry } from '../api/openapi.js';
import { pageEnvelope, PageQuery, pageSchema, toPageRequest } from '../api/pagination.js';
import type { RouteTable } from '../api/route.js';
import { requireRole } from '../members/roles.js';
import type { PlatformRepositories } from '../store/repositories.js';
import { type Counterparties, counterpartyView } from './counterparties.js';
import { CounterpartyCreateRequest, CounterpartyParams, CounterpartyView } from './schemas.js';

const tags = ['Compliance'];

/** `/api/v1/counterparties`: register (screened at once), list and read the workspace's counterparties. */
export function mountCounterpartyRoutes(
  api: RouteTable,
  openapi: OpenApiRegistry,
  counterparties: Counterparties,
  repos: PlatformRepositories,
): void {
  openapi.schema('Counterparty', CounterpartyView);

  api.route({
    method: 'post',
    path: '/counterparties',
    operationId: 'registerCounterparty',
    summary: 'Registers a counterparty (name, jurisdiction, wallet addresses) and screens it at once (developer or admin).',
    description:
      'Sandbox: screening is mocked and deterministic (a sanctioned jurisdiction or a sanctioned address fails it); ' +
      'production: every address must be on the allow list. A failed counterparty is kept, and its addresses are ' +
      'refused on the compliant rail with 403 `compliance_rejected`.',
    tags,
    auth: 'required',
    body: CounterpartyCreateRequest,
    responses: {
      201: {
        description: 'Registered and screened.',
        schema: CounterpartyView,
        links: { Counterparty: { operationId: 'getCounterparty', parameters: { counterpartyId: '$response.body#/id' } } },
      },
    },
    handler: ({ auth, body }) => {
      requireRole(repos, auth, 'developer');
      return { status: 201, body: counterpartyView(counterparties.register(auth!.workspaceId, body)) };
    },
  });

  api.route({
    method: 'get',
    path: '/counterparties',
    operationId: 'listCounterparties',
    summary: "The workspace's counterparties, newest first.",
    tags,
    auth: 'required',
    query: PageQuery,
    responses: { 200: { description: 'A page of counterparties.', schema: pageSchema(CounterpartyView) } },
    handler: ({ auth, query }) => {
      requireRole(repos, auth, 'viewer');
      return { status: 200, body: pageEnvelope(counterparties.page(auth!.workspaceId, toPageRequest(query)), counterpartyView) };
    },
  });

  api.route({
    method: 'get',
    path: '/counterparties/:counterpartyId',
    operationId: 'getCounterparty',
    summary: 'One counterparty with its screening result.',
    tags,
    auth: 'required',
    params: CounterpartyParams,
    responses: { 200: { description: 'The counterparty.', schema: CounterpartyView } },
    handler: ({ auth, params }) => {
      requireRole(repos, auth, 'viewer');
      return { status: 200, body: counterpartyView(counterparties.get(auth!.workspaceId, params.counterpartyId)) };
    },
  });
}
