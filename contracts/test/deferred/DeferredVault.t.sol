// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {ISignatureTransfer} from "../../src/permit2/ISignatureTransfer.sol";
import {DeferredVault} from "../../src/deferred/DeferredVault.sol";
import {FeeOnTransferToken} from "../mocks/FeeOnTransferToken.sol";
import {DeferredVaultTestBase} from "./DeferredVaultTestBase.sol";

contract DeferredVaultTest is DeferredVaultTestBase {
    bytes32 internal constant ORDER = keccak256("ord_1");
    address internal solver = makeAddr("solver");

    function test_deposit_creditsTheSignedAccount_relayedByAnyone() public {
        ISignatureTransfer.PermitTransferFrom memory permit = depositPermit(address(usdc), 500e6);
        bytes memory signature = signDeposit(DEPOSITOR_KEY, permit, ACCOUNT);
        vm.expectEmit(address(vault));
        emit DeferredVault.Deposited(ACCOUNT, address(usdc), depositor, 500e6);
        vm.prank(makeAddr("relayer"));
        assertEq(vault.deposit(ACCOUNT, permit, depositor, signature), 500e6);
        assertEq(vault.credit(ACCOUNT, address(usdc)), 500e6);
        assertEq(vault.totalCredit(address(usdc)), 500e6);
        assertEq(usdc.balanceOf(address(vault)), 500e6);
    }

    function test_deposit_toAnotherAccountThanSigned_reverts() public {
        ISignatureTransfer.PermitTransferFrom memory permit = depositPermit(address(usdc), 500e6);
        bytes memory signature = signDeposit(DEPOSITOR_KEY, permit, ACCOUNT);
        vm.expectRevert(ISignatureTransfer.InvalidSigner.selector);
        vault.deposit(OTHER_ACCOUNT, permit, depositor, signature);
    }

    function test_deposit_replay_reverts() public {
        ISignatureTransfer.PermitTransferFrom memory permit = depositPermit(address(usdc), 1e6);
        bytes memory signature = signDeposit(DEPOSITOR_KEY, permit, ACCOUNT);
        vault.deposit(ACCOUNT, permit, depositor, signature);
        vm.expectRevert(ISignatureTransfer.InvalidNonce.selector);
        vault.deposit(ACCOUNT, permit, depositor, signature);
    }

    function test_deposit_zeroAccountOrAmount_reverts() public {
        ISignatureTransfer.PermitTransferFrom memory permit = depositPermit(address(usdc), 1e6);
        bytes memory signature = signDeposit(DEPOSITOR_KEY, permit, bytes32(0));
        vm.expectRevert(DeferredVault.ZeroAccount.selector);
        vault.deposit(bytes32(0), permit, depositor, signature);
        ISignatureTransfer.PermitTransferFrom memory zero = depositPermit(address(usdc), 0);
        bytes memory zeroSignature = signDeposit(DEPOSITOR_KEY, zero, ACCOUNT);
        vm.expectRevert(DeferredVault.ZeroAmount.selector);
        vault.deposit(ACCOUNT, zero, depositor, zeroSignature);
    }

    function test_deposit_feeOnTransferToken_reverts() public {
        FeeOnTransferToken fee = new FeeOnTransferToken("Fee", "FEE", 6, address(this));
        fee.mint(depositor, 1_000e6);
        vm.prank(depositor);
        fee.approve(PERMIT2, type(uint256).max);
        ISignatureTransfer.PermitTransferFrom memory permit = depositPermit(address(fee), 100e6);
        bytes memory signature = signDeposit(DEPOSITOR_KEY, permit, ACCOUNT);
        vm.expectPartialRevert(DeferredVault.InsufficientDeposit.selector);
        vault.deposit(ACCOUNT, permit, depositor, signature);
    }

    function test_operatorOnly_forEveryCreditMove() public {
        depositAs(DEPOSITOR_KEY, ACCOUNT, address(usdc), 10e6);
        address stranger = makeAddr("stranger");
        vm.startPrank(stranger);
        vm.expectRevert(abi.encodeWithSelector(DeferredVault.NotOperator.selector, stranger));
        vault.withdraw(ACCOUNT, address(usdc), 1, stranger);
        vm.expectRevert(abi.encodeWithSelector(DeferredVault.NotOperator.selector, stranger));
        vault.hold(ORDER, ACCOUNT, address(usdc), 1);
        vm.expectRevert(abi.encodeWithSelector(DeferredVault.NotOperator.selector, stranger));
        vault.release(ORDER);
        vm.expectRevert(abi.encodeWithSelector(DeferredVault.NotOperator.selector, stranger));
        vault.payout(new DeferredVault.Payout[](0));
        vm.stopPrank();
    }

    function test_hold_thenPayout_paysTheSolver() public {
        depositAs(DEPOSITOR_KEY, ACCOUNT, address(usdc), 10e6);
        vm.startPrank(operator);
        vault.hold(ORDER, ACCOUNT, address(usdc), 4e6);
        assertEq(vault.credit(ACCOUNT, address(usdc)), 6e6);
        assertEq(vault.totalHeld(address(usdc)), 4e6);
        DeferredVault.Payout[] memory batch = new DeferredVault.Payout[](1);
        batch[0] = DeferredVault.Payout({orderId: ORDER, recipient: solver});
        vault.payout(batch);
        vm.stopPrank();
        assertEq(usdc.balanceOf(solver), 4e6);
        assertEq(vault.totalHeld(address(usdc)), 0);
        (,,, DeferredVault.HoldStatus status) = vault.holds(ORDER);
        assertEq(uint8(status), uint8(DeferredVault.HoldStatus.Paid));
    }

    function test_hold_moreThanCredit_reverts() public {
        depositAs(DEPOSITOR_KEY, ACCOUNT, address(usdc), 10e6);
        vm.prank(operator);
        vm.expectRevert(
            abi.encodeWithSelector(DeferredVault.InsufficientCredit.selector, ACCOUNT, address(usdc), 10e6, 10e6 + 1)
        );
        vault.hold(ORDER, ACCOUNT, address(usdc), 10e6 + 1);
    }

    function test_hold_sameOrderTwice_reverts_evenAfterRelease() public {
        depositAs(DEPOSITOR_KEY, ACCOUNT, address(usdc), 10e6);
        vm.startPrank(operator);
        vault.hold(ORDER, ACCOUNT, address(usdc), 1e6);
        vm.expectRevert(abi.encodeWithSelector(DeferredVault.HoldExists.selector, ORDER));
        vault.hold(ORDER, ACCOUNT, address(usdc), 1e6);
        vault.release(ORDER);
        vm.expectRevert(abi.encodeWithSelector(DeferredVault.HoldExists.selector, ORDER));
        vault.hold(ORDER, ACCOUNT, address(usdc), 1e6);
        vm.stopPrank();
    }

    function test_release_creditsBack_andCannotBePaidAfterwards() public {
        depositAs(DEPOSITOR_KEY, ACCOUNT, address(usdc), 10e6);
        vm.startPrank(operator);
        vault.hold(ORDER, ACCOUNT, address(usdc), 4e6);
        vm.expectEmit(address(vault));
        emit DeferredVault.Released(ORDER, ACCOUNT, address(usdc), 4e6);
        vault.release(ORDER);
        assertEq(vault.credit(ACCOUNT, address(usdc)), 10e6);
        DeferredVault.Payout[] memory batch = new DeferredVault.Payout[](1);
        batch[0] = DeferredVault.Payout({orderId: ORDER, recipient: solver});
        vm.expectRevert(abi.encodeWithSelector(DeferredVault.NotHeld.selector, ORDER, DeferredVault.HoldStatus.Released));
        vault.payout(batch);
        vm.expectRevert(abi.encodeWithSelector(DeferredVault.NotHeld.selector, ORDER, DeferredVault.HoldStatus.Released));
        vault.release(ORDER);
        vm.stopPrank();
    }

    function test_payout_netsPerRecipientAndToken_andIsAllOrNothing() public {
        depositAs(DEPOSITOR_KEY, ACCOUNT, address(usdc), 100e6);
        depositAs(DEPOSITOR_KEY, OTHER_ACCOUNT, address(usdt), 100e6);
        address otherSolver = makeAddr("otherSolver");
        vm.startPrank(operator);
        vault.hold(keccak256("a"), ACCOUNT, address(usdc), 1e6);
        vault.hold(keccak256("b"), ACCOUNT, address(usdc), 2e6);
        vault.hold(keccak256("c"), OTHER_ACCOUNT, address(usdt), 3e6);
        vault.hold(keccak256("d"), ACCOUNT, address(usdc), 4e6);

        DeferredVault.Payout[] memory bad = new DeferredVault.Payout[](2);
        bad[0] = DeferredVault.Payout({orderId: keccak256("a"), recipient: solver});
        bad[1] = DeferredVault.Payout({orderId: keccak256("nope"), recipient: solver});
        vm.expectRevert(abi.encodeWithSelector(DeferredVault.NotHeld.selector, keccak256("nope"), DeferredVault.HoldStatus.None));
        vault.payout(bad);

        DeferredVault.Payout[] memory batch = new DeferredVault.Payout[](4);
        batch[0] = DeferredVault.Payout({orderId: keccak256("a"), recipient: solver});
        batch[1] = DeferredVault.Payout({orderId: keccak256("b"), recipient: solver});
        batch[2] = DeferredVault.Payout({orderId: keccak256("c"), recipient: solver});
        batch[3] = DeferredVault.Payout({orderId: keccak256("d"), recipient: otherSolver});
        vm.expectEmit(address(vault));
        emit DeferredVault.Paid(keccak256("a"), solver, address(usdc), 1e6);
        vm.expectEmit(address(vault));
        emit DeferredVault.Paid(keccak256("b"), solver, address(usdc), 2e6);
        vm.expectEmit(address(vault));
        emit DeferredVault.Paid(keccak256("c"), solver, address(usdt), 3e6);
        vm.expectEmit(address(vault));
        emit DeferredVault.Paid(keccak256("d"), otherSolver, address(usdc), 4e6);
        vm.expectEmit(address(vault));
        emit DeferredVault.BatchTransfer(solver, address(usdc), 3e6, 2);
        vm.expectEmit(address(vault));
        emit DeferredVault.BatchTransfer(solver, address(usdt), 3e6, 1);
        vm.expectEmit(address(vault));
        emit DeferredVault.BatchTransfer(otherSolver, address(usdc), 4e6, 1);
        vault.payout(batch);
        vm.stopPrank();
        assertEq(usdc.balanceOf(solver), 3e6);
        assertEq(usdt.balanceOf(solver), 3e6);
        assertEq(usdc.balanceOf(otherSolver), 4e6);
    }

    function test_payout_sameOrderTwiceInOneBatch_reverts() public {
        depositAs(DEPOSITOR_KEY, ACCOUNT, address(usdc), 10e6);
        vm.startPrank(operator);
        vault.hold(ORDER, ACCOUNT, address(usdc), 1e6);
        DeferredVault.Payout[] memory batch = new DeferredVault.Payout[](2);
        batch[0] = DeferredVault.Payout({orderId: ORDER, recipient: solver});
        batch[1] = DeferredVault.Payout({orderId: ORDER, recipient: solver});
        vm.expectRevert(abi.encodeWithSelector(DeferredVault.NotHeld.selector, ORDER, DeferredVault.HoldStatus.Paid));
        vault.payout(batch);
        vm.stopPrank();
    }

    function test_withdraw_paysFromAvailableCreditOnly() public {
        depositAs(DEPOSITOR_KEY, ACCOUNT, address(usdc), 10e6);
        address to = makeAddr("treasury");
        vm.startPrank(operator);
        vault.hold(ORDER, ACCOUNT, address(usdc), 6e6);
        vm.expectRevert(abi.encodeWithSelector(DeferredVault.InsufficientCredit.selector, ACCOUNT, address(usdc), 4e6, 5e6));
        vault.withdraw(ACCOUNT, address(usdc), 5e6, to);
        vault.withdraw(ACCOUNT, address(usdc), 4e6, to);
        vm.stopPrank();
        assertEq(usdc.balanceOf(to), 4e6);
        assertEq(vault.credit(ACCOUNT, address(usdc)), 0);
        assertEq(usdc.balanceOf(address(vault)), 6e6);
    }

    function testFuzz_depositHoldReleaseWithdraw_conservesTokens(uint96 deposited, uint96 held, uint96 withdrawn, bool refund)
        public
    {
        deposited = uint96(bound(deposited, 1, type(uint96).max));
        held = uint96(bound(held, 1, deposited));
        depositAs(DEPOSITOR_KEY, ACCOUNT, address(usdc), deposited);
        vm.startPrank(operator);
        vault.hold(ORDER, ACCOUNT, address(usdc), held);
        if (refund) vault.release(ORDER);
        uint256 available = vault.credit(ACCOUNT, address(usdc));
        withdrawn = uint96(bound(withdrawn, 0, available));
        if (withdrawn > 0) vault.withdraw(ACCOUNT, address(usdc), withdrawn, makeAddr("out"));
        vm.stopPrank();
        assertEq(vault.credit(ACCOUNT, address(usdc)), uint256(deposited) - withdrawn - (refund ? 0 : held));
        assertEq(usdc.balanceOf(address(vault)), vault.totalCredit(address(usdc)) + vault.totalHeld(address(usdc)));
    }
}
