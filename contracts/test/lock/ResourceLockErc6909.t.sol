// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {ERC6909} from "@openzeppelin/contracts/token/ERC6909/draft-ERC6909.sol";

import {IResourceLock} from "../../src/lock/interfaces/IResourceLock.sol";
import {LockIdLib} from "../../src/lock/libraries/LockIdLib.sol";
import {ResetPeriod, Scope} from "../../src/lock/types/LockTypes.sol";
import {LockTestBase} from "./LockTestBase.sol";
import {ScriptedAllocator} from "./helpers/TestAllocators.sol";

/// @notice ERC-6909 surface: transfers need the allocator's attestation; approvals and operators are standard.
contract ResourceLockErc6909Test is LockTestBase {
    event Transfer(address caller, address indexed sender, address indexed receiver, uint256 indexed id, uint256 amount);
    event Approval(address indexed owner, address indexed spender, uint256 indexed id, uint256 amount);
    event OperatorSet(address indexed owner, address indexed spender, bool approved);

    address internal spender;

    function setUp() public override {
        super.setUp();
        spender = makeAddr("spender");
        _deposit(sponsor, 100);
    }

    function test_transfer() public {
        vm.expectEmit(address(lock));
        emit Transfer(sponsor, sponsor, recipient, lockId, 40);
        vm.prank(sponsor);
        assertTrue(lock.transfer(recipient, lockId, 40));
        assertEq(lock.balanceOf(sponsor, lockId), 60);
        assertEq(lock.balanceOf(recipient, lockId), 40);
    }

    function test_transfer_revertsAboveBalance() public {
        vm.prank(sponsor);
        vm.expectRevert(abi.encodeWithSelector(ERC6909.ERC6909InsufficientBalance.selector, sponsor, 100, 101, lockId));
        lock.transfer(recipient, lockId, 101);
    }

    function test_approveAndTransferFrom() public {
        vm.expectEmit(address(lock));
        emit Approval(sponsor, spender, lockId, 30);
        vm.prank(sponsor);
        assertTrue(lock.approve(spender, lockId, 30));
        assertEq(lock.allowance(sponsor, spender, lockId), 30);
        vm.prank(spender);
        assertTrue(lock.transferFrom(sponsor, recipient, lockId, 30));
        assertEq(lock.balanceOf(recipient, lockId), 30);
        assertEq(lock.allowance(sponsor, spender, lockId), 0);
    }

    function test_transferFrom_revertsAboveAllowance() public {
        vm.prank(sponsor);
        lock.approve(spender, lockId, 5);
        vm.prank(spender);
        vm.expectRevert(abi.encodeWithSelector(ERC6909.ERC6909InsufficientAllowance.selector, spender, 5, 6, lockId));
        lock.transferFrom(sponsor, recipient, lockId, 6);
    }

    function test_operatorMovesAnyId() public {
        vm.expectEmit(address(lock));
        emit OperatorSet(sponsor, spender, true);
        vm.prank(sponsor);
        assertTrue(lock.setOperator(spender, true));
        assertTrue(lock.isOperator(sponsor, spender));
        vm.prank(spender);
        lock.transferFrom(sponsor, recipient, lockId, 100);
        assertEq(lock.balanceOf(recipient, lockId), 100);
    }

    function test_transfersNeedAllocatorAttestation() public {
        ScriptedAllocator scripted = new ScriptedAllocator();
        uint96 scriptedId = lock.__registerAllocator(address(scripted), "");
        bytes12 tag = LockIdLib.toLockTag(scriptedId, Scope.Multichain, ResetPeriod.OneDay);
        token.mint(sponsor, 10);
        vm.startPrank(sponsor);
        token.approve(address(lock), 10);
        uint256 id = lock.depositERC20(address(token), tag, 10, sponsor);
        lock.setOperator(spender, true);
        vm.stopPrank();

        scripted.setRefusals(false, true);
        vm.prank(sponsor);
        vm.expectRevert(
            abi.encodeWithSelector(IResourceLock.UnallocatedTransfer.selector, sponsor, sponsor, recipient, id, 1)
        );
        lock.transfer(recipient, id, 1);
        vm.prank(spender);
        vm.expectRevert(
            abi.encodeWithSelector(IResourceLock.UnallocatedTransfer.selector, spender, sponsor, recipient, id, 1)
        );
        lock.transferFrom(sponsor, recipient, id, 1);

        scripted.setRefusals(false, false);
        vm.prank(spender);
        lock.transferFrom(sponsor, recipient, id, 1);
        assertEq(lock.balanceOf(recipient, id), 1);
    }
}
