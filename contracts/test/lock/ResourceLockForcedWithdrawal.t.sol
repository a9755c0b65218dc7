// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {ERC6909} from "@openzeppelin/contracts/token/ERC6909/draft-ERC6909.sol";

import {IResourceLock} from "../../src/lock/interfaces/IResourceLock.sol";
import {BatchClaim, ForcedWithdrawalStatus} from "../../src/lock/types/LockTypes.sol";
import {LockTestBase} from "./LockTestBase.sol";

/// @notice Forced withdrawals: the sponsor's exit without the allocator, after the lock's reset period.
contract ResourceLockForcedWithdrawalTest is LockTestBase {
    uint256 internal constant RESET = 600; // ResetPeriod.TenMinutes

    function setUp() public override {
        super.setUp();
        _deposit(sponsor, 100e6);
    }

    function _enable() internal returns (uint256 withdrawableAt) {
        vm.prank(sponsor);
        withdrawableAt = lock.enableForcedWithdrawal(lockId);
    }

    function test_enable_startsResetPeriod() public {
        vm.expectEmit(address(lock));
        emit IResourceLock.ForcedWithdrawalStatusUpdated(sponsor, lockId, true, block.timestamp + RESET);
        uint256 withdrawableAt = _enable();
        assertEq(withdrawableAt, block.timestamp + RESET);
        (ForcedWithdrawalStatus status, uint256 availableAt) = lock.getForcedWithdrawalStatus(sponsor, lockId);
        assertEq(uint8(status), uint8(ForcedWithdrawalStatus.Pending));
        assertEq(availableAt, withdrawableAt);
    }

    function test_status_disabledThenEnabledAfterPeriod() public {
        (ForcedWithdrawalStatus status,) = lock.getForcedWithdrawalStatus(sponsor, lockId);
        assertEq(uint8(status), uint8(ForcedWithdrawalStatus.Disabled));
        uint256 withdrawableAt = _enable();
        vm.warp(withdrawableAt);
        (status,) = lock.getForcedWithdrawalStatus(sponsor, lockId);
        assertEq(uint8(status), uint8(ForcedWithdrawalStatus.Enabled));
    }

    function test_forcedWithdrawal_edge_oneSecondBefore() public {
        uint256 withdrawableAt = _enable();
        vm.warp(withdrawableAt - 1);
        vm.prank(sponsor);
        vm.expectRevert(abi.encodeWithSelector(IResourceLock.PrematureWithdrawal.selector, lockId));
        lock.forcedWithdrawal(lockId, sponsor, 1);
    }

    function test_forcedWithdrawal_edge_atResetEnd() public {
        uint256 withdrawableAt = _enable();
        vm.warp(withdrawableAt);
        vm.prank(sponsor);
        assertTrue(lock.forcedWithdrawal(lockId, recipient, 30e6));
        assertEq(token.balanceOf(recipient), 30e6);
        assertEq(lock.balanceOf(sponsor, lockId), 70e6);
    }

    function test_forcedWithdrawal_edge_oneSecondAfter() public {
        uint256 withdrawableAt = _enable();
        vm.warp(withdrawableAt + 1);
        vm.prank(sponsor);
        lock.forcedWithdrawal(lockId, recipient, 100e6);
        assertEq(token.balanceOf(recipient), 100e6);
        assertEq(token.balanceOf(address(lock)), 0);
    }

    function test_forcedWithdrawal_zeroRecipientPaysCaller() public {
        vm.warp(_enable());
        vm.prank(sponsor);
        lock.forcedWithdrawal(lockId, address(0), 1e6);
        assertEq(token.balanceOf(sponsor), 1e6);
    }

    function test_forcedWithdrawal_nativeCoin() public {
        vm.deal(sponsor, 1 ether);
        vm.startPrank(sponsor);
        uint256 nativeId = lock.depositNative{value: 1 ether}(lockTag, sponsor);
        vm.warp(lock.enableForcedWithdrawal(nativeId));
        lock.forcedWithdrawal(nativeId, recipient, 1 ether);
        vm.stopPrank();
        assertEq(recipient.balance, 1 ether);
    }

    function test_forcedWithdrawal_revertsWhenNeverEnabled() public {
        vm.prank(sponsor);
        vm.expectRevert(abi.encodeWithSelector(IResourceLock.PrematureWithdrawal.selector, lockId));
        lock.forcedWithdrawal(lockId, sponsor, 1);
    }

    function test_forcedWithdrawal_revertsAboveBalance() public {
        vm.warp(_enable());
        vm.prank(sponsor);
        vm.expectRevert(
            abi.encodeWithSelector(ERC6909.ERC6909InsufficientBalance.selector, sponsor, 100e6, 100e6 + 1, lockId)
        );
        lock.forcedWithdrawal(lockId, sponsor, 100e6 + 1);
    }

    function test_forcedWithdrawal_isPerAccount() public {
        vm.warp(_enable());
        address other = makeAddr("other");
        _deposit(other, 5);
        vm.prank(other);
        vm.expectRevert(abi.encodeWithSelector(IResourceLock.PrematureWithdrawal.selector, lockId));
        lock.forcedWithdrawal(lockId, other, 5);
    }

    function test_disable_stopsWithdrawal() public {
        vm.warp(_enable());
        vm.expectEmit(address(lock));
        emit IResourceLock.ForcedWithdrawalStatusUpdated(sponsor, lockId, false, 0);
        vm.prank(sponsor);
        assertTrue(lock.disableForcedWithdrawal(lockId));
        (ForcedWithdrawalStatus status,) = lock.getForcedWithdrawalStatus(sponsor, lockId);
        assertEq(uint8(status), uint8(ForcedWithdrawalStatus.Disabled));
        vm.prank(sponsor);
        vm.expectRevert(abi.encodeWithSelector(IResourceLock.PrematureWithdrawal.selector, lockId));
        lock.forcedWithdrawal(lockId, sponsor, 1);
    }

    function test_disable_revertsWhenAlreadyDisabled() public {
        vm.prank(sponsor);
        vm.expectRevert(abi.encodeWithSelector(IResourceLock.ForcedWithdrawalAlreadyDisabled.selector, sponsor, lockId));
        lock.disableForcedWithdrawal(lockId);
    }

    function test_reenable_restartsResetPeriod() public {
        uint256 first = _enable();
        vm.warp(first - 1);
        uint256 second = _enable();
        assertEq(second, first - 1 + RESET);
        vm.warp(first);
        vm.prank(sponsor);
        vm.expectRevert(abi.encodeWithSelector(IResourceLock.PrematureWithdrawal.selector, lockId));
        lock.forcedWithdrawal(lockId, sponsor, 1);
    }

    /// @notice A pending forced withdrawal does not stop a signed compact from being claimed; a claim that
    /// races a completed withdrawal fails for lack of balance.
    function test_claimStillWorksWhileWithdrawalPending() public {
        _enable();
        BatchClaim memory claim = _signedClaim(1, block.timestamp + 1 hours, 40e6);
        vm.prank(arbiter);
        lock.batchClaim(claim);
        assertEq(token.balanceOf(recipient), 40e6);
    }

    function testFuzz_forcedWithdrawal_onlyFromResetEnd(uint256 waited) public {
        waited = bound(waited, 0, 2 * RESET);
        uint256 withdrawableAt = _enable();
        vm.warp(block.timestamp + waited);
        vm.prank(sponsor);
        if (block.timestamp < withdrawableAt) {
            vm.expectRevert(abi.encodeWithSelector(IResourceLock.PrematureWithdrawal.selector, lockId));
        }
        lock.forcedWithdrawal(lockId, sponsor, 1);
    }
}
