import type { Hex } from 'viem';
import type { RouteTable } from '../api/route.js';
import { NotFoundError } from '../errors/api-errors.js';
import type { OpenApiRegistry } from '../api/openapi.js';
import { pageEnvelope, pageQueryShape, toPageRequest } from '../api/pagination.js';
import { z } from 'zod';
import type { OrderIntake } from './order-intake.js';
import type { OrderRepository } from './order-repository.js';
import { isVisible, type OrderViews } from './order-views.js';
import { CreateOrderRequest, OrderCreated, OrderDetail, OrderIdParams, Settlement, SettlementPage, SettlementParams } from './schemas.js';

export interface OrderRouteDeps {
  intake: OrderIntake;
  orders: OrderRepository;
  views: OrderViews;
}

function notFound(param: string, what: string): NotFoundError {
  return new NotFoundError({ code: 'resource_not_found', param, message: `No ${what}.` });
}

/** HTTP adapter of the orders module (Reference A). */
export function mountOrderRoutes(api: RouteTable, openapi: OpenApiRegistry, deps: OrderRouteDeps): void {
  openapi.schema('OrderCreated', OrderCreated);
  openapi.schema('OrderDetail', OrderDetail);
  openapi.schema('Settlement', Settlement);
  api.route({
    method: 'post',
    path: '/orders',
    operationId: 'createOrder',
    summary: "Turn a quote into an order with the taker's EIP-712 signature; the service relays the deposit.",
    description:
      'Direct path: an API key is recommended (the order belongs to its workspace). Compliant path: send a fresh ' +
      '`X-Service-Attestation` from GET /api/v1/compliance/status. Answers once the deposit is on chain.',
    tags: ['Orders'],
    auth: 'optional',
    body: CreateOrderRequest,
    responses: {
      201: {
        description: 'The order, Deposited.',
        schema: OrderCreated,
        links: {
          Order: { operationId: 'getOrder', parameters: { orderId: '$response.body#/orderId' }, description: 'Follow its status.' },
        },
      },
    },
    handler: async ({ body, auth, req }) => {
      const header = req.headers['x-service-attestation'];
      const order = await deps.intake.create(
        { quoteId: body.quoteId, signature: body.signature as Hex, nonce: BigInt(body.nonce), user: body.user as Hex | undefined },
        { auth, attestation: Array.isArray(header) ? header[0] : header },
      );
      if (!isVisible(order)) throw new Error(`order ${order.id} created in state ${order.status}`);
      return { status: 201, body: deps.views.created(order) };
    },
  });
  api.route({
    method: 'get',
    path: '/orders/:orderId',
    operationId: 'getOrder',
    summary: 'An order with its chain transactions and status.',
    tags: ['Orders'],
    auth: 'public',
    params: OrderIdParams,
    responses: { 200: { description: 'The order.', schema: OrderDetail } },
    handler: ({ params }) => {
      const order = deps.orders.get(params.orderId);
      if (!isVisible(order)) throw notFound('orderId', `order ${params.orderId}`);
      return { status: 200, body: deps.views.detail(order) };
    },
  });
  api.route({
    method: 'get',
    path: '/workspaces/:workspaceId/settlements/:orderId',
    operationId: 'getSettlement',
    summary: "A workspace's settlement of one order: state, timeline and evidence head.",
    tags: ['Orders'],
    auth: 'required',
    params: SettlementParams,
    responses: { 200: { description: 'The settlement.', schema: Settlement } },
    handler: ({ params, auth }) => {
      const order = deps.orders.get(params.orderId);
      // Another workspace's order does not exist for this caller.
      if (
        !isVisible(order) ||
        order.workspaceId === null ||
        order.workspaceId !== params.workspaceId ||
        auth?.workspaceId !== params.workspaceId
      ) {
        throw notFound('orderId', `settlement of ${params.orderId} in workspace ${params.workspaceId}`);
      }
      return { status: 200, body: deps.views.settlement({ ...order, workspaceId: order.workspaceId }) };
    },
  });
  api.route({
    method: 'get',
    path: '/settlements',
    operationId: 'listSettlements',
    summary: "The caller's workspace settlements, newest first.",
    tags: ['Orders'],
    auth: 'required',
    query: z.object(pageQueryShape),
    responses: { 200: { description: 'A page of settlements.', schema: SettlementPage } },
    handler: ({ query, auth }) => {
      const workspaceId = auth!.workspaceId;
      const page = deps.orders.pageForWorkspace(workspaceId, toPageRequest(query));
      return {
        status: 200,
        body: pageEnvelope(page, (order) => deps.views.settlement({ ...(order as typeof order & { status: 'Deposited' }), workspaceId })),
      };
    },
  });
}
