// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {Vm} from "forge-std/Vm.sol";
import {IERC20Errors} from "@openzeppelin/contracts/interfaces/draft-IERC6093.sol";
import {Errors} from "@openzeppelin/contracts/utils/Errors.sol";
import {OutputSettler} from "../../src/output/OutputSettler.sol";
import {IOutputSettler} from "../../src/interfaces/IOutputSettler.sol";
import {MandateOutput} from "../../src/types/StandardOrder.sol";
import {FillDescriptionLib} from "../../src/libraries/FillDescriptionLib.sol";
import {OutputSettlerTestBase} from "./OutputSettlerTestBase.sol";
import {
    OutputFixtures,
    RecordingRecipient,
    RevertingRecipient,
    NoReceiveRecipient,
    ReenteringRecipient
} from "./OutputRecipients.sol";

contract OutputSettlerFillTest is OutputSettlerTestBase {
    using OutputFixtures for address;

    // ---------------------------------------------------------------- ERC-20 and native happy paths

    function test_fill_erc20_paysRecipientRecordsAndEmits() public {
        MandateOutput memory output = _erc20Output();
        uint256 solverBefore = token.balanceOf(solver);
        bytes32 expected = _record(solver, uint32(block.timestamp));

        vm.expectEmit(true, true, true, true, address(settler));
        emit OutputSettler.OutputFilled(orderId, solver.toId(), uint32(block.timestamp), output, AMOUNT);
        bytes32 record = _fillAs(solver, output);

        assertEq(record, expected);
        assertEq(settler.getFillRecord(orderId, _outputHash(output)), expected);
        assertEq(token.balanceOf(recipient), AMOUNT);
        assertEq(token.balanceOf(solver), solverBefore - AMOUNT);
        assertEq(token.balanceOf(address(settler)), 0);
    }

    function test_fill_native_forwardsExactValue() public {
        MandateOutput memory output = _nativeOutput();
        uint256 solverBefore = solver.balance;

        bytes32 record = _fillAs(solver, output);

        assertEq(record, _record(solver, uint32(block.timestamp)));
        assertEq(recipient.balance, 1 ether);
        assertEq(solver.balance, solverBefore - 1 ether);
        assertEq(address(settler).balance, 0);
    }

    function test_fill_nativeWithTooLittleValue_reverts() public {
        MandateOutput memory output = _nativeOutput();
        vm.prank(solver);
        vm.expectRevert(abi.encodeWithSelector(Errors.InsufficientBalance.selector, 1 ether - 1, 1 ether));
        settler.fill{value: 1 ether - 1}(orderId, output, DEADLINE, _fillerData(solver));
    }

    function test_fill_nativeWithTooMuchValue_refundsTheExcess() public {
        MandateOutput memory output = _nativeOutput();
        uint256 solverBefore = solver.balance;
        vm.prank(solver);
        settler.fill{value: 1 ether + 1}(orderId, output, DEADLINE, _fillerData(solver));
        assertEq(recipient.balance, 1 ether);
        assertEq(solver.balance, solverBefore - 1 ether, "excess returned");
        assertEq(address(settler).balance, 0);
    }

    function test_fill_erc20WithValue_refundsTheValue() public {
        MandateOutput memory output = _erc20Output();
        uint256 solverBefore = solver.balance;
        vm.prank(solver);
        settler.fill{value: 1}(orderId, output, DEADLINE, _fillerData(solver));
        assertEq(solver.balance, solverBefore);
        assertEq(address(settler).balance, 0);
    }

    function test_fill_nativeToRecipientRefusingEth_reverts() public {
        address refuser = address(new NoReceiveRecipient());
        MandateOutput memory output = _output(bytes32(0), 1 ether, refuser.toId());
        vm.prank(solver);
        vm.expectRevert(Errors.FailedCall.selector);
        settler.fill{value: 1 ether}(orderId, output, DEADLINE, _fillerData(solver));
        assertEq(settler.getFillRecord(orderId, _outputHash(output)), bytes32(0));
    }

    function test_settlerRefusesPlainEth() public {
        vm.prank(solver);
        (bool ok,) = address(settler).call{value: 1}("");
        assertFalse(ok);
        assertEq(address(settler).balance, 0);
    }

    function test_fill_withoutAllowance_revertsAndRecordsNothing() public {
        address poor = makeAddr("poor");
        token.mint(poor, AMOUNT);
        MandateOutput memory output = _erc20Output();
        vm.prank(poor);
        vm.expectRevert(
            abi.encodeWithSelector(IERC20Errors.ERC20InsufficientAllowance.selector, address(settler), 0, AMOUNT)
        );
        settler.fill(orderId, output, DEADLINE, _fillerData(poor));
        assertEq(settler.getFillRecord(orderId, _outputHash(output)), bytes32(0));
    }

    function test_fill_zeroAmount_recordsWithoutPaying() public {
        MandateOutput memory output = _output(address(token).toId(), 0, recipient.toId());
        bytes32 record = _fillAs(solver, output);
        assertEq(record, _record(solver, uint32(block.timestamp)));
        assertEq(token.balanceOf(recipient), 0);
    }

    // ---------------------------------------------------------------- fill deadline edges

    function test_fill_oneSecondBeforeDeadline_succeeds() public {
        vm.warp(DEADLINE - 1);
        bytes32 record = _fillAs(solver, _erc20Output());
        assertEq(record, _record(solver, uint32(DEADLINE - 1)));
    }

    function test_fill_atDeadline_succeeds() public {
        vm.warp(DEADLINE);
        bytes32 record = _fillAs(solver, _erc20Output());
        assertEq(record, _record(solver, uint32(DEADLINE)));
        assertEq(token.balanceOf(recipient), AMOUNT);
    }

    function test_fill_oneSecondAfterDeadline_reverts() public {
        vm.warp(DEADLINE + 1);
        MandateOutput memory output = _erc20Output();
        vm.prank(solver);
        vm.expectRevert(OutputSettler.FillDeadline.selector);
        settler.fill(orderId, output, DEADLINE, _fillerData(solver));
    }

    function test_fill_refillAfterDeadline_reverts() public {
        _fillAs(solver, _erc20Output());
        vm.warp(DEADLINE + 1);
        MandateOutput memory output = _erc20Output();
        vm.prank(otherSolver);
        vm.expectRevert(OutputSettler.FillDeadline.selector);
        settler.fill(orderId, output, DEADLINE, _fillerData(otherSolver));
    }

    // ---------------------------------------------------------------- output validation

    function test_fill_wrongChain_reverts() public {
        MandateOutput memory output = _erc20Output();
        output.chainId = DEST_CHAIN + 1;
        vm.prank(solver);
        vm.expectRevert(abi.encodeWithSelector(OutputSettler.WrongChain.selector, DEST_CHAIN + 1, DEST_CHAIN));
        settler.fill(orderId, output, DEADLINE, _fillerData(solver));
    }

    function test_fill_wrongSettler_reverts() public {
        MandateOutput memory output = _erc20Output();
        output.settler = makeAddr("elsewhere").toId();
        vm.prank(solver);
        vm.expectRevert(abi.encodeWithSelector(OutputSettler.WrongOutputSettler.selector, bytes32(uint256(uint160(address(settler)))), output.settler));
        settler.fill(orderId, output, DEADLINE, _fillerData(solver));
    }

    function test_fill_settlerWithDirtyUpperBits_reverts() public {
        MandateOutput memory output = _erc20Output();
        output.settler = output.settler | bytes32(uint256(1) << 200);
        vm.prank(solver);
        vm.expectRevert(abi.encodeWithSelector(OutputSettler.WrongOutputSettler.selector, bytes32(uint256(uint160(address(settler)))), output.settler));
        settler.fill(orderId, output, DEADLINE, _fillerData(solver));
    }

    function test_fill_zeroSolver_reverts() public {
        MandateOutput memory output = _erc20Output();
        vm.prank(solver);
        vm.expectRevert(OutputSettler.ZeroValue.selector);
        settler.fill(orderId, output, DEADLINE, abi.encode(bytes32(0)));
    }

    function test_fill_shortFillerData_reverts() public {
        MandateOutput memory output = _erc20Output();
        bytes memory shortData = new bytes(31);
        shortData[0] = 0x01;
        vm.prank(solver);
        vm.expectRevert(OutputSettler.FillerDataTooShort.selector);
        settler.fill(orderId, output, DEADLINE, shortData);
    }

    function test_fill_fillerDataTrailingBytesIgnored() public {
        MandateOutput memory output = _erc20Output();
        vm.prank(solver);
        bytes32 record = settler.fill(orderId, output, DEADLINE, abi.encodePacked(solver.toId(), hex"deadbeef"));
        assertEq(record, _record(solver, uint32(block.timestamp)));
    }

    function test_fill_solverIsFillerDataNotCaller() public {
        // A solver may pay from one account and claim with another: the record names fillerData's solver.
        address claimer = makeAddr("claimer");
        MandateOutput memory output = _erc20Output();
        vm.prank(solver);
        bytes32 record = settler.fill(orderId, output, DEADLINE, _fillerData(claimer));
        assertEq(record, _record(claimer, uint32(block.timestamp)));
    }

    function test_fill_limitContextSingleZeroByte_succeeds() public {
        MandateOutput memory output = _erc20Output();
        output.context = hex"00";
        _fillAs(solver, output);
        assertEq(token.balanceOf(recipient), AMOUNT);
    }

    function test_fill_dutchContextWithWrongLength_reverts() public {
        MandateOutput memory output = _erc20Output();
        output.context = abi.encodePacked(bytes1(0x01), uint32(1), uint32(2));
        vm.prank(solver);
        vm.expectRevert(OutputSettler.InvalidContextDataLength.selector);
        settler.fill(orderId, output, DEADLINE, _fillerData(solver));
    }

    function test_fill_singleNonZeroContextByte_reverts() public {
        MandateOutput memory output = _erc20Output();
        output.context = hex"e0";
        vm.prank(solver);
        vm.expectRevert(OutputSettler.InvalidContextDataLength.selector);
        settler.fill(orderId, output, DEADLINE, _fillerData(solver));
    }

    function test_fill_unknownContextType_reverts() public {
        MandateOutput memory output = _erc20Output();
        output.context = hex"02";
        vm.prank(solver);
        vm.expectRevert(OutputSettler.NotImplemented.selector);
        settler.fill(orderId, output, DEADLINE, _fillerData(solver));
    }

    function test_fill_twoZeroContextBytes_reverts() public {
        MandateOutput memory output = _erc20Output();
        output.context = hex"0000";
        vm.prank(solver);
        vm.expectRevert(OutputSettler.InvalidContextDataLength.selector);
        settler.fill(orderId, output, DEADLINE, _fillerData(solver));
    }

    function test_fill_tokenWithDirtyUpperBits_reverts() public {
        MandateOutput memory output = _erc20Output();
        output.token = output.token | bytes32(uint256(1) << 160);
        vm.prank(solver);
        vm.expectRevert(OutputSettler.HasDirtyBits.selector);
        settler.fill(orderId, output, DEADLINE, _fillerData(solver));
    }

    function test_fill_recipientWithDirtyUpperBits_reverts() public {
        MandateOutput memory output = _erc20Output();
        output.recipient = output.recipient | bytes32(uint256(1) << 255);
        vm.prank(solver);
        vm.expectRevert(abi.encodeWithSelector(OutputSettler.InvalidRecipient.selector, output.recipient));
        settler.fill(orderId, output, DEADLINE, _fillerData(solver));
    }

    function test_fill_zeroRecipient_reverts() public {
        MandateOutput memory output = _erc20Output();
        output.recipient = bytes32(0);
        vm.prank(solver);
        vm.expectRevert(abi.encodeWithSelector(OutputSettler.InvalidRecipient.selector, bytes32(0)));
        settler.fill(orderId, output, DEADLINE, _fillerData(solver));
    }

    // ---------------------------------------------------------------- second fills are no-ops

    function test_fill_secondFill_isNoOpReturningFirstRecord() public {
        MandateOutput memory output = _erc20Output();
        bytes32 first = _fillAs(solver, output);
        uint256 otherBefore = token.balanceOf(otherSolver);

        vm.warp(block.timestamp + 7);
        vm.recordLogs();
        bytes32 second = _fillAs(otherSolver, output);

        assertEq(second, first, "returns the existing record");
        assertEq(vm.getRecordedLogs().length, 0, "no transfer, no OutputFilled");
        assertEq(token.balanceOf(recipient), AMOUNT, "recipient paid once");
        assertEq(token.balanceOf(otherSolver), otherBefore, "second solver pays nothing");
        assertEq(settler.getFillRecord(orderId, _outputHash(output)), first);
    }

    function test_fill_secondNativeFill_returnsValueToCaller() public {
        MandateOutput memory output = _nativeOutput();
        _fillAs(solver, output);
        uint256 otherBefore = otherSolver.balance;

        _fillAs(otherSolver, output);

        assertEq(recipient.balance, 1 ether, "recipient paid once");
        assertEq(otherSolver.balance, otherBefore, "value returned");
        assertEq(address(settler).balance, 0);
    }

    function test_fill_sameOutputOtherOrder_isSeparateFill() public {
        MandateOutput memory output = _erc20Output();
        _fillAs(solver, output);
        vm.prank(solver);
        settler.fill(keccak256("order-2"), output, DEADLINE, _fillerData(solver));
        assertEq(token.balanceOf(recipient), 2 * AMOUNT);
    }

    function test_fill_outputDifferingOnlyInOracle_isSeparateFill() public {
        MandateOutput memory output = _erc20Output();
        _fillAs(solver, output);
        output.oracle = makeAddr("otherOracle").toId();
        _fillAs(solver, output);
        assertEq(token.balanceOf(recipient), 2 * AMOUNT);
    }

    // ---------------------------------------------------------------- callbacks and re-entry

    function test_fill_callback_runsAfterPaymentAndRecord() public {
        RecordingRecipient hook = new RecordingRecipient(settler);
        MandateOutput memory output = _output(address(token).toId(), AMOUNT, address(hook).toId());
        output.callbackData = hex"c0ffee";
        hook.watch(orderId, _outputHash(output));

        bytes32 record = _fillAs(solver, output);

        assertEq(hook.calls(), 1);
        assertEq(hook.lastToken(), address(token).toId());
        assertEq(hook.lastAmount(), AMOUNT);
        assertEq(hook.lastCallbackData(), hex"c0ffee");
        assertEq(hook.tokenBalanceSeen(), AMOUNT, "paid before the callback");
        assertEq(hook.recordSeen(), record, "recorded before the callback");
    }

    function test_fill_nativeCallback_seesValue() public {
        RecordingRecipient hook = new RecordingRecipient(settler);
        MandateOutput memory output = _output(bytes32(0), 0.5 ether, address(hook).toId());
        output.callbackData = hex"01";
        _fillAs(solver, output);
        assertEq(hook.nativeBalanceSeen(), 0.5 ether);
        assertEq(hook.lastToken(), bytes32(0));
    }

    function test_fill_emptyCallbackData_skipsCallback() public {
        RecordingRecipient hook = new RecordingRecipient(settler);
        MandateOutput memory output = _output(address(token).toId(), AMOUNT, address(hook).toId());
        _fillAs(solver, output);
        assertEq(hook.calls(), 0);
        assertEq(token.balanceOf(address(hook)), AMOUNT);
    }

    function test_fill_callbackReverts_revertsWholeFill() public {
        RevertingRecipient hook = new RevertingRecipient();
        MandateOutput memory output = _output(address(token).toId(), AMOUNT, address(hook).toId());
        output.callbackData = hex"01";
        vm.prank(solver);
        vm.expectRevert(RevertingRecipient.Refused.selector);
        settler.fill(orderId, output, DEADLINE, _fillerData(solver));
        assertEq(settler.getFillRecord(orderId, _outputHash(output)), bytes32(0));
        assertEq(token.balanceOf(address(hook)), 0);
    }

    function test_fill_callbackToAccountWithoutCode_reverts() public {
        MandateOutput memory output = _erc20Output();
        output.callbackData = hex"01";
        vm.prank(solver);
        vm.expectRevert();
        settler.fill(orderId, output, DEADLINE, _fillerData(solver));
        assertEq(settler.getFillRecord(orderId, _outputHash(output)), bytes32(0));
    }

    function test_fill_reentrantRefill_paysOnce() public {
        ReenteringRecipient attacker = new ReenteringRecipient(settler);
        MandateOutput memory output = _output(bytes32(0), 1 ether, address(attacker).toId());
        attacker.arm(orderId, output);

        bytes32 record = _fillAs(solver, output);

        assertTrue(attacker.reentered());
        assertEq(attacker.reentryRecord(), record, "re-entry saw the record already written");
        assertEq(address(attacker).balance, 1 ether, "paid exactly once");
        assertEq(address(settler).balance, 0);
    }

    // ---------------------------------------------------------------- interface compatibility

    function test_abiMatchesIOutputSettler() public view {
        assertEq(OutputSettler.fill.selector, IOutputSettler.fill.selector);
        assertEq(OutputSettler.fillOrderOutputs.selector, IOutputSettler.fillOrderOutputs.selector);
        assertEq(bytes4(keccak256("getFillRecord(bytes32,bytes32)")), IOutputSettler.getFillRecord.selector);
        assertEq(OutputSettler.hasAttested.selector, IOutputSettler.hasAttested.selector);
        assertEq(OutputSettler.OutputFilled.selector, IOutputSettler.OutputFilled.selector);
        assertEq(
            IOutputSettler(address(settler)).getFillRecord(orderId, _outputHash(_erc20Output())), bytes32(0)
        );
    }

    function test_fillThroughIOutputSettler() public {
        MandateOutput memory output = _erc20Output();
        vm.prank(solver);
        bytes32 record = IOutputSettler(address(settler)).fill(orderId, output, DEADLINE, _fillerData(solver));
        assertEq(record, _record(solver, uint32(block.timestamp)));
    }
}

contract OutputSettlerFillOrderOutputsTest is OutputSettlerTestBase {
    using OutputFixtures for address;

    address internal recipient2 = makeAddr("recipient2");

    function _outputs() internal view returns (MandateOutput[] memory outputs) {
        outputs = new MandateOutput[](3);
        outputs[0] = _erc20Output();
        outputs[1] = _output(bytes32(0), 1 ether, recipient2.toId());
        outputs[2] = _output(address(token).toId(), 7e6, recipient2.toId());
    }

    function _fillAllAs(address who, MandateOutput[] memory outputs, uint256 value) internal {
        vm.prank(who);
        settler.fillOrderOutputs{value: value}(orderId, outputs, DEADLINE, _fillerData(who));
    }

    function test_fillOrderOutputs_fillsEveryOutputInOrder() public {
        MandateOutput[] memory outputs = _outputs();
        uint32 ts = uint32(block.timestamp);
        for (uint256 i; i < outputs.length; ++i) {
            vm.expectEmit(true, true, true, true, address(settler));
            emit OutputSettler.OutputFilled(orderId, solver.toId(), ts, outputs[i], outputs[i].amount);
        }
        _fillAllAs(solver, outputs, 1 ether);

        for (uint256 i; i < outputs.length; ++i) {
            assertEq(settler.getFillRecord(orderId, _outputHash(outputs[i])), _record(solver, ts));
        }
        assertEq(token.balanceOf(recipient), AMOUNT);
        assertEq(token.balanceOf(recipient2), 7e6);
        assertEq(recipient2.balance, 1 ether);
        assertEq(address(settler).balance, 0);
    }

    function test_fillOrderOutputs_firstOutputTaken_reverts() public {
        MandateOutput[] memory outputs = _outputs();
        bytes32 first = _fillAs(otherSolver, outputs[0]);
        vm.prank(solver);
        vm.expectRevert(OutputSettler.AlreadyFilled.selector);
        settler.fillOrderOutputs{value: 1 ether}(orderId, outputs, DEADLINE, _fillerData(solver));
        assertEq(recipient2.balance, 0, "later outputs untouched");
    }

    function test_fillOrderOutputs_laterOutputTaken_isSkippedAndValueReturned() public {
        MandateOutput[] memory outputs = _outputs();
        bytes32 taken = _fillAs(otherSolver, outputs[1]);
        uint256 solverEthBefore = solver.balance;

        _fillAllAs(solver, outputs, 1 ether);

        assertEq(settler.getFillRecord(orderId, _outputHash(outputs[1])), taken, "first record kept");
        assertEq(recipient2.balance, 1 ether, "native output paid once");
        assertEq(solver.balance, solverEthBefore, "unused value returned");
        assertEq(settler.getFillRecord(orderId, _outputHash(outputs[2])), _record(solver, uint32(block.timestamp)));
        assertEq(address(settler).balance, 0);
    }

    function test_fillOrderOutputs_empty_reverts() public {
        MandateOutput[] memory outputs = new MandateOutput[](0);
        vm.prank(solver);
        vm.expectRevert(OutputSettler.NoOutputs.selector);
        settler.fillOrderOutputs(orderId, outputs, DEADLINE, _fillerData(solver));
    }

    function test_fillOrderOutputs_tooLittleValue_reverts() public {
        MandateOutput[] memory outputs = _outputs();
        vm.prank(solver);
        vm.expectRevert(abi.encodeWithSelector(Errors.InsufficientBalance.selector, 0, 1 ether));
        settler.fillOrderOutputs(orderId, outputs, DEADLINE, _fillerData(solver));
    }

    function test_fillOrderOutputs_atDeadline_succeeds() public {
        vm.warp(DEADLINE);
        _fillAllAs(solver, _outputs(), 1 ether);
        assertEq(token.balanceOf(recipient), AMOUNT);
    }

    function test_fillOrderOutputs_afterDeadline_reverts() public {
        vm.warp(DEADLINE + 1);
        MandateOutput[] memory outputs = _outputs();
        vm.prank(solver);
        vm.expectRevert(OutputSettler.FillDeadline.selector);
        settler.fillOrderOutputs{value: 1 ether}(orderId, outputs, DEADLINE, _fillerData(solver));
    }

    function test_fillOrderOutputs_zeroSolver_reverts() public {
        MandateOutput[] memory outputs = _outputs();
        vm.prank(solver);
        vm.expectRevert(OutputSettler.ZeroValue.selector);
        settler.fillOrderOutputs{value: 1 ether}(orderId, outputs, DEADLINE, abi.encode(bytes32(0)));
    }

    function test_fillOrderOutputs_oneBadOutput_revertsAll() public {
        MandateOutput[] memory outputs = _outputs();
        outputs[2].context = hex"01"; // a Dutch auction without its 40 bytes of parameters
        vm.prank(solver);
        vm.expectRevert(OutputSettler.InvalidContextDataLength.selector);
        settler.fillOrderOutputs{value: 1 ether}(orderId, outputs, DEADLINE, _fillerData(solver));
        assertEq(settler.getFillRecord(orderId, _outputHash(outputs[0])), bytes32(0));
        assertEq(token.balanceOf(recipient), 0);
    }
}

contract OutputSettlerAttestationTest is OutputSettlerTestBase {
    using OutputFixtures for address;

    bytes internal payload;
    MandateOutput internal filled;
    uint32 internal filledAt;

    function setUp() public override {
        super.setUp();
        MandateOutput memory output = _erc20Output();
        output.callbackData = "";
        output.context = hex"00";
        filled = output;
        filledAt = uint32(block.timestamp);
        _fillAs(solver, output);
        payload = _payload(solver, filledAt, output);
    }

    function test_hasAttested_exactPayloadFromOutputsOracle_true() public {
        assertTrue(_attestedBy(oracle, _one(payload)));
    }

    function test_hasAttested_otherCaller_false() public {
        assertFalse(_attestedBy(makeAddr("notTheOracle"), _one(payload)));
        assertFalse(settler.hasAttested(_one(payload)), "test contract is not the oracle");
    }

    function test_hasAttested_otherChain_false() public {
        vm.chainId(DEST_CHAIN + 1);
        assertFalse(_attestedBy(oracle, _one(payload)));
    }

    function test_hasAttested_otherSettlerInstance_false() public {
        OutputSettler twin = new OutputSettler();
        vm.prank(oracle);
        assertFalse(twin.hasAttested(_one(payload)));
    }

    function test_hasAttested_unfilledOutput_false() public {
        MandateOutput memory other = _output(address(token).toId(), AMOUNT + 1, recipient.toId());
        assertFalse(_attestedBy(oracle, _one(_payload(solver, filledAt, other))));
    }

    function test_hasAttested_wrongSolverOrTimestamp_false() public {
        assertFalse(_attestedBy(oracle, _one(_payload(otherSolver, filledAt, filled))));
        assertFalse(_attestedBy(oracle, _one(_payload(solver, filledAt + 1, filled))));
        assertFalse(_attestedBy(oracle, _one(_payload(solver, filledAt - 1, filled))));
    }

    function test_hasAttested_emptyContextVersusZeroByte_false() public {
        MandateOutput memory sameButEmptyContext = filled;
        sameButEmptyContext.context = "";
        assertFalse(_attestedBy(oracle, _one(_payload(solver, filledAt, sameButEmptyContext))));
    }

    function test_hasAttested_tooShort_false() public {
        bytes memory cut = new bytes(167);
        for (uint256 i; i < cut.length; ++i) {
            cut[i] = payload[i];
        }
        assertFalse(_attestedBy(oracle, _one(cut)));
        assertFalse(_attestedBy(oracle, _one("")));
    }

    function test_hasAttested_trailingByte_false() public {
        assertFalse(_attestedBy(oracle, _one(abi.encodePacked(payload, bytes1(0)))));
    }

    function test_hasAttested_batch_trueOnlyWhenAllRecorded() public {
        MandateOutput memory second = _nativeOutput();
        _fillAs(otherSolver, second);
        bytes memory secondPayload = _payload(otherSolver, filledAt, second);

        bytes[] memory both = new bytes[](2);
        both[0] = payload;
        both[1] = secondPayload;
        assertTrue(_attestedBy(oracle, both));

        both[1] = _payload(solver, filledAt, second);
        assertFalse(_attestedBy(oracle, both));
    }

    function test_hasAttested_emptyBatch_true() public {
        assertTrue(_attestedBy(oracle, new bytes[](0)));
    }

    function testFuzz_hasAttested_anyByteFlip_false(uint256 index, uint8 mask) public {
        vm.assume(mask != 0);
        index = bound(index, 0, payload.length - 1);
        bytes memory mutated = bytes.concat(payload);
        mutated[index] = mutated[index] ^ bytes1(mask);
        assertFalse(_attestedBy(oracle, _one(mutated)));
        assertTrue(_attestedBy(oracle, _one(payload)), "the original still holds");
    }

    /// @dev Changes exactly one field of the fill (or of the output it names) by a non-zero delta.
    function testFuzz_hasAttested_anyFieldChange_false(uint8 field, uint256 delta, bytes calldata extra) public {
        field = uint8(bound(field, 0, 7));
        delta = bound(delta, 1, type(uint32).max);
        vm.assume(extra.length > 0 && extra.length <= 256);
        bytes32 solverId = solver.toId();
        bytes32 id = orderId;
        uint32 timestamp = filledAt;
        MandateOutput memory variant = filled;
        if (field == 0) solverId = bytes32(uint256(solverId) ^ delta);
        else if (field == 1) id = bytes32(uint256(id) ^ delta);
        else if (field == 2) timestamp = uint32(timestamp ^ uint32(delta));
        else if (field == 3) variant.token = bytes32(uint256(variant.token) ^ delta);
        else if (field == 4) variant.amount = variant.amount ^ delta;
        else if (field == 5) variant.recipient = bytes32(uint256(variant.recipient) ^ delta);
        else if (field == 6) variant.callbackData = extra;
        else variant.context = bytes.concat(variant.context, extra);

        bytes memory candidate = FillDescriptionLib.encodeFillDescription(solverId, id, timestamp, variant);
        assertFalse(_attestedBy(oracle, _one(candidate)));
    }
}
