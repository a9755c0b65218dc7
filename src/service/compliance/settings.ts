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
}

export const DEFAULT_ATTESTATION_TTL_MS = 3_600_000;

declare module '../config.js' {
  interface ServiceConfig {
    /** Attestation lifetime, production allow list, sanctioned list. */
    compliance?: ComplianceSettings;
  }
}
