import type { OpenApiRegistry } from '../api/openapi.js';
import type { RouteTable } from '../api/route.js';
import { isoTime } from '../api/wire.js';
import { parseDuration } from '../../clock/index.js';
import { InvalidRequestError, NotFoundError } from '../errors/api-errors.js';
import { relayActionOf } from './fault-kinds.js';
import type { FaultSwitch } from './fault-repository.js';
import * as S from './schemas.js';
import type { FaultSwitchboard } from './switchboard.js';

const tags = ['Sandbox'];

function missing(param: string, message: string): never {
  throw new InvalidRequestError({ code: 'parameter_missing', param, message });
}

/** `/api/v1/sandbox/faults` and `/api/v1/sandbox/relays/release`: the fault switches. Sandbox only, API key required. */
export function mountFaultRoutes(api: RouteTable, openapi: OpenApiRegistry, board: FaultSwitchboard, chainIds: readonly number[]): void {
  openapi.schema('FaultSwitch', S.FaultView);
  const view = (fault: FaultSwitch) => ({
    id: fault.id,
    kind: fault.kind,
    relay: fault.kind.startsWith('oracle.') ? 'attestation' : fault.relay,
    delayMs: fault.delayMs,
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
    body: S.FaultRequest,
    responses: {
      201: {
        description: 'Set; it acts on what it matches from now on.',
        schema: S.FaultView,
        links: {
          Fault: { operationId: 'getSandboxFault', parameters: { faultId: '$response.body#/id' } },
          Clear: { operationId: 'clearSandboxFault', parameters: { faultId: '$response.body#/id' } },
        },
      },
    },
    handler: ({ body }) => {
      const relayFault = relayActionOf(body.kind) !== undefined;
      if (body.kind.startsWith('relay.') && body.relay === undefined)
        missing('relay', `${body.kind} needs \`relay\`: deposit, attestation or refund.`);
      if (!body.kind.startsWith('relay.') && body.relay !== undefined) {
        throw new InvalidRequestError({ code: 'parameter_unknown', param: 'relay', message: `${body.kind} takes no \`relay\`.` });
      }
      const needsDelay =
        body.kind === 'relay.delay' || body.kind === 'oracle.late' || body.kind === 'service.slow' || body.kind === 'chain.rpc-slow';
      if (needsDelay && body.delay === undefined) missing('delay', `${body.kind} needs \`delay\`, e.g. "10m".`);
      if (!needsDelay && body.delay !== undefined) {
        throw new InvalidRequestError({ code: 'parameter_unknown', param: 'delay', message: `${body.kind} takes no \`delay\`.` });
      }
      const serviceFault = body.kind.startsWith('service.');
      if (serviceFault && body.route === undefined) missing('route', `${body.kind} needs \`route\`, e.g. "POST /api/v1/quotes".`);
      if (!serviceFault && body.route !== undefined) {
        throw new InvalidRequestError({ code: 'parameter_unknown', param: 'route', message: `${body.kind} takes no \`route\`.` });
      }
      const chainFault = body.kind.startsWith('chain.');
      for (const param of ['chain', 'method'] as const) {
        if (!chainFault && body[param] !== undefined) {
          throw new InvalidRequestError({ code: 'parameter_unknown', param, message: `${body.kind} takes no \`${param}\`.` });
        }
      }
      if (body.chain !== undefined && !chainIds.includes(body.chain)) {
        throw new InvalidRequestError({
          code: 'parameter_invalid',
          param: 'chain',
          message: `The service settles on chains ${chainIds.join(', ')}; ${body.chain} is not one of them.`,
        });
      }
      if (chainFault && body.scope !== undefined) {
        throw new InvalidRequestError({
          code: 'parameter_invalid',
          param: 'scope',
          message: 'Chain faults are scoped by `chain` and `method`.',
        });
      }
      if (serviceFault && (body.scope?.corridor !== undefined || body.scope?.solverId !== undefined)) {
        throw new InvalidRequestError({
          code: 'parameter_invalid',
          param: 'scope',
          message: 'Service faults are scoped by route and order id only (a request names no corridor or solver).',
        });
      }
      const delayMs = body.delay === undefined ? undefined : parseDuration(body.delay);
      if ((body.kind === 'service.slow' || body.kind === 'chain.rpc-slow') && delayMs !== undefined && delayMs > 60_000) {
        throw new InvalidRequestError({
          code: 'parameter_invalid',
          param: 'delay',
          message: `${body.kind} waits at most 60s (wall time).`,
        });
      }
      const fault = board.set({
        kind: body.kind,
        relay: relayFault && body.kind.startsWith('relay.') ? body.relay : undefined,
        delayMs,
        route: body.route,
        chainId: body.chain,
        method: body.method,
        scope: body.scope,
        count: body.count,
        forMs: body.for === undefined ? undefined : parseDuration(body.for),
      });
      return { status: 201, body: view(fault) };
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
      if (fault === undefined)
        throw new NotFoundError({ code: 'resource_not_found', param: 'faultId', message: `No fault switch ${params.faultId}.` });
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
    handler: ({ params }) => {
      const cleared = board.clear(params.faultId);
      if (cleared === 0)
        throw new NotFoundError({ code: 'resource_not_found', param: 'faultId', message: `No fault switch ${params.faultId}.` });
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
    handler: () => ({ status: 200, body: { cleared: board.clear() } }),
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
