import { type Abi, type Hex, decodeErrorResult } from 'viem';
import { InputSettlerEscrowArtifact } from '../../contracts/artifacts/InputSettlerEscrow.js';
import { SignatureTransferArtifact } from '../../contracts/artifacts/SignatureTransfer.js';
import { TestStablecoinArtifact } from '../../contracts/artifacts/TestStablecoin.js';

/** Custom errors an `openFor` can revert with: the escrow's, Permit2's and the token's (ERC-20, ERC-3009). */
const OPEN_ERRORS = [
  ...InputSettlerEscrowArtifact.abi.filter((item) => item.type === 'error'),
  ...SignatureTransferArtifact.abi.filter((item) => item.type === 'error'),
  ...TestStablecoinArtifact.abi.filter((item) => item.type === 'error'),
];

export interface RevertReason {
  /** Custom error name, e.g. `InvalidNonce`, or undefined when the data does not decode. */
  name: string | undefined;
  message: string;
}

/** The revert data somewhere in a viem error's cause chain. */
function revertData(error: unknown): Hex | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 10 && current !== undefined && current !== null; depth++) {
    const data = (current as { data?: unknown }).data;
    if (typeof data === 'string' && /^0x[0-9a-fA-F]{8,}$/.test(data)) return data as Hex;
    if (typeof data === 'object' && data !== null && typeof (data as { data?: unknown }).data === 'string') {
      return (data as { data: Hex }).data;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Names why a simulated call reverted, for error messages and the evidence; `extraErrors` adds a contract's own. */
export function revertReason(error: unknown, extraErrors: Abi = []): RevertReason {
  const data = revertData(error);
  if (data !== undefined) {
    try {
      const decoded = decodeErrorResult({ abi: [...OPEN_ERRORS, ...extraErrors.filter((item) => item.type === 'error')], data });
      const args = (decoded.args ?? []).map((a) => (typeof a === 'bigint' ? a.toString() : String(a)));
      return { name: decoded.errorName, message: `${decoded.errorName}(${args.join(', ')})` };
    } catch {
      return { name: undefined, message: `reverted with ${data.slice(0, 10)}` };
    }
  }
  const text = error instanceof Error ? ((error as { shortMessage?: string }).shortMessage ?? error.message) : String(error);
  return { name: undefined, message: text.split('\n')[0] ?? 'reverted' };
}
