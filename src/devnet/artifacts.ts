import { createHash } from 'node:crypto';
import * as generated from '../contracts/artifacts/index.js';
import { ArtifactMissingError } from './errors.js';
import { CONTRACTS, TOKENS } from './deployment.js';
import type { Hex } from '../contracts/deployment.js';

/** The part of a generated artifact the devnet needs. */
export interface ContractArtifact {
  abi: readonly unknown[];
  bytecode: Hex;
  deployedBytecode: Hex;
}

export type ArtifactSet = ReadonlyMap<string, ContractArtifact>;

/** Artifact names the deployment plan uses, in plan order, without duplicates. */
export function plannedArtifactNames(): string[] {
  return [...new Set([...CONTRACTS.map((c) => c.artifact), ...TOKENS.map((t) => t.artifact)])];
}

/**
 * The artifacts the plan uses, from the modules scripts/build-contracts.mjs generates (never a compiler).
 * Looked up by name because the plan is data; a name the build did not produce is reported with the fix.
 */
export function loadArtifacts(names: readonly string[] = plannedArtifactNames()): ArtifactSet {
  const byName = generated as unknown as Record<string, ContractArtifact | undefined>;
  const loaded = names.map((name) => [name, byName[`${name}Artifact`]] as const);
  const missing = loaded.filter(([, artifact]) => !artifact?.bytecode || artifact.bytecode === '0x').map(([n]) => n);
  if (missing.length > 0) throw new ArtifactMissingError(missing);
  return new Map(loaded as ReadonlyArray<readonly [string, ContractArtifact]>);
}

/** Identifies the code of a set of artifacts: part of every cache key that depends on contract code. */
export function artifactsFingerprint(artifacts: ArtifactSet): string {
  const hash = createHash('sha256');
  for (const [name, artifact] of [...artifacts].sort(([a], [b]) => a.localeCompare(b))) {
    hash.update(name).update('\0').update(artifact.bytecode).update('\0').update(artifact.deployedBytecode).update('\0');
  }
  return hash.digest('hex');
}
