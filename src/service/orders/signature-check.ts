import { type Address, type Hex, type PublicClient, getAddress } from 'viem';
import { recoverSigner } from '../../contracts/secp256k1.js';
import type { OrderTypedData } from '../../contracts/typed-data.js';
import { hashTypedDataCached } from '../../contracts/typed-data-hash.js';

export type SignatureVerdict = { valid: true } | { valid: false; recovered: Address | null };

/**
 * Does `signature` authorise the order's lock-specific message for `user`? An EOA signature is checked locally
 * (no round trip); only when that fails and the user is a contract is the chain asked (ERC-1271), as the
 * settlers would.
 */
export async function checkOrderSignature(
  typedData: OrderTypedData,
  signature: Hex,
  user: Address,
  client: PublicClient | undefined,
): Promise<SignatureVerdict> {
  let recovered: Address | null = null;
  try {
    // viem's recoverTypedDataAddress, with the type hashes remembered (see typed-data-hash.ts) and the curve in
    // libsecp256k1 (see secp256k1.ts).
    recovered = await recoverSigner(hashTypedDataCached(typedData), signature);
    if (getAddress(recovered) === getAddress(user)) return { valid: true };
  } catch {
    recovered = null;
  }
  if (client !== undefined) {
    const code = await client.getCode({ address: user }).catch(() => undefined);
    if (code !== undefined && code !== '0x') {
      const ok = await client
        .verifyTypedData({ ...(typedData as object), address: user, signature } as Parameters<PublicClient['verifyTypedData']>[0])
        .catch(() => false);
      if (ok) return { valid: true };
    }
  }
  return { valid: false, recovered };
}
