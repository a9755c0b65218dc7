// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {InputSettlerEscrow} from "../../src/input/escrow/InputSettlerEscrow.sol";
import {InputSettlerBase} from "../../src/input/InputSettlerBase.sol";
import {SolveParams, StandardOrder} from "../../src/types/StandardOrder.sol";
import {OrderHashLib} from "../../src/libraries/OrderHashLib.sol";
import {FeeOnTransferToken} from "../mocks/FeeOnTransferToken.sol";
import {NoOpToken} from "../mocks/NoOpToken.sol";
import {NoReturnToken} from "../mocks/NoReturnToken.sol";
import {FalseReturnToken} from "../mocks/FalseReturnToken.sol";
import {EscrowTestBase} from "./EscrowTestBase.sol";

/// @notice `open(bytes)`: every check of onchain.md's open row, the deposit itself, and hostile tokens.
contract EscrowOpenTest is EscrowTestBase {
    function test_open_pullsInputsFromCallerAndMarksDeposited() public {
        StandardOrder memory order = _order();
        bytes32 orderId = _orderId(order);
        uint256 takerBefore = usdc.balanceOf(taker);

        vm.expectEmit(address(escrow));
        emit InputSettlerEscrow.Open(orderId, order);
        vm.prank(taker);
        escrow.open(order);

        assertEq(uint8(escrow.orderStatus(orderId)), uint8(InputSettlerEscrow.OrderStatus.Deposited));
        assertEq(usdc.balanceOf(address(escrow)), INPUT_AMOUNT);
        assertEq(usdc.balanceOf(taker), takerBefore - INPUT_AMOUNT);
    }

    function test_open_byThirdPartyPaysFromCallerButKeepsUserAsOwner() public {
        StandardOrder memory order = _order();
        _fundTaker(stranger);
        uint256 takerBefore = usdc.balanceOf(taker);

        vm.prank(stranger);
        escrow.open(order);

        assertEq(usdc.balanceOf(taker), takerBefore, "user's funds untouched");
        assertEq(usdc.balanceOf(address(escrow)), INPUT_AMOUNT);
        assertEq(uint8(_status(order)), uint8(InputSettlerEscrow.OrderStatus.Deposited));
    }

    function test_open_acceptsSeveralInputsIncludingARepeatedToken() public {
        StandardOrder memory order = _order();
        uint256[2][] memory inputs = new uint256[2][](3);
        inputs[0] = [uint256(uint160(address(usdc))), 100e6];
        inputs[1] = [uint256(uint160(address(eurc))), 200e6];
        inputs[2] = [uint256(uint160(address(usdc))), 300e6];
        order.inputs = inputs;

        _openAsTaker(order);

        assertEq(usdc.balanceOf(address(escrow)), 400e6);
        assertEq(eurc.balanceOf(address(escrow)), 200e6);
    }

    function test_open_worksWithTokensThatReturnNothing() public {
        NoReturnToken token = new NoReturnToken();
        token.mint(taker, 500);
        vm.prank(taker);
        token.approve(address(escrow), 500);
        StandardOrder memory order = _order();
        order.inputs[0] = [uint256(uint160(address(token))), 500];

        _openAsTaker(order);

        assertEq(token.balanceOf(address(escrow)), 500);
    }

    // --- fill deadline edges: open needs now < fillDeadline ---------------------------------------------

    function test_open_oneSecondBeforeFillDeadline() public {
        StandardOrder memory order = _order();
        vm.warp(order.fillDeadline - 1);
        _openAsTaker(order);
        assertEq(uint8(_status(order)), uint8(InputSettlerEscrow.OrderStatus.Deposited));
    }

    function test_open_revertsAtFillDeadline() public {
        StandardOrder memory order = _order();
        vm.warp(order.fillDeadline);
        vm.expectRevert(InputSettlerBase.TimestampPassed.selector);
        _openAsTaker(order);
    }

    function test_open_revertsOneSecondAfterFillDeadline() public {
        StandardOrder memory order = _order();
        vm.warp(order.fillDeadline + 1);
        vm.expectRevert(InputSettlerBase.TimestampPassed.selector);
        _openAsTaker(order);
    }

    // --- expiry ------------------------------------------------------------------------------------------

    function test_open_revertsAtExpires() public {
        StandardOrder memory order = _order();
        order.fillDeadline = order.expires;
        vm.warp(order.expires);
        vm.expectRevert(InputSettlerBase.TimestampPassed.selector);
        _openAsTaker(order);
    }

    function test_open_acceptsFillDeadlineEqualToExpires() public {
        StandardOrder memory order = _order();
        order.fillDeadline = order.expires;
        _openAsTaker(order);
        assertEq(uint8(_status(order)), uint8(InputSettlerEscrow.OrderStatus.Deposited));
    }

    function test_open_revertsWhenFillDeadlineIsAfterExpires() public {
        StandardOrder memory order = _order();
        order.fillDeadline = order.expires + 1;
        vm.expectRevert(
            abi.encodeWithSelector(
                InputSettlerBase.FillDeadlineAfterExpiry.selector, order.fillDeadline, order.expires
            )
        );
        _openAsTaker(order);
    }

    // --- order shape -------------------------------------------------------------------------------------

    function testFuzz_open_revertsOnAnotherOriginChain(uint256 originChainId) public {
        vm.assume(originChainId != block.chainid);
        StandardOrder memory order = _order();
        order.originChainId = originChainId;
        vm.expectRevert(abi.encodeWithSelector(InputSettlerBase.WrongChain.selector, originChainId, block.chainid));
        _openAsTaker(order);
    }

    function test_open_revertsOnZeroUser() public {
        StandardOrder memory order = _order();
        order.user = address(0);
        vm.expectRevert(InputSettlerEscrow.ZeroUser.selector);
        _openAsTaker(order);
    }

    function test_open_revertsWithoutInputs() public {
        StandardOrder memory order = _order();
        order.inputs = new uint256[2][](0);
        vm.expectRevert(InputSettlerEscrow.NoInputs.selector);
        _openAsTaker(order);
    }

    function testFuzz_open_revertsOnDirtyTokenId(uint96 dirt) public {
        vm.assume(dirt != 0);
        StandardOrder memory order = _order();
        uint256 dirtyId = (uint256(dirt) << 160) | uint256(uint160(address(usdc)));
        order.inputs[0][0] = dirtyId;
        vm.expectRevert(InputSettlerEscrow.HasDirtyBits.selector);
        _openAsTaker(order);
    }

    function test_open_revertsOnTokenWithoutCode() public {
        StandardOrder memory order = _order();
        order.inputs[0][0] = uint256(uint160(stranger));
        vm.expectRevert(InputSettlerEscrow.CodeSize0.selector);
        _openAsTaker(order);
    }

    function test_open_revertsOnNativeTokenId() public {
        StandardOrder memory order = _order();
        order.inputs[0][0] = 0;
        vm.expectRevert(InputSettlerEscrow.CodeSize0.selector);
        _openAsTaker(order);
    }

    function test_open_revertsOnMalformedOrderBytes() public {
        bytes memory encoded = abi.encode(_order());
        bytes memory truncated = new bytes(encoded.length - 40);
        for (uint256 i; i < truncated.length; ++i) {
            truncated[i] = encoded[i];
        }
        vm.prank(taker);
        vm.expectRevert();
        (bool ok,) = address(escrow).call(abi.encodePacked(InputSettlerEscrow.open.selector, truncated));
        ok; // the expectRevert above checks the call reverted
    }

    function test_open_revertsWithoutAllowance() public {
        StandardOrder memory order = _order();
        vm.prank(taker);
        usdc.approve(address(escrow), INPUT_AMOUNT - 1);
        vm.prank(taker);
        vm.expectRevert();
        escrow.open(order);
        assertEq(uint8(_status(order)), uint8(InputSettlerEscrow.OrderStatus.None));
    }

    // --- one open per order id ---------------------------------------------------------------------------

    function test_open_revertsWhenTheOrderIsAlreadyDeposited() public {
        StandardOrder memory order = _order();
        bytes32 orderId = _openAsTaker(order);
        vm.expectRevert(InputSettlerEscrow.InvalidOrderStatus.selector);
        _openAsTaker(order);
        assertEq(usdc.balanceOf(address(escrow)), INPUT_AMOUNT, "no second deposit");
    }

    function test_open_revertsWhenTheOrderWasRefunded() public {
        StandardOrder memory order = _order();
        bytes32 orderId = _openAsTaker(order);
        vm.warp(order.expires + 1);
        escrow.refund(order);
        // Back in the open window of an order that looks identical: the id is burnt all the same.
        vm.warp(START);
        vm.expectRevert(InputSettlerEscrow.InvalidOrderStatus.selector);
        _openAsTaker(order);
    }

    function test_open_revertsWhenTheOrderWasClaimed() public {
        StandardOrder memory order = _order();
        bytes32 orderId = _openAsTaker(order);
        SolveParams[] memory params = _fillAll(order, solver);
        vm.prank(solver);
        escrow.finalise(order, params, _id(solver), "");
        vm.expectRevert(InputSettlerEscrow.InvalidOrderStatus.selector);
        _openAsTaker(order);
    }

    // --- hostile tokens ----------------------------------------------------------------------------------

    function test_open_refusesFeeOnTransferToken() public {
        FeeOnTransferToken token = new FeeOnTransferToken("Fee Coin", "FEE", 6, address(this));
        token.mint(taker, 10_000e6);
        vm.prank(taker);
        token.approve(address(escrow), type(uint256).max);
        StandardOrder memory order = _order();
        order.inputs[0] = [uint256(uint160(address(token))), 1_000e6];

        vm.expectRevert(
            abi.encodeWithSelector(
                InputSettlerEscrow.InsufficientDeposit.selector, address(token), 1_000e6, token.amountAfterFee(1_000e6)
            )
        );
        _openAsTaker(order);
        assertEq(uint8(_status(order)), uint8(InputSettlerEscrow.OrderStatus.None));
        assertEq(token.balanceOf(address(escrow)), 0);
    }

    function test_open_refusesTokenThatMovesNothing() public {
        NoOpToken token = new NoOpToken("No Op", "NOP", 6);
        token.mint(taker, 10_000e6);
        vm.prank(taker);
        token.approve(address(escrow), type(uint256).max);
        StandardOrder memory order = _order();
        order.inputs[0] = [uint256(uint160(address(token))), 1_000e6];

        vm.expectRevert(
            abi.encodeWithSelector(InputSettlerEscrow.InsufficientDeposit.selector, address(token), 1_000e6, 0)
        );
        _openAsTaker(order);
        assertEq(uint8(_status(order)), uint8(InputSettlerEscrow.OrderStatus.None));
    }

    function test_open_refusesNoOpTokenHiddenBehindARealOneInTheSameOrder() public {
        NoOpToken token = new NoOpToken("No Op", "NOP", 6);
        StandardOrder memory order = _order();
        uint256[2][] memory inputs = new uint256[2][](2);
        inputs[0] = [uint256(uint160(address(usdc))), 100e6];
        inputs[1] = [uint256(uint160(address(token))), 100e6];
        order.inputs = inputs;

        vm.expectRevert(
            abi.encodeWithSelector(InputSettlerEscrow.InsufficientDeposit.selector, address(token), 100e6, 0)
        );
        _openAsTaker(order);
    }

    function test_open_refusesTokenThatReturnsFalse() public {
        FalseReturnToken token = new FalseReturnToken();
        StandardOrder memory order = _order();
        order.inputs[0] = [uint256(uint160(address(token))), 1];
        vm.expectRevert();
        _openAsTaker(order);
        assertEq(uint8(_status(order)), uint8(InputSettlerEscrow.OrderStatus.None));
    }

    // --- order identifier --------------------------------------------------------------------------------

    function test_orderIdentifier_overloadsAgreeWithTheSharedLibrary() public {
        StandardOrder memory order = _order();
        bytes32 expected = OrderHashLib.orderIdentifierMemory(order, address(escrow));
        assertEq(escrow.orderIdentifier(order), expected);
        assertEq(escrow.orderIdentifier(abi.encode(order)), expected);
    }

    function test_orderIdentifier_ignoresOriginChainButBindsEscrowAndChain() public {
        StandardOrder memory order = _order();
        bytes32 id = escrow.orderIdentifier(order);
        order.originChainId = 999;
        assertEq(escrow.orderIdentifier(order), id, "originChainId is checked, not hashed");

        InputSettlerEscrow other = new InputSettlerEscrow();
        assertTrue(other.orderIdentifier(order) != id, "another escrow, another id");
        vm.chainId(block.chainid + 1);
        assertTrue(escrow.orderIdentifier(order) != id, "another chain, another id");
    }
}
