import { z } from 'zod';
import type { OpenApiRegistry } from '../api/openapi.js';
import { pageEnvelope, PageQuery, pageSchema, toPageRequest } from '../api/pagination.js';
import type { RouteTable } from '../api/route.js';
import { requireRole } from '../members/roles.js';
import type { OrderRepository, OrderRecord, OrderStatus } from '../orders/order-repository.js';
import type { OrderViews } from '../orders/order-views.js';
import { OrderDetail } from '../orders/schemas.js';
import { keysetPage } from '../store/pagination.js';
import type { PlatformRepositories } from '../store/repositories.js';
import type { Store } from '../store/store.js';
import type { DeferredOrders } from './deferred-orders.js';

export interface DeferredOrderRouteDeps {
  deferredOrders: DeferredOrders;
  repos: PlatformRepositories;
  store: Store;
  orders: () => OrderRepository;
  knownSolver: (solverId: string) => boolean;
  views: () => OrderViews;
}

const OrderIdParams = z.object({
  order_id: z
    .string()
    .regex(/^ord_[0-9a-z]{1,64}$/)
    .meta({ description: 'A deferred order (`ord_…`).', example: 'ord_0example' }),
});
const LpParams = z.object({
  lp_id: z
    .string()
    .regex(/^slv_[A-Za-z0-9]+$/)
    .meta({ description: 'A liquidity provider: a solver id (`slv_…`).', example: 'slv_0example' }),
});
const LpState = z.object({
  object: z.literal('liquidity_provider'),
  solverId: z.string(),
  paused: z.boolean().meta({ description: 'Paused: not invited to deferred RFQs and not paid deferred orders.' }),
});

/** `/api/v1/deferred/orders` and the admin routes of deferred orders and liquidity providers. */
export function mountDeferredOrderRoutes(api: RouteTable, openapi: OpenApiRegistry, deps: DeferredOrderRouteDeps): void {
  const { deferredOrders, repos, store } = deps;
  openapi.schema('LiquidityProviderState', LpState);

  api.route({
    method: 'get',
    path: '/deferred/orders',
    operationId: 'listDeferredOrders',
    summary: "The workspace's deferred orders (credit held instead of an escrow deposit), newest first.",
    tags: ['Deferred'],
    auth: 'required',
    query: PageQuery,
    responses: { 200: { description: 'A page of order details.', schema: pageSchema(OrderDetail) } },
    handler: ({ auth, query }) => {
      requireRole(repos, auth, 'viewer');
      const page = keysetPage<{ id: string; created_at: number }>(store.db, {
        from: 'orders',
        where: "workspace_id = ? AND settlement_path = 'deferred' AND status NOT IN ('Opening', 'Rejected')",
        params: [auth!.workspaceId],
        sortColumn: 'created_at',
        order: 'desc',
        request: toPageRequest(query),
        position: (row) => ({ key: row.created_at, id: row.id }),
      });
      const orders = deps.orders();
      const views = deps.views();
      return {
        status: 200,
        body: pageEnvelope({ ...page, items: page.items.map((row) => orders.get(row.id)!) }, (order: OrderRecord) =>
          views.detail(order as OrderRecord & { status: OrderStatus }),
        ),
      };
    },
  });

  api.route({
    method: 'post',
    path: '/admin/deferred/:order_id/confirm',
    operationId: 'confirmDeferredOrder',
    summary: 'Confirms a filled deferred order (admin): its solver is paid from the vault in the next netted payout batch.',
    tags: ['Admin'],
    auth: 'required',
    idempotent: false,
    params: OrderIdParams,
    responses: {
      200: { description: 'The order after the confirmation (Claimed once the payout is mined).', schema: OrderDetail },
      409: { description: '`order_not_confirmable` (not filled, or already decided) or `lp_paused`.' },
    },
    handler: async ({ auth, params }) => {
      requireRole(repos, auth, 'admin');
      const order = await deferredOrders.confirm(auth!, params.order_id);
      return { status: 200, body: deps.views().detail(order as OrderRecord & { status: OrderStatus }) };
    },
  });

  for (const action of ['pause', 'resume'] as const) {
    api.route({
      method: 'post',
      path: `/admin/deferred/:lp_id/${action}`,
      operationId: action === 'pause' ? 'pauseLiquidityProvider' : 'resumeLiquidityProvider',
      summary:
        action === 'pause'
          ? 'Pauses a liquidity provider on the deferred rail (admin): no deferred RFQs, no deferred payouts.'
          : 'Resumes a paused liquidity provider (admin).',
      tags: ['Admin'],
      auth: 'required',
      params: LpParams,
      responses: { 200: { description: 'Its state now.', schema: LpState } },
      handler: ({ auth, params }) => {
        requireRole(repos, auth, 'admin');
        const state = deferredOrders.setPaused(auth!, params.lp_id, action === 'pause', deps.knownSolver);
        return { status: 200, body: { object: 'liquidity_provider' as const, ...state } };
      },
    });
  }
}
