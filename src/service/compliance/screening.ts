import { type Address, getAddress } from 'viem';
import type { Environment } from '../../contracts/deployment.js';
import type { ComplianceSettings } from './settings.js';

/** Check types recorded in the evidence ledger and in `compliance.event`. */
export type CheckType = 'attestation' | 'kyc' | 'sanctions' | 'travel_rule' | 'settlement_audit';
export type CheckResult = 'approved' | 'rejected';

export interface ScreeningResult {
  checkType: Exclude<CheckType, 'attestation' | 'settlement_audit'>;
  result: CheckResult;
  /** Why, in a few words, for the evidence entry. */
  reason: string;
}

/**
 * Screens one participant. Pure and deterministic: the same address, environment and settings always give the
 * same results, so the sandbox's mocked compliance is reproducible in tests and demos.
 */
export class Screening {
  private readonly allowed: ReadonlySet<string>;
  private readonly sanctioned: ReadonlySet<string>;

  constructor(
    private readonly environment: Environment,
    settings: ComplianceSettings,
  ) {
    this.allowed = new Set((settings.allowList ?? []).map((a) => getAddress(a)));
    this.sanctioned = new Set((settings.sanctioned ?? []).map((a) => getAddress(a)));
  }

  get mocked(): boolean {
    return this.environment === 'sandbox';
  }

  screen(address: Address): ScreeningResult[] {
    const subject = getAddress(address);
    const kyc: ScreeningResult = this.mocked
      ? { checkType: 'kyc', result: 'approved', reason: 'sandbox: KYC/KYB mocked as approved' }
      : this.allowed.has(subject)
        ? { checkType: 'kyc', result: 'approved', reason: 'on the allow list' }
        : { checkType: 'kyc', result: 'rejected', reason: 'not on the allow list' };
    const sanctions: ScreeningResult = this.sanctioned.has(subject)
      ? { checkType: 'sanctions', result: 'rejected', reason: 'on the sanctioned list' }
      : { checkType: 'sanctions', result: 'approved', reason: this.mocked ? 'sandbox: screening mocked' : 'no sanctions match' };
    const travelRule: ScreeningResult = {
      checkType: 'travel_rule',
      result: kyc.result,
      reason: kyc.result === 'approved' ? 'originator identified' : 'originator not identified',
    };
    return [kyc, sanctions, travelRule];
  }

  approved(address: Address): boolean {
    return this.screen(address).every((check) => check.result === 'approved');
  }
}
