// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {MandateOutput, SolveParams, StandardOrder} from "../../src/types/StandardOrder.sol";
import {FillDescriptionLib} from "../../src/libraries/FillDescriptionLib.sol";
import {IInputOracle} from "../../src/interfaces/IInputOracle.sol";
import {IInputCallback} from "../../src/input/escrow/IInputCallback.sol";
import {IResourceLock} from "../../src/lock/interfaces/IResourceLock.sol";
import {OutputOracle} from "../../src/oracle/OutputOracle.sol";
import {TestStablecoin} from "../../src/tokens/TestStablecoin.sol";
import {CompactTestBase} from "./CompactTestBase.sol";

/// @notice Solver payout contract that records what it was handed, or refuses it.
contract RecordingPayout is IInputCallback {
    bool public refuse;
    bytes public lastCall;
    uint256[2][] internal _lastInputs;

    function setRefuse(bool value) external {
        refuse = value;
    }

    function lastInputs() external view returns (uint256[2][] memory) {
        return _lastInputs;
    }

    function orderFinalised(uint256[2][] calldata inputs, bytes calldata callData) external {
        require(!refuse, "payout refuses");
        lastCall = callData;
        delete _lastInputs;
        for (uint256 i; i < inputs.length; ++i) {
            _lastInputs.push(inputs[i]);
        }
    }
}

/// @notice The whole resource-lock path on real contracts: deposit → fill on OutputSettler →
/// OutputOracle.submit → relayer records on InputOracle → finalise on InputSettlerCompact.
contract CompactFlowTest is CompactTestBase {
    function test_fullPath_depositFillAttestFinalise() public {
        // Deposit: a fresh taker locks 250 TUSD.
        (address taker, uint256 takerKey) = makeAddrAndKey("fresh-taker");
        inputToken.mint(taker, 250e6);
        vm.startPrank(taker);
        inputToken.approve(address(lock), 250e6);
        uint256 id = lock.depositERC20(address(inputToken), lockTag, 250e6, taker);
        vm.stopPrank();
        assertEq(id, lockId);

        StandardOrder memory order = _order();
        order.user = taker;
        order.nonce = 77;
        order.inputs[0] = [lockId, 250e6];
        order.outputs[0] = _output(249e6);
        order.outputs[0].recipient = _id(taker);
        bytes memory signatures = abi.encode(_signCompact(takerKey, order, address(settler)), bytes(""));
        bytes32 orderId = settler.orderIdentifier(order);

        // Fill on the destination.
        vm.chainId(DEST);
        vm.warp(block.timestamp + 5 minutes);
        vm.prank(solver);
        outputSettler.fill(orderId, order.outputs[0], order.fillDeadline, abi.encode(_id(solver)));
        assertEq(outputToken.balanceOf(taker), 249e6);

        // Attest on the destination.
        bytes[] memory payloads = new bytes[](1);
        payloads[0] =
            FillDescriptionLib.encodeFillDescription(_id(solver), orderId, uint32(block.timestamp), order.outputs[0]);
        vm.expectEmit(address(outputOracle));
        emit OutputOracle.OutputAttested(
            DEST, _id(address(outputSettler)), orderId, keccak256(payloads[0]), payloads[0]
        );
        outputOracle.submit(address(outputSettler), payloads);

        // Relay to the origin.
        vm.chainId(ORIGIN);
        vm.prank(relayer);
        inputOracle.receiveAttestation(DEST, _id(address(outputOracle)), _id(address(outputSettler)), payloads);

        // Claim.
        SolveParams[] memory solveParams = new SolveParams[](1);
        solveParams[0] = SolveParams({timestamp: uint32(block.timestamp), solver: _id(solver)});
        vm.prank(solver);
        settler.finalise(order, signatures, solveParams, _id(destination), "");

        assertEq(inputToken.balanceOf(destination), 250e6);
        assertEq(lock.balanceOf(taker, lockId), 0);
        assertTrue(lock.hasConsumedAllocatorNonce(77, address(allocator)));
    }

    function test_multiInputMultiOutputOrder() public {
        TestStablecoin second = new TestStablecoin("Test Yen", "TJPY", 0, address(this));
        second.mint(user, 10_000);
        vm.startPrank(user);
        second.approve(address(lock), 10_000);
        uint256 secondId = lock.depositERC20(address(second), lockTag, 10_000, user);
        vm.stopPrank();

        StandardOrder memory order = _order();
        order.inputs = new uint256[2][](2);
        order.inputs[0] = [lockId, 60e6];
        order.inputs[1] = [secondId, 10_000];
        order.outputs = new MandateOutput[](2);
        order.outputs[0] = _output(40e6);
        order.outputs[1] = _output(30e6);
        order.outputs[1].recipient = _id(makeAddr("second-recipient"));
        bytes memory signatures = _signatures(order);

        // The solver fills both outputs in one call.
        bytes32 orderId = settler.orderIdentifier(order);
        vm.chainId(DEST);
        vm.prank(solver);
        outputSettler.fillOrderOutputs(orderId, order.outputs, order.fillDeadline, abi.encode(_id(solver)));
        bytes[] memory payloads = new bytes[](2);
        SolveParams[] memory solveParams = new SolveParams[](2);
        for (uint256 i; i < 2; ++i) {
            solveParams[i] = SolveParams({timestamp: uint32(block.timestamp), solver: _id(solver)});
            payloads[i] =
                FillDescriptionLib.encodeFillDescription(_id(solver), orderId, uint32(block.timestamp), order.outputs[i]);
        }
        outputOracle.submit(address(outputSettler), payloads);
        vm.chainId(ORIGIN);
        vm.prank(relayer);
        inputOracle.receiveAttestation(DEST, _id(address(outputOracle)), _id(address(outputSettler)), payloads);

        _finalise(order, signatures, solveParams);
        assertEq(inputToken.balanceOf(destination), 60e6);
        assertEq(second.balanceOf(destination), 10_000);
        assertEq(lock.balanceOf(user, lockId), 40e6, "the unsigned rest stays locked");
    }

    function test_multiOutputOrderNeedsEveryOutputProven() public {
        StandardOrder memory order = _order();
        order.outputs = new MandateOutput[](2);
        order.outputs[0] = _output(40e6);
        order.outputs[1] = _output(30e6);
        bytes memory signatures = _signatures(order);
        SolveParams[] memory solveParams = new SolveParams[](2);
        solveParams[0] = _fillAndRelay(order, 0, order.fillDeadline);
        solveParams[1] = SolveParams({timestamp: uint32(block.timestamp), solver: _id(solver)});
        vm.prank(solver);
        vm.expectRevert(IInputOracle.NotProven.selector);
        settler.finalise(order, signatures, solveParams, _id(destination), "");
    }

    function test_callbackReceivesInputsAfterPayout() public {
        RecordingPayout payout = new RecordingPayout();
        StandardOrder memory order = _order();
        bytes memory signatures = _signatures(order);
        SolveParams[] memory solveParams = _fillAll(order);
        vm.prank(solver);
        settler.finalise(order, signatures, solveParams, _id(address(payout)), hex"beef");
        assertEq(inputToken.balanceOf(address(payout)), 100e6);
        assertEq(payout.lastCall(), hex"beef");
        uint256[2][] memory inputs = payout.lastInputs();
        assertEq(inputs.length, 1);
        assertEq(inputs[0][0], lockId);
        assertEq(inputs[0][1], 100e6);
    }

    function test_callbackRevertUndoesTheClaim() public {
        RecordingPayout payout = new RecordingPayout();
        payout.setRefuse(true);
        StandardOrder memory order = _order();
        bytes memory signatures = _signatures(order);
        SolveParams[] memory solveParams = _fillAll(order);
        vm.prank(solver);
        vm.expectRevert("payout refuses");
        settler.finalise(order, signatures, solveParams, _id(address(payout)), hex"01");
        assertEq(lock.balanceOf(user, lockId), 100e6);
        assertFalse(lock.hasConsumedAllocatorNonce(order.nonce, address(allocator)));
    }

    /// @notice "Refunded" for a resource lock: the compact expires unclaimed and the taker withdraws.
    function test_expiredCompactLeavesFundsWithTheTaker() public {
        StandardOrder memory order = _order();
        bytes memory signatures = _signatures(order);
        SolveParams[] memory solveParams = _fillAll(order);
        vm.warp(order.expires);
        vm.expectRevert(abi.encodeWithSelector(IResourceLock.Expired.selector, uint256(order.expires)));
        _finalise(order, signatures, solveParams);

        vm.startPrank(user);
        vm.warp(lock.enableForcedWithdrawal(lockId));
        lock.forcedWithdrawal(lockId, user, 100e6);
        vm.stopPrank();
        assertEq(inputToken.balanceOf(user), 100e6);
        assertEq(inputToken.balanceOf(address(lock)), 0);
    }
}
