import type { Hex } from 'viem';

/** A relayer key. The address is derived from the key; it is listed only so that logs and docs can name it. */
export interface RelayerKey {
  privateKey: Hex;
}

/**
 * What the settlement engine needs besides the chains: the two relayer accounts of sandbox.json
 * (`accounts.serviceRelayer[0]`, `accounts.oracleRelayer[0]`). Without them the service answers every order with
 * 503 `chain_unavailable` and watches nothing.
 */
export interface SettlementSettings {
  /** Sends `openFor` and `refund` on origin chains. */
  serviceRelayer: RelayerKey;
  /** The oracle pair's relayer: `OutputOracle.submit` on destinations, `InputOracle.receiveAttestation` on origins. */
  oracleRelayer: RelayerKey;
  /** Per-transaction gas limits (explicit: estimates fall short under concurrency). */
  gas?: Partial<GasLimits>;
}

export interface GasLimits {
  /** Added on top of the simulated gas of an `openFor`. */
  openHeadroom: bigint;
  oracleSubmit: bigint;
  oracleReceive: bigint;
  refund: bigint;
}

export const DEFAULT_GAS: GasLimits = {
  openHeadroom: 60_000n,
  oracleSubmit: 200_000n,
  oracleReceive: 250_000n,
  refund: 200_000n,
};

declare module '../config.js' {
  interface ServiceConfig {
    /** Relayer keys of the settlement engine (sandbox.json `accounts.serviceRelayer[0]`, `accounts.oracleRelayer[0]`). */
    settlement?: SettlementSettings;
  }
}
