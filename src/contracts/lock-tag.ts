import { type Address, getAddress } from 'viem';

/** Reset period index 3 (ten minutes), multichain scope: the sandbox lock tag for resource-lock deposits. */
export const SANDBOX_LOCK_RESET_PERIOD = 3;

/**
 * The Compact's lock tag: scope(1 bit) ‖ resetPeriod(3 bits) ‖ allocatorId(92 bits), where allocatorId =
 * compactFlag(4 bits) ‖ the allocator address's low 88 bits (contracts/src/lock/libraries/LockIdLib.sol).
 */
export function compactLockTag(allocator: Address, resetPeriod = SANDBOX_LOCK_RESET_PERIOD, scope: 0 | 1 = 0): `0x${string}` {
  const address = BigInt(getAddress(allocator));
  const hex = address.toString(16).padStart(40, '0');
  const leadingZeros = hex.length - hex.replace(/^0+/, '').length;
  const compactFlag = leadingZeros < 4 ? 0n : leadingZeros > 17 ? 15n : BigInt(leadingZeros - 3);
  const allocatorId = (compactFlag << 88n) | (address & ((1n << 88n) - 1n));
  const tag = (BigInt(scope) << 95n) | (BigInt(resetPeriod) << 92n) | allocatorId;
  return `0x${tag.toString(16).padStart(24, '0')}`;
}
