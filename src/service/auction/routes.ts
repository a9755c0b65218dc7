/** HTTP face of the auction: quotes, quote detail (A) and RFQ view (B), solver registration and directory, leaderboard. */
import { z } from 'zod';
import type { RouteTable } from '../api/route.js';
import { AuthenticationError, NotFoundError } from '../errors/api-errors.js';
import { ErrorA, ErrorB, type OpenApiRegistry } from '../api/openapi.js';
import { pageEnvelope, pageQueryShape, pageSchema, toPageRequest } from '../api/pagination.js';
import { isoTime } from '../api/wire.js';
import type { SolverStatistics } from './leaderboard.js';
import type { QuoteService } from './quote-service.js';
import {
  Leaderboard,
  PairQuoteRequestFields,
  Quote,
  QuoteDetail,
  QuoteDetailQuery,
  QuoteIdParams,
  QuoteRequest,
  QuoteRequestFields,
  QuoteResponse,
  RfqView,
  Solver,
  SolverIdParams,
  SolverRegistration,
  SolverRegistrationRequest,
  SolverStats,
  SolverToken,
  StandardOrderWire,
  TypedDataWire,
} from './schemas.js';
import type { SolverRegistry } from './solver-registry.js';
import type { SolverRecord, SolverRepository } from './solver-repository.js';

export interface AuctionRouteDeps {
  quotes: QuoteService;
  registry: SolverRegistry;
  solvers: SolverRepository;
  statistics: SolverStatistics;
  /** Live connections of a solver on the stream. */
  connections(solverId: string): number;
  /** `ws://host:port/ws/v1/solver/stream`, known once the server listens. */
  solverStreamUrl(): string;
  fillRate(solverId: string): number | null;
  /** Clock ms. */
  now(): number;
  /** The deployment's corridor ids: the document lists them as the values `corridors` takes. */
  corridorIds?: readonly string[];
  /** A quote request that works on this deployment (its first corridor), shown as the document's example. */
  quoteExample?: Record<string, unknown>;
}

/** The registration body as this deployment documents it: `corridors` names only corridors it serves. */
function registrationBody(corridorIds: readonly string[] | undefined) {
  if (corridorIds === undefined || corridorIds.length === 0) return SolverRegistrationRequest;
  return SolverRegistrationRequest.extend({
    corridors: z
      .array(
        z
          .string()
          .min(1)
          .max(200)
          .meta({ enum: [...corridorIds] }),
      )
      .min(1)
      .max(500)
      .meta({ description: 'Corridor ids of this deployment (`GET /api/v1/corridors`).' }),
  });
}

const ATTESTATION_HEADER = 'x-service-attestation';

/** Errors of GET /quotes/{id}: Format A for a quote id, Format B for an RFQ id (a Reference B route). */
const QuoteLookupError = z.union([ErrorA, ErrorB]);

export function mountAuctionRoutes(api: RouteTable, openapi: OpenApiRegistry, deps: AuctionRouteDeps): void {
  openapi.schema('QuoteRequestFields', QuoteRequestFields);
  openapi.schema('PairQuoteRequestFields', PairQuoteRequestFields);
  openapi.schema('QuoteRequest', QuoteRequest);
  openapi.schema('StandardOrder', StandardOrderWire);
  openapi.schema('TypedData', TypedDataWire);
  openapi.schema('Quote', Quote);
  openapi.schema('QuoteResponse', QuoteResponse);
  openapi.schema('QuoteDetail', QuoteDetail);
  openapi.schema('RfqView', RfqView);
  openapi.schema('SolverStats', SolverStats);
  openapi.schema('Solver', Solver);
  openapi.schema('SolverRegistration', SolverRegistration);
  openapi.schema('Leaderboard', Leaderboard);

  api.route({
    method: 'post',
    path: '/quotes',
    operationId: 'createQuotes',
    summary: 'Request quotes: broadcasts an RFQ to the corridor’s solvers and returns their quotes, best first.',
    description:
      'Runs an auction: the RFQ goes to every solver registered for the corridor and connected to the solver stream; it closes when ' +
      'all of them answered or the auction window ends. With `user`, every quote carries the StandardOrder and EIP-712 payload for that ' +
      'taker with its next free nonce. Errors: 422 `pair_not_supported`, `chain_not_supported`, `lock_type_not_supported`, ' +
      '`amount_too_small`, `amount_too_large`, `corridor_unavailable` (no solver connected or none quoted).',
    tags: ['Quotes'],
    auth: 'optional',
    body: QuoteRequest,
    ...(deps.quoteExample === undefined ? {} : { bodyExample: deps.quoteExample }),
    responses: {
      200: {
        description: 'Ranked quotes.',
        schema: QuoteResponse,
        links: {
          BestQuoteDetail: {
            operationId: 'getQuote',
            parameters: { quoteId: '$response.body#/quotes/0/quoteId' },
            description: 'The best quote with its StandardOrder and payload to sign (add `user` to name the taker).',
          },
        },
      },
      422: {
        description:
          'A business rule refuses a well-formed request: no corridor carries the pair or tokens (`pair_not_supported`, ' +
          '`chain_not_supported`, `lock_type_not_supported`), the amount is outside the corridor (`amount_too_small`, ' +
          '`amount_too_large`), no solver is connected or none quoted (`corridor_unavailable`).',
      },
    },
    handler: async ({ body, auth, req }) => {
      const attestation = req.headers[ATTESTATION_HEADER];
      const response = await deps.quotes.requestQuotes(body, {
        workspaceId: auth?.workspaceId ?? null,
        requestId: req.requestId,
        attestation: typeof attestation === 'string' && attestation !== '' ? attestation : null,
      });
      return { status: 200, body: response };
    },
  });

  api.route({
    method: 'get',
    path: '/quotes/:quoteId',
    operationId: 'getQuote',
    summary: 'A quote (qt_…) with its StandardOrder and EIP-712 payload; or an RFQ (rfq_…) with every solver response (Reference B).',
    description:
      'One path, two id kinds. A `qt_` id answers the quote detail (Reference A; errors in Format A). An `rfq_` id answers the ' +
      "RFQ's view with every invited solver's response (Reference B's `GET /quotes/{rfqId}`; errors in Format B, as on every " +
      'Reference B route). `user` gives a quote detail its signable payload; on an `rfq_` id it is accepted and has no effect.',
    tags: ['Quotes'],
    auth: 'public',
    params: QuoteIdParams,
    query: QuoteDetailQuery,
    responses: {
      200: { description: 'Quote detail, or the RFQ view for an rfq_ id.', schema: z.union([QuoteDetail, RfqView]) },
      400: { description: 'Malformed id or `user` (Format A for qt_ ids, Format B for rfq_ ids).', schema: QuoteLookupError },
      404: { description: 'No quote with this qt_ id (Format A), or no RFQ with this rfq_ id (Format B).', schema: QuoteLookupError },
    },
    handler: ({ params, query }) => {
      if (params.quoteId.startsWith('rfq_')) return { status: 200, body: deps.quotes.rfqView(params.quoteId, deps.fillRate) };
      return { status: 200, body: deps.quotes.quoteDetail(params.quoteId, query.user) };
    },
  });

  api.route({
    method: 'post',
    path: '/solvers/register',
    operationId: 'registerSolver',
    summary: 'Register a solver for corridors; returns its solver stream credential (wsToken) once.',
    tags: ['Solvers'],
    auth: 'required',
    body: registrationBody(deps.corridorIds),
    responses: {
      201: {
        description: 'Registered.',
        schema: SolverRegistration,
        links: {
          Solver: { operationId: 'getSolver', parameters: { solverId: '$response.body#/solverId' } },
          RotateWsToken: { operationId: 'rotateSolverToken', parameters: { solverId: '$response.body#/solverId' } },
        },
      },
    },
    handler: ({ body, auth }) => {
      const { solver, wsToken } = deps.registry.register(auth!.workspaceId, body);
      return {
        status: 201,
        body: {
          solverId: solver.id,
          name: solver.name,
          corridors: solver.corridors,
          callbackUrl: solver.callbackUrl,
          address: solver.address,
          wsToken,
          wsUrl: deps.solverStreamUrl(),
          createdAt: isoTime(solver.createdAt),
        },
      };
    },
  });

  api.route({
    method: 'post',
    path: '/solvers/:solverId/ws-token',
    operationId: 'rotateSolverToken',
    summary: 'Issue a new wsToken for one of your solvers (the previous token stops working; open connections stay).',
    tags: ['Solvers'],
    auth: 'required',
    params: SolverIdParams,
    responses: { 200: { description: 'The new token, shown once.', schema: SolverToken } },
    handler: ({ params, auth }) => {
      const wsToken = deps.registry.rotateToken(auth!.workspaceId, params.solverId);
      return { status: 200, body: { solverId: params.solverId, wsToken, wsUrl: deps.solverStreamUrl() } };
    },
  });

  const SolverListQuery = z.strictObject({
    ...pageQueryShape,
    owned: z.enum(['true', 'false']).optional().meta({ description: '`true`: only the calling workspace’s solvers (needs a key).' }),
  });
  api.route({
    method: 'get',
    path: '/solvers',
    operationId: 'listSolvers',
    summary: 'The solver directory, newest first, with each solver’s statistics and connection state.',
    tags: ['Solvers'],
    auth: 'optional',
    query: SolverListQuery,
    responses: { 200: { description: 'A page of solvers.', schema: pageSchema(Solver) } },
    handler: ({ query, auth }) => {
      if (query.owned === 'true' && auth === undefined) {
        throw new AuthenticationError({
          code: 'authentication_required',
          param: 'Authorization',
          message: '`owned=true` needs an API key.',
        });
      }
      const page = deps.solvers.page(toPageRequest(query), query.owned === 'true' ? auth!.workspaceId : undefined);
      const stats = deps.statistics.all(page.items);
      return { status: 200, body: pageEnvelope(page, (solver) => present(solver, stats.get(solver.id)!, deps)) };
    },
  });

  api.route({
    method: 'get',
    path: '/solvers/:solverId',
    operationId: 'getSolver',
    summary: 'One solver with its statistics.',
    tags: ['Solvers'],
    auth: 'public',
    params: SolverIdParams,
    responses: { 200: { description: 'The solver.', schema: Solver } },
    handler: ({ params }) => {
      const solver = deps.solvers.get(params.solverId);
      if (solver === undefined) throw notFound(params.solverId);
      return { status: 200, body: present(solver, deps.statistics.one(solver), deps) };
    },
  });

  api.route({
    method: 'get',
    path: '/leaderboard',
    operationId: 'getLeaderboard',
    summary: 'Solvers ranked by orders won, then volume and fill rate, from the auction history.',
    tags: ['Solvers'],
    auth: 'public',
    responses: { 200: { description: 'The leaderboard.', schema: Leaderboard } },
    handler: () => ({ status: 200, body: { data: deps.statistics.leaderboard(deps.solvers.all()), generatedAt: isoTime(deps.now()) } }),
  });
}

function present(solver: SolverRecord, stats: z.output<typeof SolverStats>, deps: AuctionRouteDeps) {
  const connections = deps.connections(solver.id);
  return {
    solverId: solver.id,
    name: solver.name,
    corridors: solver.corridors,
    createdAt: isoTime(solver.createdAt),
    connected: connections > 0,
    connections,
    stats,
  };
}

function notFound(solverId: string): NotFoundError {
  return new NotFoundError({ code: 'resource_not_found', param: 'solverId', message: `No solver ${solverId}.` });
}
