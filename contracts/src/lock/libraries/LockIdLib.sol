// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {ResetPeriod, Scope} from "../types/LockTypes.sol";

/// @title LockIdLib
/// @notice Layout of resource lock ids and lock tags, identical to The Compact v1:
///
///   id (uint256)  = lockTag (96 bits) ‖ token (160 bits)
///   lockTag       = scope (1 bit) ‖ resetPeriod (3 bits) ‖ allocatorId (92 bits)
///   allocatorId   = compactFlag (4 bits) ‖ low 88 bits of the allocator address
///
/// The compact flag scores how many leading zero nibbles the allocator address has (0 for fewer than 4,
/// then n - 3, capped at 15 from 18 nibbles on); it keeps ids of vanity allocators from colliding with others.
library LockIdLib {
    uint256 private constant ALLOCATOR_ID_MASK = (1 << 92) - 1;
    uint256 private constant LOW_88_BITS = (1 << 88) - 1;

    /// @notice Packs a lock tag from its parts.
    function toLockTag(uint96 allocatorId, Scope scope, ResetPeriod resetPeriod) internal pure returns (bytes12) {
        uint256 tag = (uint256(scope) << 95) | (uint256(resetPeriod) << 92) | (uint256(allocatorId) & ALLOCATOR_ID_MASK);
        return bytes12(uint96(tag));
    }

    /// @notice Lock id of `token` held under `lockTag`.
    function toId(bytes12 lockTag, address token) internal pure returns (uint256) {
        return uint256(bytes32(lockTag)) | uint256(uint160(token));
    }

    /// @notice The upper 96 bits of an id (or of a claimant value).
    function lockTagOf(uint256 id) internal pure returns (bytes12) {
        return bytes12(bytes32(id));
    }

    /// @notice The lower 160 bits of an id (token) or of a claimant value (recipient).
    function addressOf(uint256 id) internal pure returns (address) {
        return address(uint160(id));
    }

    function allocatorIdOf(bytes12 lockTag) internal pure returns (uint96) {
        return uint96(uint256(uint96(lockTag)) & ALLOCATOR_ID_MASK);
    }

    function allocatorIdOf(uint256 id) internal pure returns (uint96) {
        return allocatorIdOf(lockTagOf(id));
    }

    function scopeOf(uint256 id) internal pure returns (Scope) {
        return Scope(id >> 255);
    }

    function resetPeriodOf(uint256 id) internal pure returns (ResetPeriod) {
        return ResetPeriod((id >> 252) & 7);
    }

    /// @notice Seconds of each reset period; the 1-hour and 7-day periods carry The Compact's padding.
    function resetPeriodSeconds(ResetPeriod resetPeriod) internal pure returns (uint256) {
        if (resetPeriod == ResetPeriod.OneSecond) return 1;
        if (resetPeriod == ResetPeriod.FifteenSeconds) return 15;
        if (resetPeriod == ResetPeriod.OneMinute) return 60;
        if (resetPeriod == ResetPeriod.TenMinutes) return 600;
        if (resetPeriod == ResetPeriod.OneHourAndFiveMinutes) return 3900;
        if (resetPeriod == ResetPeriod.OneDay) return 86_400;
        if (resetPeriod == ResetPeriod.SevenDaysAndOneHour) return 608_400;
        return 2_592_000;
    }

    /// @notice The allocator id an address receives when it registers.
    function allocatorIdFor(address allocator) internal pure returns (uint96) {
        uint256 flag = compactFlag(allocator);
        return uint96((flag << 88) | (uint256(uint160(allocator)) & LOW_88_BITS));
    }

    /// @notice 0 for fewer than 4 leading zero nibbles, n - 3 for 4..17, 15 for 18 or more.
    function compactFlag(address allocator) internal pure returns (uint8) {
        uint256 value = uint160(allocator);
        uint256 zeroNibbles;
        // Walk from the most significant nibble; stops at the first non-zero one (at most 40 steps).
        while (zeroNibbles < 40 && (value >> (156 - 4 * zeroNibbles)) & 0xf == 0) {
            ++zeroNibbles;
        }
        if (zeroNibbles < 4) return 0;
        if (zeroNibbles >= 18) return 15;
        return uint8(zeroNibbles - 3);
    }
}
