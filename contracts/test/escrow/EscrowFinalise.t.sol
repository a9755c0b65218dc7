// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";

import {InputSettlerBase} from "../../src/input/InputSettlerBase.sol";
import {InputSettlerEscrow} from "../../src/input/escrow/InputSettlerEscrow.sol";
import {IInputOracle} from "../../src/interfaces/IInputOracle.sol";
import {MandateOutput, SolveParams, StandardOrder} from "../../src/types/StandardOrder.sol";
import {EscrowTestBase} from "./EscrowTestBase.sol";
import {RecordingPayoutReceiver, ReenteringPayoutReceiver, RevertingPayoutReceiver} from "./PayoutReceivers.sol";

/// @notice `finalise`: ownership, proofs through the real output settler and oracle pair, the fill deadline,
/// status, destination and the payout callback.
contract EscrowFinaliseTest is EscrowTestBase {
    function _finalise(address caller, StandardOrder memory order, SolveParams[] memory params, bytes32 destination)
        internal
    {
        vm.prank(caller);
        escrow.finalise(order, params, destination, "");
    }

    function _single(SolveParams memory params) internal pure returns (SolveParams[] memory list) {
        list = new SolveParams[](1);
        list[0] = params;
    }

    function test_finalise_paysTheOwnerAndMarksClaimed() public {
        StandardOrder memory order = _order();
        bytes32 orderId = _openAsTaker(order);
        SolveParams[] memory params = _fillAll(order, solver);

        vm.expectEmit(address(escrow));
        emit InputSettlerBase.Finalised(orderId, _id(solver), _id(solver));
        _finalise(solver, order, params, _id(solver));

        assertEq(uint8(escrow.orderStatus(orderId)), uint8(InputSettlerEscrow.OrderStatus.Claimed));
        assertEq(usdc.balanceOf(solver), INPUT_AMOUNT);
        assertEq(usdc.balanceOf(address(escrow)), 0);
        assertEq(destUsdc.balanceOf(takerRecipient), OUTPUT_AMOUNT, "taker got the output");
    }

    function test_finalise_paysAnyDestinationTheOwnerNames() public {
        StandardOrder memory order = _order();
        _openAsTaker(order);
        SolveParams[] memory params = _fillAll(order, solver);
        address vault = makeAddr("vault");

        _finalise(solver, order, params, _id(vault));

        assertEq(usdc.balanceOf(vault), INPUT_AMOUNT);
        assertEq(usdc.balanceOf(solver), 0);
    }

    function test_finalise_paysEveryInput() public {
        StandardOrder memory order = _order();
        uint256[2][] memory inputs = new uint256[2][](2);
        inputs[0] = [uint256(uint160(address(usdc))), 100e6];
        inputs[1] = [uint256(uint160(address(eurc))), 200e6];
        order.inputs = inputs;
        _openAsTaker(order);
        SolveParams[] memory params = _fillAll(order, solver);

        _finalise(solver, order, params, _id(solver));

        assertEq(usdc.balanceOf(solver), 100e6);
        assertEq(eurc.balanceOf(solver), 200e6);
    }

    // --- ownership ---------------------------------------------------------------------------------------

    function test_finalise_revertsForAnyoneButTheSolverOfOutputZero() public {
        StandardOrder memory order = _order();
        _openAsTaker(order);
        SolveParams[] memory params = _fillAll(order, solver);

        vm.expectRevert(InputSettlerBase.NotOrderOwner.selector);
        _finalise(stranger, order, params, _id(stranger));
    }

    function test_finalise_claimingSomeoneElsesFillAsOneselfIsNotProven() public {
        StandardOrder memory order = _order();
        _openAsTaker(order);
        SolveParams[] memory params = _fillAll(order, solver);
        params[0].solver = _id(otherSolver);

        vm.expectRevert(IInputOracle.NotProven.selector);
        _finalise(otherSolver, order, params, _id(otherSolver));
    }

    function test_finalise_multiOutputOrderBelongsToTheFillerOfOutputZero() public {
        StandardOrder memory order = _order();
        MandateOutput[] memory outputs = new MandateOutput[](2);
        outputs[0] = _output(500e6, takerRecipient);
        outputs[1] = _output(498e6, takerRecipient);
        order.outputs = outputs;
        _openAsTaker(order);

        SolveParams[] memory params = new SolveParams[](2);
        params[0] = _fillAndAttest(order, 0, solver);
        params[1] = _fillAndAttest(order, 1, otherSolver);

        vm.expectRevert(InputSettlerBase.NotOrderOwner.selector);
        _finalise(otherSolver, order, params, _id(otherSolver));

        _finalise(solver, order, params, _id(solver));
        assertEq(usdc.balanceOf(solver), INPUT_AMOUNT);
    }

    function test_finalise_revertsWhileAnyOutputIsUnproven() public {
        StandardOrder memory order = _order();
        MandateOutput[] memory outputs = new MandateOutput[](2);
        outputs[0] = _output(500e6, takerRecipient);
        outputs[1] = _output(498e6, takerRecipient);
        order.outputs = outputs;
        _openAsTaker(order);

        SolveParams[] memory params = new SolveParams[](2);
        params[0] = _fillAndAttest(order, 0, solver);
        params[1] = SolveParams({timestamp: uint32(block.timestamp), solver: _id(solver)});

        vm.expectRevert(IInputOracle.NotProven.selector);
        _finalise(solver, order, params, _id(solver));
    }

    // --- solve params ------------------------------------------------------------------------------------

    function test_finalise_revertsWithoutSolveParams() public {
        StandardOrder memory order = _order();
        _openAsTaker(order);
        vm.expectRevert(InputSettlerBase.InvalidTimestampLength.selector);
        _finalise(solver, order, new SolveParams[](0), _id(solver));
    }

    function test_finalise_revertsWhenSolveParamsOutnumberOutputs() public {
        StandardOrder memory order = _order();
        _openAsTaker(order);
        SolveParams[] memory filled = _fillAll(order, solver);
        SolveParams[] memory params = new SolveParams[](2);
        params[0] = filled[0];
        params[1] = filled[0];
        vm.expectRevert(InputSettlerBase.InvalidTimestampLength.selector);
        _finalise(solver, order, params, _id(solver));
    }

    function test_finalise_revertsOnAWrongTimestamp() public {
        StandardOrder memory order = _order();
        _openAsTaker(order);
        SolveParams[] memory params = _fillAll(order, solver);
        params[0].timestamp -= 1;
        vm.expectRevert(IInputOracle.NotProven.selector);
        _finalise(solver, order, params, _id(solver));
    }

    function test_finalise_revertsWhenFilledButNotAttested() public {
        StandardOrder memory order = _order();
        bytes32 orderId = _openAsTaker(order);
        vm.prank(solver);
        outputSettler.fill(orderId, order.outputs[0], type(uint48).max, abi.encode(_id(solver)));

        vm.expectRevert(IInputOracle.NotProven.selector);
        _finalise(solver, order, _single(SolveParams(uint32(block.timestamp), _id(solver))), _id(solver));
    }

    function test_finalise_proofOfAnotherOrderDoesNotCarryOver() public {
        StandardOrder memory filled = _order();
        _openAsTaker(filled);
        SolveParams[] memory params = _fillAll(filled, solver);

        StandardOrder memory twin = _order(); // identical but for the nonce
        _openAsTaker(twin);
        vm.expectRevert(IInputOracle.NotProven.selector);
        _finalise(solver, twin, params, _id(solver));
    }

    // --- fill deadline edges: solveParams[i].timestamp <= fillDeadline -----------------------------------

    function test_finalise_fillOneSecondBeforeFillDeadline() public {
        StandardOrder memory order = _order();
        _openAsTaker(order);
        vm.warp(order.fillDeadline - 1);
        SolveParams[] memory params = _fillAll(order, solver);
        _finalise(solver, order, params, _id(solver));
        assertEq(uint8(_status(order)), uint8(InputSettlerEscrow.OrderStatus.Claimed));
    }

    function test_finalise_fillAtFillDeadline() public {
        StandardOrder memory order = _order();
        _openAsTaker(order);
        vm.warp(order.fillDeadline);
        SolveParams[] memory params = _fillAll(order, solver);
        _finalise(solver, order, params, _id(solver));
        assertEq(uint8(_status(order)), uint8(InputSettlerEscrow.OrderStatus.Claimed));
    }

    function test_finalise_revertsForAFillOneSecondAfterFillDeadline() public {
        StandardOrder memory order = _order();
        _openAsTaker(order);
        vm.warp(order.fillDeadline + 1);
        // Proven all the same: the output settler cannot know the order's real deadline.
        SolveParams[] memory params = _fillAll(order, solver);

        vm.expectRevert(
            abi.encodeWithSelector(
                InputSettlerBase.FilledTooLate.selector, order.fillDeadline, order.fillDeadline + 1
            )
        );
        _finalise(solver, order, params, _id(solver));
        assertEq(uint8(_status(order)), uint8(InputSettlerEscrow.OrderStatus.Deposited));
    }

    // --- no upper bound: a late claim races the refund ---------------------------------------------------

    function test_finalise_lateClaimAfterExpiresWinsOverALaterRefund() public {
        StandardOrder memory order = _order();
        bytes32 orderId = _openAsTaker(order);
        SolveParams[] memory params = _fillAll(order, solver);
        vm.warp(order.expires + 1 days);

        _finalise(solver, order, params, _id(solver));
        vm.expectRevert(InputSettlerEscrow.InvalidOrderStatus.selector);
        escrow.refund(order);
        assertEq(usdc.balanceOf(solver), INPUT_AMOUNT);
    }

    function test_finalise_revertsAfterTheRefundWonTheRace() public {
        StandardOrder memory order = _order();
        bytes32 orderId = _openAsTaker(order);
        SolveParams[] memory params = _fillAll(order, solver);
        vm.warp(order.expires + 1);
        escrow.refund(order);

        vm.expectRevert(InputSettlerEscrow.InvalidOrderStatus.selector);
        _finalise(solver, order, params, _id(solver));
    }

    // --- status ------------------------------------------------------------------------------------------

    function test_finalise_revertsForAnOrderNeverOpened() public {
        StandardOrder memory order = _order();
        SolveParams[] memory params = _fillAll(order, solver);
        vm.expectRevert(InputSettlerEscrow.InvalidOrderStatus.selector);
        _finalise(solver, order, params, _id(solver));
    }

    function test_finalise_paysOnce() public {
        StandardOrder memory order = _order();
        bytes32 orderId = _openAsTaker(order);
        SolveParams[] memory params = _fillAll(order, solver);
        _finalise(solver, order, params, _id(solver));

        vm.expectRevert(InputSettlerEscrow.InvalidOrderStatus.selector);
        _finalise(solver, order, params, _id(solver));
        assertEq(usdc.balanceOf(solver), INPUT_AMOUNT);
    }

    function test_finalise_revertsOnAnotherOriginChain() public {
        StandardOrder memory order = _order();
        _openAsTaker(order);
        SolveParams[] memory params = _fillAll(order, solver);
        order.originChainId = block.chainid + 1;
        vm.expectRevert(
            abi.encodeWithSelector(InputSettlerBase.WrongChain.selector, block.chainid + 1, block.chainid)
        );
        _finalise(solver, order, params, _id(solver));
    }

    // --- destination -------------------------------------------------------------------------------------

    function test_finalise_revertsOnZeroDestination() public {
        StandardOrder memory order = _order();
        _openAsTaker(order);
        SolveParams[] memory params = _fillAll(order, solver);
        vm.expectRevert(InputSettlerBase.NoDestination.selector);
        _finalise(solver, order, params, bytes32(0));
    }

    function testFuzz_finalise_revertsOnDirtyDestination(uint96 dirt) public {
        vm.assume(dirt != 0);
        StandardOrder memory order = _order();
        _openAsTaker(order);
        SolveParams[] memory params = _fillAll(order, solver);
        bytes32 dirty = bytes32((uint256(dirt) << 160) | uint256(uint160(solver)));
        vm.expectRevert(InputSettlerBase.NoDestination.selector);
        _finalise(solver, order, params, dirty);
    }

    // --- payout callback ---------------------------------------------------------------------------------

    function test_finalise_callsBackTheDestinationAfterPaying() public {
        StandardOrder memory order = _order();
        _openAsTaker(order);
        SolveParams[] memory params = _fillAll(order, solver);
        RecordingPayoutReceiver receiver = new RecordingPayoutReceiver();

        vm.prank(solver);
        escrow.finalise(order, params, _id(address(receiver)), hex"c0ffee");

        assertEq(receiver.calls(), 1);
        assertEq(receiver.receivedCall(), hex"c0ffee");
        assertEq(receiver.receivedInputCount(), 1);
        assertEq(receiver.receivedInputs(0, 0), uint256(uint160(address(usdc))));
        assertEq(receiver.receivedInputs(0, 1), INPUT_AMOUNT);
        assertEq(usdc.balanceOf(address(receiver)), INPUT_AMOUNT);
    }

    function test_finalise_emptyCallSkipsTheCallback() public {
        StandardOrder memory order = _order();
        _openAsTaker(order);
        SolveParams[] memory params = _fillAll(order, solver);
        RecordingPayoutReceiver receiver = new RecordingPayoutReceiver();

        _finalise(solver, order, params, _id(address(receiver)));

        assertEq(receiver.calls(), 0);
        assertEq(usdc.balanceOf(address(receiver)), INPUT_AMOUNT);
    }

    function test_finalise_revertingCallbackUndoesTheClaim() public {
        StandardOrder memory order = _order();
        _openAsTaker(order);
        SolveParams[] memory params = _fillAll(order, solver);
        RevertingPayoutReceiver receiver = new RevertingPayoutReceiver();

        vm.prank(solver);
        vm.expectRevert(RevertingPayoutReceiver.NotNow.selector);
        escrow.finalise(order, params, _id(address(receiver)), hex"01");

        assertEq(uint8(_status(order)), uint8(InputSettlerEscrow.OrderStatus.Deposited));
        assertEq(usdc.balanceOf(address(escrow)), INPUT_AMOUNT);
    }

    function test_finalise_callbackCannotReenterTheEscrow() public {
        StandardOrder memory order = _order();
        _openAsTaker(order);
        SolveParams[] memory params = _fillAll(order, solver);
        ReenteringPayoutReceiver receiver = new ReenteringPayoutReceiver(escrow);
        receiver.arm(order);
        vm.warp(order.expires + 1);

        vm.prank(solver);
        vm.expectRevert(ReentrancyGuardTransient.ReentrancyGuardReentrantCall.selector);
        escrow.finalise(order, params, _id(address(receiver)), hex"01");
        assertEq(uint8(_status(order)), uint8(InputSettlerEscrow.OrderStatus.Deposited));
    }
}
