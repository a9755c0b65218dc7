/**
 * Compliance rules. In the sandbox every participant is approved (mocked, deterministic) unless listed in
 * `sanctioned`; in production a participant must be on `allowList` (KYC/KYB done) and not on `sanctioned`.
 */
export interface ComplianceSettings {
  /** How long an attestation from `GET /api/v1/compliance/status` stays fresh, by the service clock (default 1 h). */
  attestationTtlMs?: number;
  /** Production: approved participants (addresses, any case). Ignored in the sandbox. */
  allowList?: readonly string[];
  /** Both environments: participants that fail sanctions screening. */
  sanctioned?: readonly string[];
  /**
   * Both environments: ISO 3166-1 alpha-2 jurisdictions whose counterparties fail screening (default: the
   * comprehensively sanctioned KP, IR, CU, SY).
   */
  sanctionedJurisdictions?: readonly string[];
}

export const DEFAULT_SANCTIONED_JURISDICTIONS: readonly string[] = ['KP', 'IR', 'CU', 'SY'];

export const DEFAULT_ATTESTATION_TTL_MS = 3_600_000;

declare module '../config.js' {
  interface ServiceConfig {
    /** Attestation lifetime, production allow list, sanctioned list. */
    compliance?: ComplianceSettings;
  }
}
