import type { Scenario } from '../core/scenario.js';
import { expiredQuote, replayedNonce, tamperedSignature } from './attacks.js';
import { competingSolvers, misbehavingSolvers } from './auction.js';
import { compliantAttestations, sanctionedInProduction } from './compliance.js';
import { idempotentOrderCreation, memberRemovedMidSession, rateLimitBurst } from './platform.js';
import { onchainIntakeChainSolver } from './onchain.js';
import { lateFillLosesToRefund, refundWhenNeverFilled } from './refunds.js';
import { referenceBFailure, referenceBSuccess } from './reference-b.js';
import { crashAndRestart } from './restart.js';
import { deferredScenarios } from './deferred.js';
import { faultKindScenarios } from './fault-kinds.js';
import { chainFaultScenarios } from './chain-faults.js';
import { faultScenarios } from './faults.js';
import { successScenarios } from './success.js';
import { webhookExhaustion, webhookRetries } from './webhooks.js';

/** Every scenario, in the order a full run plays them. */
export const catalogue: readonly Scenario[] = [
  ...successScenarios,
  refundWhenNeverFilled,
  lateFillLosesToRefund,
  competingSolvers,
  misbehavingSolvers,
  webhookRetries,
  webhookExhaustion,
  compliantAttestations,
  sanctionedInProduction,
  replayedNonce,
  tamperedSignature,
  expiredQuote,
  idempotentOrderCreation,
  rateLimitBurst,
  referenceBSuccess,
  referenceBFailure,
  crashAndRestart,
  onchainIntakeChainSolver,
  ...deferredScenarios,
  memberRemovedMidSession,
  ...faultScenarios,
  ...chainFaultScenarios,
  ...faultKindScenarios,
];
