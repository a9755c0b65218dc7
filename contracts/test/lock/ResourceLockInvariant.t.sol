// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {Test, console} from "forge-std/Test.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";

import {ResourceLock} from "../../src/lock/ResourceLock.sol";
import {AlwaysOkAllocator} from "../../src/lock/AlwaysOkAllocator.sol";
import {ResetPeriod, Scope} from "../../src/lock/types/LockTypes.sol";
import {ResourceLockHandler} from "./handlers/ResourceLockHandler.sol";

/// @notice Solvency of the lock and single payout of every compact, under random deposits, transfers,
/// claims, replays and forced withdrawals (fee-on-transfer and native tokens included).
contract ResourceLockInvariantTest is Test {
    ResourceLock internal lock;
    ResourceLockHandler internal handler;

    function setUp() public {
        vm.warp(1_700_000_000);
        lock = new ResourceLock();
        AlwaysOkAllocator allocator = new AlwaysOkAllocator(address(lock));
        bytes12[] memory tags = new bytes12[](2);
        tags[0] = allocator.lockTag(Scope.Multichain, ResetPeriod.TenMinutes);
        tags[1] = allocator.lockTag(Scope.ChainSpecific, ResetPeriod.OneSecond);
        handler = new ResourceLockHandler(lock, tags);

        bytes4[] memory selectors = new bytes4[](6);
        selectors[0] = ResourceLockHandler.deposit.selector;
        selectors[1] = ResourceLockHandler.transfer.selector;
        selectors[2] = ResourceLockHandler.claim.selector;
        selectors[3] = ResourceLockHandler.replay.selector;
        selectors[4] = ResourceLockHandler.forcedWithdrawal.selector;
        selectors[5] = ResourceLockHandler.warp.selector;
        targetSelector(FuzzSelector({addr: address(handler), selectors: selectors}));
        targetContract(address(handler));
    }

    /// @notice Per token: what the lock holds covers every ERC-6909 balance of that token.
    function invariant_lockIsSolvent() public view {
        for (uint256 t; t < handler.tokenCount(); ++t) {
            address token = handler.tokens(t);
            uint256 owed;
            for (uint256 g; g < handler.lockTagCount(); ++g) {
                uint256 id = handler.idOf(g, t);
                for (uint256 a; a < handler.actorCount(); ++a) {
                    owed += lock.balanceOf(handler.actors(a), id);
                }
            }
            uint256 held = token == address(0) ? address(lock).balance : IERC20(token).balanceOf(address(lock));
            assertGe(held, owed, "lock holds less than it owes");
        }
    }

    /// @notice A compact (one allocator nonce) pays out at most once; replays never pay.
    function invariant_eachCompactPaysOnce() public view {
        assertEq(handler.replaysPaid(), 0, "a replayed claim paid");
        assertLe(handler.maxPayoutsPerNonce(), 1, "a nonce paid twice");
    }

    /// @notice Reports how much the campaign exercised (visible with -vv).
    function afterInvariant() public view {
        console.log("claims paid", handler.claimsPaid(), "nonces issued", handler.nextNonce() - 1);
    }
}
