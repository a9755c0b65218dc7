// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {InputSettlerBase} from "../../src/input/InputSettlerBase.sol";
import {InputSettlerEscrow} from "../../src/input/escrow/InputSettlerEscrow.sol";
import {SolveParams, StandardOrder} from "../../src/types/StandardOrder.sol";
import {EscrowTestBase} from "./EscrowTestBase.sol";

/// @notice `refund`: strictly after `expires`, by anyone, to the user, exactly the inputs, once.
contract EscrowRefundTest is EscrowTestBase {
    function test_refund_oneSecondAfterExpiresReturnsTheInputsToTheUser() public {
        StandardOrder memory order = _order();
        bytes32 orderId = _openAsTaker(order);
        uint256 takerBefore = usdc.balanceOf(taker);
        vm.warp(order.expires + 1);

        vm.expectEmit(address(escrow));
        emit InputSettlerEscrow.Refunded(orderId);
        vm.prank(stranger);
        escrow.refund(order);

        assertEq(uint8(escrow.orderStatus(orderId)), uint8(InputSettlerEscrow.OrderStatus.Refunded));
        assertEq(usdc.balanceOf(taker), takerBefore + INPUT_AMOUNT);
        assertEq(usdc.balanceOf(stranger), 0, "the caller gets nothing");
        assertEq(usdc.balanceOf(address(escrow)), 0);
    }

    function test_refund_revertsAtExpires() public {
        StandardOrder memory order = _order();
        _openAsTaker(order);
        vm.warp(order.expires);
        vm.expectRevert(InputSettlerBase.TimestampNotPassed.selector);
        escrow.refund(order);
    }

    function test_refund_revertsOneSecondBeforeExpires() public {
        StandardOrder memory order = _order();
        _openAsTaker(order);
        vm.warp(order.expires - 1);
        vm.expectRevert(InputSettlerBase.TimestampNotPassed.selector);
        escrow.refund(order);
    }

    function test_refund_revertsBetweenFillDeadlineAndExpires() public {
        StandardOrder memory order = _order();
        _openAsTaker(order);
        vm.warp(order.fillDeadline + 1);
        vm.expectRevert(InputSettlerBase.TimestampNotPassed.selector);
        escrow.refund(order);
    }

    function test_refund_returnsEveryInputExactly() public {
        StandardOrder memory order = _order();
        uint256[2][] memory inputs = new uint256[2][](3);
        inputs[0] = [uint256(uint160(address(usdc))), 100e6];
        inputs[1] = [uint256(uint160(address(eurc))), 200e6];
        inputs[2] = [uint256(uint160(address(usdc))), 300e6];
        order.inputs = inputs;
        _openAsTaker(order);
        uint256 usdcBefore = usdc.balanceOf(taker);
        uint256 eurcBefore = eurc.balanceOf(taker);
        vm.warp(order.expires + 1);

        escrow.refund(order);

        assertEq(usdc.balanceOf(taker), usdcBefore + 400e6);
        assertEq(eurc.balanceOf(taker), eurcBefore + 200e6);
    }

    function test_refund_goesToTheUserEvenWhenSomeoneElseDeposited() public {
        StandardOrder memory order = _order();
        _fundTaker(stranger);
        vm.prank(stranger);
        escrow.open(order);
        uint256 takerBefore = usdc.balanceOf(taker);
        vm.warp(order.expires + 1);

        vm.prank(stranger);
        escrow.refund(order);

        assertEq(usdc.balanceOf(taker), takerBefore + INPUT_AMOUNT);
    }

    function test_refund_revertsForAnOrderNeverOpened() public {
        StandardOrder memory order = _order();
        vm.warp(order.expires + 1);
        vm.expectRevert(InputSettlerEscrow.InvalidOrderStatus.selector);
        escrow.refund(order);
    }

    function test_refund_paysOnce() public {
        StandardOrder memory order = _order();
        bytes32 orderId = _openAsTaker(order);
        vm.warp(order.expires + 1);
        escrow.refund(order);
        uint256 takerAfterFirst = usdc.balanceOf(taker);

        vm.expectRevert(InputSettlerEscrow.InvalidOrderStatus.selector);
        escrow.refund(order);
        assertEq(usdc.balanceOf(taker), takerAfterFirst);
    }

    function test_refund_revertsAfterAClaim() public {
        StandardOrder memory order = _order();
        bytes32 orderId = _openAsTaker(order);
        SolveParams[] memory params = _fillAll(order, solver);
        vm.prank(solver);
        escrow.finalise(order, params, _id(solver), "");
        vm.warp(order.expires + 1);

        vm.expectRevert(InputSettlerEscrow.InvalidOrderStatus.selector);
        escrow.refund(order);
    }

    function test_refund_revertsOnAnotherOriginChain() public {
        StandardOrder memory order = _order();
        _openAsTaker(order);
        vm.warp(order.expires + 1);
        order.originChainId = block.chainid + 1;
        vm.expectRevert(
            abi.encodeWithSelector(InputSettlerBase.WrongChain.selector, block.chainid + 1, block.chainid)
        );
        escrow.refund(order);
    }

    function test_refund_aTamperedOrderMatchesNothing() public {
        StandardOrder memory order = _order();
        _openAsTaker(order);
        vm.warp(order.expires + 1);
        order.user = stranger; // redirecting the refund changes the order id
        vm.expectRevert(InputSettlerEscrow.InvalidOrderStatus.selector);
        escrow.refund(order);
    }
}
