import type { OpenApiRegistry } from '../api/openapi.js';
import type { RouteTable } from '../api/route.js';
import { isoTime } from '../api/wire.js';
import { parseDuration } from '../../clock/index.js';
import { ConflictError, NotFoundError } from '../errors/api-errors.js';
import type { FaultSwitch } from './fault-repository.js';
import * as S from './schemas.js';
import type { FaultSwitchboard } from './switchboard.js';

const tags = ['Sandbox'];

function noSuchFault(faultId: string): NotFoundError {
  return new NotFoundError({ code: 'resource_not_found', param: 'faultId', message: `No fault switch ${faultId}.` });
}

/** `/api/v1/sandbox/faults` and `/api/v1/sandbox/relays/release`: the fault switches. Sandbox only, API key required. */
export function mountFaultRoutes(
  api: RouteTable,
  openapi: OpenApiRegistry,
  board: FaultSwitchboard,
  chainIds: readonly number[],
  /** Whether the service runs next to the sandbox's devnet, which `chain.restart` needs. */
  canRestartChains = false,
  /** Whether the sandbox runs this service itself and can restart it (`service.restart`). */
  canRestartService = false,
): void {
  openapi.schema('FaultSwitch', S.FaultView);
  const view = (fault: FaultSwitch) => ({
    id: fault.id,
    kind: fault.kind,
    relay: fault.kind.startsWith('oracle.') ? 'attestation' : fault.relay,
    delayMs: fault.delayMs,
    depth: fault.depth,
    route: fault.route,
    chainId: fault.chainId,
    method: fault.method,
    scope: fault.scope,
    remaining: fault.remaining,
    expiresAt: fault.expiresAt === null ? null : isoTime(fault.expiresAt),
    fired: fault.fired,
    active: board.active(fault),
    createdAt: isoTime(fault.createdAt),
  });

  api.route({
    method: 'get',
    path: '/sandbox/faults',
    operationId: 'listSandboxFaults',
    summary: 'The fault switches set and not cleared, oldest first. Sandbox only.',
    tags,
    auth: 'required',
    responses: { 200: { description: 'Every switch, with whether it can still fire.', schema: S.FaultList } },
    handler: () => ({ status: 200, body: { data: board.list().map(view) } }),
  });

  api.route({
    method: 'post',
    path: '/sandbox/faults',
    operationId: 'setSandboxFault',
    summary: 'Sets a fault switch: relays, the oracle or routes misbehave on purpose. Sandbox only.',
    tags,
    auth: 'required',
    idempotent: true,
    body: S.faultRequestSchema(chainIds),
    responses: {
      201: {
        description: 'Set; it acts on what it matches from now on.',
        schema: S.FaultView,
        links: {
          Fault: { operationId: 'getSandboxFault', parameters: { faultId: '$response.body#/id' } },
          Clear: { operationId: 'clearSandboxFault', parameters: { faultId: '$response.body#/id' } },
        },
      },
      409: {
        description:
          '`chain_restart_unavailable`: `chain.restart` on a service that does not run next to the sandbox’s own chains; `service_restart_unavailable`: `service.restart` on a service the sandbox does not run itself (several instances, or not `sandbox up`).',
      },
    },
    handler: async ({ body: parsed }) => {
      // The schema has one shape per kind, so what a kind needs is there and what it does not take is refused.
      const body = parsed as S.FaultRequestFields;
      if (body.kind === 'chain.restart' && !canRestartChains) {
        throw new ConflictError({
          code: 'chain_restart_unavailable',
          param: 'kind',
          message: 'chain.restart needs the sandbox’s own chains next to the service (sandbox up); this service cannot restart its chains.',
        });
      }
      if (body.kind === 'service.restart' && !canRestartService) {
        throw new ConflictError({
          code: 'service_restart_unavailable',
          param: 'kind',
          message:
            'service.restart needs a service the sandbox runs itself (sandbox up, one instance); this one cannot be restarted from here.',
        });
      }
      // A restart's downtime is kept as its delay; it fires once, when set.
      const delayMs = body.delay !== undefined ? parseDuration(body.delay) : body.down !== undefined ? parseDuration(body.down) : undefined;
      const fault = board.set({
        kind: body.kind,
        relay: body.relay,
        delayMs,
        route: body.route,
        chainId: body.chain,
        method: body.method,
        depth: body.depth,
        scope: body.scope,
        count: body.kind === 'chain.restart' || body.kind === 'service.restart' ? 1 : body.count,
        forMs: body.for === undefined ? undefined : parseDuration(body.for),
      });
      // A halt is in force when the answer arrives: a transaction sent right after it waits in the pool.
      await board.applied();
      return { status: 201, body: view(board.get(fault.id) ?? fault) };
    },
  });

  api.route({
    method: 'get',
    path: '/sandbox/faults/:faultId',
    operationId: 'getSandboxFault',
    summary: 'One fault switch, with how often it fired. Sandbox only.',
    tags,
    auth: 'required',
    params: S.FaultParams,
    responses: { 200: { description: 'The switch.', schema: S.FaultView } },
    handler: ({ params }) => {
      const fault = board.get(params.faultId);
      if (fault === undefined) throw noSuchFault(params.faultId);
      return { status: 200, body: view(fault) };
    },
  });

  api.route({
    method: 'delete',
    path: '/sandbox/faults/:faultId',
    operationId: 'clearSandboxFault',
    summary: 'Clears one fault switch; relays it holds stay held until released. Sandbox only.',
    tags,
    auth: 'required',
    params: S.FaultParams,
    responses: { 200: { description: 'Cleared.', schema: S.ClearedView } },
    handler: async ({ params }) => {
      const cleared = board.clear(params.faultId);
      if (cleared === 0) throw noSuchFault(params.faultId);
      await board.applied();
      return { status: 200, body: { cleared } };
    },
  });

  api.route({
    method: 'delete',
    path: '/sandbox/faults',
    operationId: 'clearSandboxFaults',
    summary: 'Clears every fault switch; held relays stay held until released. Sandbox only.',
    tags,
    auth: 'required',
    responses: { 200: { description: 'How many switches were cleared.', schema: S.ClearedView } },
    handler: async () => {
      const cleared = board.clear();
      await board.applied();
      return { status: 200, body: { cleared } };
    },
  });

  api.route({
    method: 'post',
    path: '/sandbox/faults/:faultId/firings',
    operationId: 'fireSandboxFault',
    summary: 'A reference solver claims one firing of a solver fault before acting it out. Sandbox only.',
    tags,
    auth: 'required',
    params: S.FaultParams,
    body: S.FiringRequest,
    responses: {
      201: { description: 'Fired: the solver acts the fault out on this order or RFQ.', schema: S.FiringView },
      404: { description: '`resource_not_found`: no order has `orderId`.' },
      409: { description: '`fault_not_firing`: spent, expired, cleared, not a solver fault, or scoped to other solvers or orders.' },
    },
    handler: ({ params, body }) => {
      // A firing is recorded on its order's timeline: an order that does not exist is the client's mistake.
      if (body.orderId !== undefined && !board.hasOrder(body.orderId)) {
        throw new NotFoundError({ code: 'resource_not_found', param: 'orderId', message: `No order ${body.orderId}.` });
      }
      const fired = board.fireForSolver(params.faultId, body);
      if (fired === undefined) {
        throw new ConflictError({
          code: 'fault_not_firing',
          param: 'faultId',
          message: `Fault switch ${params.faultId} does not fire for this: it is spent, expired, cleared, not a solver fault, or scoped elsewhere.`,
        });
      }
      return { status: 201, body: { faultId: fired.id, fired: fired.fired, remaining: fired.remaining } };
    },
  });

  api.route({
    method: 'post',
    path: '/sandbox/relays/release',
    operationId: 'releaseSandboxRelays',
    summary: 'Sends the relays a `relay.hold` switch holds: of one order, or all. Sandbox only.',
    tags,
    auth: 'required',
    idempotent: true,
    body: S.ReleaseRequest,
    responses: { 200: { description: 'What was released (empty when nothing was held).', schema: S.ReleaseView } },
    handler: ({ body }) => ({
      status: 200,
      body: {
        released: board.release(body.orderId).map((held) => ({ relayId: held.relayId, orderId: held.orderId, faultId: held.faultId })),
      },
    }),
  });
}
