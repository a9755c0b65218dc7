/** HTTP face of Reference B: every route answers Format B errors (`{error: {code, message}}`). */
import type { Hex } from 'viem';
import { z } from 'zod';
import { PairQuoteRequestFields, RfqView } from '../auction/schemas.js';
import type { AuthContext } from '../api/auth-context.js';
import type { RouteTable } from '../api/route.js';
import { NotFoundError } from '../errors/api-errors.js';
import type { OpenApiRegistry } from '../api/openapi.js';
import { isoTime } from '../api/wire.js';
import { isVisible } from '../orders/order-views.js';
import { type AuditTrails, HASH_RULE } from './audit-trail.js';
import type { QuoteAcceptance } from './quote-acceptance.js';
import type { RfqDesk } from './rfq-desk.js';
import {
  AcceptRequest,
  AcceptResponse,
  AuditResponse,
  RfqResponse,
  RfqSuffixParams,
  RfqViewQuery,
  SettlementDetail,
  SettlementIdParams,
  SolverRegistrationRequestB,
  SolverRegistrationResponseB,
  TradeIdParams,
} from './schemas.js';
import type { SettlementViews } from './settlement-view.js';
import type { SolverOnboarding } from './solver-onboarding.js';
import type { Trade, TradeLookup } from './trades.js';

const ATTESTATION_HEADER = 'x-service-attestation';

export interface ReferenceBRouteDeps {
  desk: RfqDesk;
  acceptance: QuoteAcceptance;
  trades: TradeLookup;
  settlements: SettlementViews;
  audits: AuditTrails;
  onboarding: SolverOnboarding;
  /** `ws://host:port/ws/v1/solver/stream`, known once the server listens. */
  solverStreamUrl(): string;
  /** The deployment's corridor ids: the document lists them as the values `corridors` takes. */
  corridorIds?: readonly string[];
}

function header(value: string | string[] | undefined): string | undefined {
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined || first === '' ? undefined : first;
}

/** A trade of another workspace (or of none) does not exist for the caller. */
function ownTrade(trade: Trade | undefined, auth: AuthContext | undefined, id: string, param: string): Trade {
  if (trade === undefined || trade.workspaceId === null || trade.workspaceId !== auth?.workspaceId) {
    throw new NotFoundError({ code: 'resource_not_found', param, message: `No trade ${id} in this workspace.` });
  }
  return trade;
}

export function mountReferenceBRoutes(api: RouteTable, openapi: OpenApiRegistry, deps: ReferenceBRouteDeps): void {
  const registration =
    deps.corridorIds === undefined || deps.corridorIds.length === 0
      ? SolverRegistrationRequestB
      : SolverRegistrationRequestB.extend({
          corridors: z
            .array(
              z
                .string()
                .min(1)
                .max(200)
                .meta({ enum: [...deps.corridorIds] }),
            )
            .min(1)
            .max(500)
            .meta({ description: 'Corridor ids of this deployment (`GET /api/v1/corridors`).' }),
        });
  // Shapes shared with the auction keep the auction's names (this module is set up first).
  openapi.schema('PairQuoteRequestFields', PairQuoteRequestFields);
  openapi.schema('RfqView', RfqView);
  openapi.schema('ReferenceBRfqResponse', RfqResponse);
  openapi.schema('ReferenceBAcceptRequest', AcceptRequest);
  openapi.schema('ReferenceBAcceptResponse', AcceptResponse);
  openapi.schema('ReferenceBSettlement', SettlementDetail);
  openapi.schema('ReferenceBAudit', AuditResponse);
  openapi.schema('ReferenceBSolverRegistrationRequest', registration);
  openapi.schema('ReferenceBSolverRegistration', SolverRegistrationResponseB);

  api.route({
    method: 'post',
    path: '/rfq',
    operationId: 'createRfq',
    summary: 'Reference B: broadcast an RFQ (pair, side, amount, chain) and answer the quotes collected in the auction window.',
    description:
      'The same auction as POST /api/v1/quotes. `pair` is `<INPUT>/<OUTPUT>` token symbols, `side` `sell` (amount is what you send) or ' +
      '`buy` (what you receive), `amount` whole tokens, `chain` the origin chain name. With `user`, every quote carries the EIP-712 ' +
      'payload to sign for POST /api/v1/accept.',
    tags: ['Reference B'],
    auth: 'optional',
    body: PairQuoteRequestFields,
    responses: {
      200: {
        description: 'The RFQ and its quotes, best first.',
        schema: RfqResponse,
        links: {
          RfqResponses: {
            operationId: 'getQuote',
            parameters: { quoteId: '$response.body#/rfqId' },
            description: "Every solver's answer.",
          },
        },
      },
      422: {
        description:
          'A business rule refuses a well-formed request: no corridor carries the pair, an unknown chain name, the amount outside ' +
          'the corridor, no solver connected.',
      },
    },
    handler: async ({ body, auth, req }) => {
      const attestation = header(req.headers[ATTESTATION_HEADER]);
      const answer = await deps.desk.open(body, {
        workspaceId: auth?.workspaceId ?? null,
        requestId: req.requestId,
        attestation: attestation ?? null,
      });
      return { status: 200, body: answer };
    },
  });

  api.route({
    method: 'get',
    path: '/quotes/rfq_:rfqIdSuffix',
    operationId: 'getRfqResponses',
    summary: 'Reference B: every solver response to an RFQ (rfq_…), with pricing, fill rate and latency.',
    description: 'Documented under getQuote (one path, one entry): an `rfq_` id is answered here, with Format B errors.',
    documented: false,
    tags: ['Reference B'],
    auth: 'public',
    params: RfqSuffixParams,
    query: RfqViewQuery,
    responses: { 200: { description: 'The RFQ with each invited solver’s response.', schema: RfqView } },
    handler: ({ params }) => ({ status: 200, body: deps.desk.view(`rfq_${params.rfqIdSuffix}`) }),
  });

  api.route({
    method: 'post',
    path: '/accept',
    operationId: 'acceptQuote',
    summary: "Reference B: accept a solver's quote; starts settlement with the escrow deposit on the origin chain.",
    description:
      'Sign the quote’s typed data (GET /api/v1/quotes/{quoteId}?user=…) and send `{rfqId, quoteId, signature, nonce, user?}`. ' +
      'Answers once the deposit is on chain. 409 `ALREADY_ACCEPTED` when the quote (or another of its RFQ) was accepted, 409 ' +
      '`QUOTE_EXPIRED` after its lifetime. Compliant quotes need a fresh `X-Service-Attestation`.',
    tags: ['Reference B'],
    auth: 'optional',
    body: AcceptRequest,
    responses: { 201: { description: 'The settlement, pending, with its escrow deposit.', schema: AcceptResponse } },
    handler: async ({ body, auth, req }) => {
      const accepted = await deps.acceptance.accept(
        { ...body, signature: body.signature as Hex },
        { auth, attestation: header(req.headers[ATTESTATION_HEADER]) },
      );
      return { status: 201, body: accepted };
    },
  });

  api.route({
    method: 'get',
    path: '/settlements/:id',
    operationId: 'getSettlementB',
    summary: 'Reference B: a settlement (stl_… or its order ord_…): escrow status, cross-chain proof verification, final settlement hash.',
    description: 'GET /api/v1/settlements (no id) is Reference A’s list of the workspace’s settlements.',
    tags: ['Reference B'],
    auth: 'required',
    params: SettlementIdParams,
    responses: { 200: { description: 'The settlement.', schema: SettlementDetail } },
    handler: ({ params, auth }) => {
      const trade = ownTrade(deps.trades.find(params.id), auth, params.id, 'id');
      const order = trade.order;
      if (!isVisible(order)) throw new NotFoundError({ code: 'resource_not_found', param: 'id', message: `No settlement ${params.id}.` });
      return { status: 200, body: deps.settlements.view(order) };
    },
  });

  api.route({
    method: 'get',
    path: '/audit/:tradeId',
    operationId: 'getAudit',
    summary: "Reference B: a trade's complete WORM ledger entry set (compliance checks, quotes, execution, settlement proof), verifiable.",
    description:
      'Any id of the trade works: stl_, ord_, rfq_ or qt_. Each entry carries sequence, prevHash and hash, and the headers of its ' +
      'ledger neighbours; `verification` states how to recompute a hash.',
    tags: ['Reference B'],
    auth: 'required',
    params: TradeIdParams,
    responses: { 200: { description: 'The audit trail.', schema: AuditResponse } },
    handler: ({ params, auth }) => {
      const trade = ownTrade(deps.trades.find(params.tradeId), auth, params.tradeId, 'tradeId');
      const trail = deps.audits.of(trade);
      const body: z.input<typeof AuditResponse> = {
        tradeId: trade.tradeId,
        settlementId: trade.settlementId ?? null,
        orderId: trade.order?.id ?? null,
        rfqId: trade.rfqId,
        quoteIds: trade.quoteIds,
        entries: trail.entries.map((entry) => ({ ...entry, payload: entry.payload as Record<string, unknown> })),
        head: trail.head,
        verification: { ...HASH_RULE, selfCheck: trail.selfCheck },
      };
      return { status: 200, body };
    },
  });

  api.route({
    method: 'post',
    path: '/solver/register',
    operationId: 'registerSolverB',
    summary: 'Reference B: register a solver with KYB details and pricing-engine configuration; verifies compliance, returns an sk_ key.',
    description:
      'Verification is mocked and deterministic in the sandbox (jurisdiction `ZZ` always fails KYB; a sanctioned `address` fails ' +
      'screening); production needs `address` on the compliance allow list. A refused verification is 403 `COMPLIANCE_FAILED` and ' +
      'registers nothing. The `solverKey` authenticates on the solver stream (`{"type":"auth","token":"sk_test_…"}`).',
    tags: ['Reference B'],
    auth: 'required',
    body: registration,
    responses: { 201: { description: 'Registered; the solver key is shown once.', schema: SolverRegistrationResponseB } },
    handler: ({ body, auth }) => {
      const { solver, registration, solverKey } = deps.onboarding.register(auth!.workspaceId, body);
      const { verification } = registration;
      return {
        status: 201,
        body: {
          solverId: solver.id,
          name: solver.name,
          corridors: solver.corridors,
          solverKey,
          wsUrl: deps.solverStreamUrl(),
          kyb: registration.kyb,
          pricing: registration.pricing,
          address: solver.address,
          compliance: { ...verification, verifiedAt: isoTime(verification.verifiedAt) },
          createdAt: isoTime(solver.createdAt),
        },
      };
    },
  });
}
