import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { canonicalJson } from './canonical-json.js';

/** The signature block of a report: everything but `value` is signed too, so the signer cannot be swapped. */
export interface ReportSignature {
  algorithm: 'Ed25519';
  /** SPKI DER, base64. */
  publicKey: string;
  /** `sha256:<hex>` of the SPKI DER: what people compare to trust a signer. */
  keyId: string;
  signedAt: string;
  /** Ed25519 signature over the canonical JSON of the report with this block minus `value`, base64. */
  value: string;
}

export interface SignedDocument {
  signature?: ReportSignature;
  [key: string]: unknown;
}

export interface SigningKey {
  privateKey: KeyObject;
  publicKey: KeyObject;
}

export function generateSigningKey(): SigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return { privateKey, publicKey };
}

/** A PKCS#8 PEM Ed25519 private key (what `sandbox conformance keygen` writes). */
export function signingKeyFromPem(pem: string): SigningKey {
  const privateKey = createPrivateKey(pem);
  if (privateKey.asymmetricKeyType !== 'ed25519') throw new Error(`the signing key must be Ed25519, got ${privateKey.asymmetricKeyType}`);
  return { privateKey, publicKey: createPublicKey(privateKey) };
}

export function signingKeyToPem(key: SigningKey): { privatePem: string; publicPem: string } {
  return {
    privatePem: key.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    publicPem: key.publicKey.export({ format: 'pem', type: 'spki' }).toString(),
  };
}

export function keyIdOf(publicKey: KeyObject): string {
  const der = publicKey.export({ format: 'der', type: 'spki' });
  return `sha256:${createHash('sha256').update(der).digest('hex')}`;
}

/** The exact bytes a signature covers. */
export function signingPayload(document: SignedDocument): Buffer {
  const { signature, ...rest } = document;
  const header = signature === undefined ? undefined : { ...signature, value: undefined };
  return Buffer.from(canonicalJson({ ...rest, ...(header === undefined ? {} : { signature: header }) }), 'utf8');
}

/** Returns a copy of the document with its signature block; a signed run is frozen: any change breaks it. */
export function signDocument<T extends SignedDocument>(
  document: T,
  key: SigningKey,
  signedAt = new Date(),
): T & { signature: ReportSignature } {
  const { signature: _previous, ...rest } = document;
  const header: Omit<ReportSignature, 'value'> = {
    algorithm: 'Ed25519',
    publicKey: key.publicKey.export({ format: 'der', type: 'spki' }).toString('base64'),
    keyId: keyIdOf(key.publicKey),
    signedAt: signedAt.toISOString(),
  };
  const unsigned = { ...rest, signature: { ...header, value: '' } } as SignedDocument;
  const value = sign(null, signingPayload(unsigned), key.privateKey).toString('base64');
  return { ...(rest as T), signature: { ...header, value } };
}

export type VerifyOutcome = { valid: true; keyId: string; signedAt: string } | { valid: false; reason: string; keyId?: string };

/**
 * Checks a signed document: the signature over its canonical JSON, the key id against the key, and, when
 * `trustedPublicKey` is given (PEM or base64 SPKI), that this key signed it.
 */
export function verifyDocument(document: unknown, trustedPublicKey?: string): VerifyOutcome {
  if (typeof document !== 'object' || document === null || Array.isArray(document)) return { valid: false, reason: 'not a JSON object' };
  const signature = (document as SignedDocument).signature;
  if (signature === undefined || typeof signature !== 'object') return { valid: false, reason: 'the report carries no signature' };
  if (signature.algorithm !== 'Ed25519') return { valid: false, reason: `unsupported algorithm ${String(signature.algorithm)}` };
  if (typeof signature.value !== 'string' || typeof signature.publicKey !== 'string') {
    return { valid: false, reason: 'the signature block is incomplete' };
  }
  let publicKey: KeyObject;
  try {
    publicKey = createPublicKey({ key: Buffer.from(signature.publicKey, 'base64'), format: 'der', type: 'spki' });
  } catch {
    return { valid: false, reason: 'the embedded public key is not a valid SPKI key' };
  }
  const keyId = keyIdOf(publicKey);
  if (signature.keyId !== keyId)
    return { valid: false, reason: `keyId ${signature.keyId} does not match the embedded key (${keyId})`, keyId };
  if (trustedPublicKey !== undefined) {
    let trusted: KeyObject;
    try {
      trusted = trustedPublicKey.includes('BEGIN')
        ? createPublicKey(trustedPublicKey)
        : createPublicKey({ key: Buffer.from(trustedPublicKey.trim(), 'base64'), format: 'der', type: 'spki' });
    } catch {
      return { valid: false, reason: 'the trusted public key could not be read', keyId };
    }
    if (keyIdOf(trusted) !== keyId)
      return { valid: false, reason: `signed by ${keyId}, not by the trusted key ${keyIdOf(trusted)}`, keyId };
  }
  let ok = false;
  try {
    ok = verify(null, signingPayload(document as SignedDocument), publicKey, Buffer.from(signature.value, 'base64'));
  } catch {
    ok = false;
  }
  if (!ok) return { valid: false, reason: 'the signature does not match the report: it was changed after signing', keyId };
  return { valid: true, keyId, signedAt: signature.signedAt };
}
