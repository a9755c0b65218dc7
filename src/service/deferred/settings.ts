/** The deferred rail's settings (service config `deferred`). */
export interface DeferredSettings {
  /** Withdrawals above this many token units wait for an admin approval (default 10,000,000,000: 10,000 of a 6-decimal token). */
  withdrawalApprovalThreshold?: string | number;
}

declare module '../config.js' {
  interface ServiceConfig {
    /** Deferred rail: withdrawal approval threshold. */
    deferred?: DeferredSettings;
  }
}
