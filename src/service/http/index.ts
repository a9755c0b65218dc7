/** The HTTP toolkit every route module uses. See docs/service-platform.md, "For engineers adding routes". */
export { ApiRouter, type ApiRouterDeps, type RouteDefinition, type RouteInput, type RouteResult } from './api-router.js';
export {
  ApiError,
  AuthenticationError,
  ComplianceError,
  ConflictError,
  ERROR_TYPES,
  formatBCode,
  InternalError,
  InvalidRequestError,
  MaintenanceError,
  NotFoundError,
  RateLimitError,
  ValidationError,
  type ApiErrorOptions,
  type ErrorType,
} from '../errors/api-errors.js';
export { errorCodes } from '../errors/error-codes.js';
export { errorBody, ErrorFormatRoutes, toApiError, type ErrorFormat } from './error-handler.js';
export { idempotency, IDEMPOTENCY_KEY_MAX_LENGTH, type IdempotencyOptions } from './idempotency.js';
export { OpenApiRegistry, type OperationSpec, type ResponseSpec, type Security } from '../api/openapi.js';
export {
  decodeCursor,
  encodeCursor,
  PAGE_LIMIT_DEFAULT,
  PAGE_LIMIT_MAX,
  pageEnvelope,
  PageQuery,
  pageQueryShape,
  pageSchema,
  parsePageQuery,
  toPageRequest,
  type PageEnvelope,
} from '../api/pagination.js';
export { authenticate, optionalAuth, requireAuth, type RequireAuthOptions } from './auth-middleware.js';
export { CredentialRateLimiter, rateLimit, type RateDecision, type RateLimitSettings } from './rate-limit.js';
export type { RunningContext, ServiceContext, ServiceModule } from '../module.js';
export { UpgradeRouter, type UpgradeHandler } from './upgrade.js';
export { issueToError, jsonBody, parseInput, validateBody, validateParams, validateQuery, type InputLocation } from './validate.js';
export { Address, ChainId, HexBytes, IsoTimestamp, isoTime, PositiveUintString, UintString } from '../api/wire.js';
import './types.js';
