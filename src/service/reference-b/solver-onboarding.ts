import type { Address } from 'viem';
import type { Clock } from '../../clock/index.js';
import type { Environment } from '../../contracts/deployment.js';
import type { SolverRegistry } from '../auction/solver-registry.js';
import type { SolverRecord } from '../auction/solver-repository.js';
import type { ComplianceModule } from '../compliance/module.js';
import type { CorridorCatalogue } from '../corridors/catalogue.js';
import type { OutboxRepository } from '../events/outbox.js';
import { ComplianceError, InvalidRequestError } from '../errors/api-errors.js';
import type { LedgerEntry } from '../../contracts/ledger/chain.js';
import { newId } from '../store/ids.js';
import {
  type KybDetails,
  type KybVerification,
  type PricingEngineConfig,
  type SolverRegistrationRecord,
  SolverRegistrations,
} from './solver-registrations.js';

/**
 * The sandbox's deterministic stand-in for a failed KYB review: ISO 3166 reserves `ZZ` for an unknown territory,
 * and an entity incorporated "nowhere" cannot be verified. Lets tests and demos reach COMPLIANCE_FAILED at will.
 */
export const UNVERIFIABLE_JURISDICTION = 'ZZ';

export interface SolverRegistrationInput {
  name: string;
  corridors: string[];
  kyb: KybDetails;
  pricing: PricingEngineConfig;
  address?: string | undefined;
  callbackUrl?: string | undefined;
}

export interface OnboardingDeps {
  clock: Clock;
  environment: Environment;
  corridors: CorridorCatalogue;
  compliance: ComplianceModule;
  outbox: OutboxRepository;
  registry(): SolverRegistry;
  registrations: SolverRegistrations;
}

interface Check {
  checkType: 'kyc' | 'sanctions' | 'travel_rule';
  result: 'approved' | 'rejected';
  reason: string;
}

/**
 * Reference B solver registration: KYB details and pricing-engine configuration, a compliance verification
 * (mocked and deterministic in the sandbox, the compliance module's allow and sanctions lists in production), and a
 * solver key the solver stream accepts. Every check is recorded in the evidence ledger (`compliance.check`, trade
 * id = the solver id), approved or not; a refused registration creates no solver.
 */
export class SolverOnboarding {
  constructor(private readonly deps: OnboardingDeps) {}

  register(
    workspaceId: string,
    input: SolverRegistrationInput,
  ): { solver: SolverRecord; registration: SolverRegistrationRecord; solverKey: string } {
    this.checkCorridors(input.corridors);
    const checks = this.verify(input);
    const approved = checks.every((check) => check.result === 'approved');
    const { outbox, clock, registrations, compliance } = this.deps;
    const now = clock.now();

    if (!approved) {
      // The refusal is evidence too, under the id the solver would have had.
      const refusedId = newId('slv');
      outbox.commit(() => this.record(refusedId, workspaceId, input, checks, now));
      const failed = checks.filter((check) => check.result === 'rejected');
      throw new ComplianceError({
        code: 'kyb_rejected',
        codeB: 'COMPLIANCE_FAILED',
        param: failed.some((check) => check.checkType === 'kyc') ? 'kyb' : 'address',
        message:
          `Compliance verification refused ${JSON.stringify(input.kyb.legalName)}: ` +
          `${failed.map((check) => `${check.checkType === 'kyc' ? 'KYB' : check.checkType} (${check.reason})`).join(', ')}. ` +
          `Recorded in the evidence ledger as ${refusedId}.`,
      });
    }

    const solverKey = SolverRegistrations.newKey(this.deps.environment === 'production' ? 'live' : 'test');
    return outbox.commit(() => {
      const { solver } = this.deps.registry().register(workspaceId, {
        name: input.name,
        corridors: input.corridors,
        ...(input.callbackUrl === undefined ? {} : { callbackUrl: input.callbackUrl }),
        ...(input.address === undefined ? {} : { address: input.address }),
      });
      const last = this.record(solver.id, workspaceId, input, checks, now);
      const registration: SolverRegistrationRecord = {
        solverId: solver.id,
        workspaceId,
        keyHint: solverKey.slice(0, 12),
        kyb: input.kyb,
        pricing: input.pricing,
        verification: this.verification(checks, now, last, compliance.mocked),
        createdAt: now,
      };
      registrations.insert(registration, solverKey);
      return { solver, registration, solverKey };
    });
  }

  /** KYB of the entity, sanctions screening of its address, Travel Rule readiness; pure and deterministic. */
  private verify(input: SolverRegistrationInput): Check[] {
    const { compliance, environment } = this.deps;
    const screened = input.address === undefined ? undefined : compliance.screen(input.address as Address);
    let kyb: Check;
    if (input.kyb.jurisdiction === UNVERIFIABLE_JURISDICTION) {
      kyb = { checkType: 'kyc', result: 'rejected', reason: `jurisdiction ${UNVERIFIABLE_JURISDICTION} cannot be verified` };
    } else if (environment === 'sandbox') {
      kyb = { checkType: 'kyc', result: 'approved', reason: 'sandbox: KYB mocked as approved' };
    } else if (screened === undefined) {
      kyb = { checkType: 'kyc', result: 'rejected', reason: 'production KYB needs the solver’s settlement `address`' };
    } else {
      const found = screened.find((check) => check.checkType === 'kyc')!;
      kyb = {
        checkType: 'kyc',
        result: found.result,
        reason: found.result === 'approved' ? 'KYB on file (allow list)' : 'no KYB on file (not on the allow list)',
      };
    }
    const sanctionsFound = screened?.find((check) => check.checkType === 'sanctions');
    const sanctions: Check = sanctionsFound ?? {
      checkType: 'sanctions',
      result: 'approved',
      reason: environment === 'sandbox' ? 'sandbox: screening mocked (no address given)' : 'no address to screen',
    };
    const travelRule: Check = {
      checkType: 'travel_rule',
      result: kyb.result,
      reason: kyb.result === 'approved' ? 'originator identified by KYB' : 'originator not identified',
    };
    return [kyb, sanctions, travelRule];
  }

  private record(tradeId: string, workspaceId: string, input: SolverRegistrationInput, checks: Check[], at: number): LedgerEntry {
    let last: LedgerEntry | undefined;
    for (const check of checks) {
      last = this.deps.compliance.record(
        {
          tradeId,
          orderId: null,
          workspaceId,
          subject: input.address ?? input.kyb.legalName,
          checkType: check.checkType,
          result: check.result,
          details: {
            scope: 'solver_registration',
            reason: check.reason,
            legalName: input.kyb.legalName,
            jurisdiction: input.kyb.jurisdiction,
            registrationNumber: input.kyb.registrationNumber,
            pricingEngine: input.pricing.engine,
          },
        },
        at,
      );
    }
    return last!;
  }

  private verification(checks: Check[], at: number, last: LedgerEntry, mocked: boolean): KybVerification {
    const result = (type: Check['checkType']) => checks.find((check) => check.checkType === type)!.result;
    return {
      status: checks.every((check) => check.result === 'approved') ? 'approved' : 'rejected',
      mocked,
      kyb: result('kyc'),
      sanctions: result('sanctions') === 'approved' ? 'clear' : 'hit',
      travelRule: result('travel_rule') === 'approved' ? 'ready' : 'not_ready',
      verifiedAt: at,
      reasons: checks.map((check) => check.reason),
      evidenceHash: last.hash,
      evidenceSequence: last.sequence,
    };
  }

  private checkCorridors(corridors: readonly string[]): void {
    corridors.forEach((id, index) => {
      if (this.deps.corridors.get(id) === undefined) {
        throw new InvalidRequestError({
          code: 'parameter_invalid',
          param: `corridors.${index}`,
          message: `Unknown corridor \`${id}\`; GET /api/v1/corridors lists them.`,
        });
      }
    });
  }
}
