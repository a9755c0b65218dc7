// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {Test} from "forge-std/Test.sol";
import {LockIdLib} from "../../src/lock/libraries/LockIdLib.sol";
import {ResetPeriod, Scope} from "../../src/lock/types/LockTypes.sol";

/// @notice Pins the lock id layout to The Compact v1's: scope(1) ‖ resetPeriod(3) ‖ allocatorId(92) ‖ token(160).
contract LockIdLibTest is Test {
    function test_lockTagBitPositions() public pure {
        bytes12 tag = LockIdLib.toLockTag(1, Scope.ChainSpecific, ResetPeriod.ThirtyDays);
        uint256 id = LockIdLib.toId(tag, address(0xbeef));
        assertEq(id >> 255, 1, "scope is bit 255");
        assertEq((id >> 252) & 7, 7, "reset period is bits 252-254");
        assertEq((id >> 160) & ((1 << 92) - 1), 1, "allocator id is bits 160-251");
        assertEq(uint160(id), 0xbeef, "token is bits 0-159");
        assertEq(bytes32(tag), bytes32(0xf000000000000000000000010000000000000000000000000000000000000000));
    }

    function test_allocatorIdIsMaskedTo92Bits() public pure {
        bytes12 tag = LockIdLib.toLockTag(type(uint96).max, Scope.Multichain, ResetPeriod.OneSecond);
        assertEq(uint96(tag), (1 << 92) - 1);
    }

    function test_compactFlag() public pure {
        assertEq(LockIdLib.compactFlag(address(type(uint160).max)), 0);
        assertEq(LockIdLib.compactFlag(address(uint160(1) << 144)), 0, "3 zero nibbles");
        assertEq(LockIdLib.compactFlag(address(uint160(1) << 140)), 1, "4 zero nibbles");
        assertEq(LockIdLib.compactFlag(address(uint160(1) << 88)), 14, "17 zero nibbles");
        assertEq(LockIdLib.compactFlag(address(uint160(1) << 84)), 15, "18 zero nibbles");
        assertEq(LockIdLib.compactFlag(address(0x1)), 15, "39 zero nibbles");
        assertEq(LockIdLib.compactFlag(address(0)), 15, "40 zero nibbles");
    }

    function test_allocatorIdFor() public pure {
        address allocator = 0x00000000000000171ede64904551eeDF3C6C9788;
        // 14 leading zero nibbles -> flag 11; low 88 bits of the address follow.
        uint96 expected = uint96((uint256(11) << 88) | (uint256(uint160(allocator)) & ((1 << 88) - 1)));
        assertEq(LockIdLib.allocatorIdFor(allocator), expected);
    }

    function test_resetPeriodSeconds() public pure {
        assertEq(LockIdLib.resetPeriodSeconds(ResetPeriod.OneSecond), 1);
        assertEq(LockIdLib.resetPeriodSeconds(ResetPeriod.FifteenSeconds), 15);
        assertEq(LockIdLib.resetPeriodSeconds(ResetPeriod.OneMinute), 60);
        assertEq(LockIdLib.resetPeriodSeconds(ResetPeriod.TenMinutes), 600);
        assertEq(LockIdLib.resetPeriodSeconds(ResetPeriod.OneHourAndFiveMinutes), 3900);
        assertEq(LockIdLib.resetPeriodSeconds(ResetPeriod.OneDay), 86_400);
        assertEq(LockIdLib.resetPeriodSeconds(ResetPeriod.SevenDaysAndOneHour), 608_400);
        assertEq(LockIdLib.resetPeriodSeconds(ResetPeriod.ThirtyDays), 2_592_000);
    }

    function testFuzz_idRoundTrip(uint96 allocatorId, uint8 scopeRaw, uint8 resetRaw, address token) public pure {
        allocatorId = uint96(bound(allocatorId, 0, (1 << 92) - 1));
        Scope scope = Scope(bound(scopeRaw, 0, 1));
        ResetPeriod resetPeriod = ResetPeriod(bound(resetRaw, 0, 7));
        bytes12 tag = LockIdLib.toLockTag(allocatorId, scope, resetPeriod);
        uint256 id = LockIdLib.toId(tag, token);
        assertEq(LockIdLib.lockTagOf(id), tag);
        assertEq(LockIdLib.addressOf(id), token);
        assertEq(LockIdLib.allocatorIdOf(id), allocatorId);
        assertEq(uint8(LockIdLib.scopeOf(id)), uint8(scope));
        assertEq(uint8(LockIdLib.resetPeriodOf(id)), uint8(resetPeriod));
    }
}
