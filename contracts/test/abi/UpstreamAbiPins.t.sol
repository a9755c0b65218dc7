// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {Test} from "forge-std/Test.sol";
import {Vm} from "forge-std/Vm.sol";

import {InputSettlerBase} from "../../src/input/InputSettlerBase.sol";
import {InputSettlerEscrow} from "../../src/input/escrow/InputSettlerEscrow.sol";
import {InputSettlerCompact} from "../../src/input/compact/InputSettlerCompact.sol";
import {OutputSettler} from "../../src/output/OutputSettler.sol";
import {OutputOracle} from "../../src/oracle/OutputOracle.sol";
import {InputOracle} from "../../src/oracle/InputOracle.sol";
import {BaseInputOracle} from "../../src/oracle/BaseInputOracle.sol";
import {IInputOracle} from "../../src/interfaces/IInputOracle.sol";
import {MandateOutput, StandardOrder} from "../../src/types/StandardOrder.sol";

/// @notice Pins every function selector, event topic0 and error selector of the table "Upstream ABI, exact"
/// in shared/spec/onchain.md (OIF oif-contracts at 5323b1b). Each pin checks three things: the contract's own
/// selector equals keccak256 of the upstream signature string, and (where the table gives one) that the
/// signature string hashes to the table's 4-byte prefix. A failing assertion names the entry that drifted.
contract UpstreamAbiPinsTest is Test {
    string internal constant MO = "(bytes32,bytes32,uint256,bytes32,uint256,bytes32,bytes,bytes)";
    string internal constant SP = "(uint32,bytes32)[]";
    string internal constant OP = "(bytes32,address,bytes,uint64,uint32)";

    function _so() internal pure returns (string memory) {
        return string.concat("(address,uint256,uint256,uint32,uint32,address,uint256[2][],", MO, "[])");
    }

    function _sel(string memory signature) internal pure returns (bytes4) {
        return bytes4(keccak256(bytes(signature)));
    }

    /// @dev `actual` is the contract's selector; `tablePrefix` is bytes4(0) where the table gives none.
    function _pin(string memory name, bytes4 actual, string memory signature, bytes4 tablePrefix) internal pure {
        assertEq(actual, _sel(signature), string.concat("selector drifted from upstream: ", name, " ", signature));
        if (tablePrefix != bytes4(0)) {
            assertEq(_sel(signature), tablePrefix, string.concat("table prefix mismatch: ", name, " ", signature));
        }
    }

    function _pinTopic(string memory name, bytes32 actual, string memory signature, bytes4 tablePrefix) internal pure {
        assertEq(actual, keccak256(bytes(signature)), string.concat("event topic drifted: ", name, " ", signature));
        if (tablePrefix != bytes4(0)) {
            assertEq(bytes4(actual), tablePrefix, string.concat("table topic prefix mismatch: ", name));
        }
    }

    /// @dev For overloaded functions (no `.selector`): the deployed contract must answer a call made with
    /// the upstream selector and well-formed arguments.
    function _pinDispatch(string memory name, address target, bytes memory call, bytes4 tablePrefix) internal view {
        bytes4 selector = bytes4(call);
        if (tablePrefix != bytes4(0)) assertEq(selector, tablePrefix, string.concat("table prefix mismatch: ", name));
        (bool ok,) = target.staticcall(call);
        assertTrue(ok, string.concat("not dispatched by the contract: ", name));
    }

    function test_inputSettlerEscrow_functions() public view {
        string memory so = _so();
        _pin("open", InputSettlerEscrow.open.selector, string.concat("open(", so, ")"), 0x7515fd56);
        _pin("openFor", InputSettlerEscrow.openFor.selector, string.concat("openFor(", so, ",address,bytes)"), 0x49927074);
        _pin(
            "finalise",
            InputSettlerEscrow.finalise.selector,
            string.concat("finalise(", so, ",", SP, ",bytes32,bytes)"),
            0xbab36441
        );
        _pin(
            "finaliseWithSignature",
            InputSettlerEscrow.finaliseWithSignature.selector,
            string.concat("finaliseWithSignature(", so, ",", SP, ",bytes32,bytes,bytes)"),
            0x73ce1aaa
        );
        _pin("refund", InputSettlerEscrow.refund.selector, string.concat("refund(", so, ")"), 0x48f49eaf);
        _pin("orderStatus", InputSettlerEscrow(address(0)).orderStatus.selector, "orderStatus(bytes32)", 0x2dff692d);
        _pin(
            "purchaseOrder",
            InputSettlerEscrow.purchaseOrder.selector,
            string.concat("purchaseOrder(", OP, ",", so, ",bytes32,bytes32,uint256,bytes)"),
            0x72903ef8
        );
        _pin("DOMAIN_SEPARATOR", InputSettlerBase.DOMAIN_SEPARATOR.selector, "DOMAIN_SEPARATOR()", 0x3644e515);
    }

    function test_inputSettlerEscrow_orderIdentifierIsDispatched() public {
        InputSettlerEscrow escrow = new InputSettlerEscrow();
        // orderIdentifier is overloaded here (a project `bytes` form), so pin it by calling it.
        bytes memory call = abi.encodePacked(_sel(string.concat("orderIdentifier(", _so(), ")")), _emptyOrderArgs());
        _pinDispatch("orderIdentifier(SO)", address(escrow), call, 0x609dbfa0);
    }

    function test_inputSettlerEscrow_events() public pure {
        _pinTopic("Open", InputSettlerEscrow.Open.selector, string.concat("Open(bytes32,", _so(), ")"), 0x9ff74bd5);
        _pinTopic("Finalised", InputSettlerBase.Finalised.selector, "Finalised(bytes32,bytes32,bytes32)", 0x6d1ab3c9);
        _pinTopic("Refunded", InputSettlerEscrow.Refunded.selector, "Refunded(bytes32)", 0xfe509803);
        _pinTopic(
            "OrderPurchased", InputSettlerBase.OrderPurchased.selector, "OrderPurchased(bytes32,bytes32,bytes32)", 0
        );
    }

    function test_inputSettlerCompact_functions() public pure {
        string memory so = _so();
        _pin(
            "Compact.finalise",
            InputSettlerCompact.finalise.selector,
            string.concat("finalise(", so, ",bytes,", SP, ",bytes32,bytes)"),
            0xacdfa755
        );
        _pin(
            "Compact.finaliseWithSignature",
            InputSettlerCompact.finaliseWithSignature.selector,
            string.concat("finaliseWithSignature(", so, ",bytes,", SP, ",bytes32,bytes,bytes)"),
            0xddebc3e7
        );
        _pin(
            "Compact.orderIdentifier",
            InputSettlerCompact.orderIdentifier.selector,
            string.concat("orderIdentifier(", so, ")"),
            0x609dbfa0
        );
    }

    function test_outputSettler_functions() public view {
        _pin("fill", OutputSettler.fill.selector, string.concat("fill(bytes32,", MO, ",uint48,bytes)"), 0x978fb896);
        _pin(
            "fillOrderOutputs",
            OutputSettler.fillOrderOutputs.selector,
            string.concat("fillOrderOutputs(bytes32,", MO, "[],uint48,bytes)"),
            0x7e7fc653
        );
        _pin("hasAttested", OutputSettler.hasAttested.selector, "hasAttested(bytes[])", 0x00a2d1bd);
        _pin(
            "setAttestation",
            OutputSettler.setAttestation.selector,
            string.concat("setAttestation(bytes32,bytes32,uint32,", MO, ")"),
            0xa336970a
        );
        _pin(
            "OutputSettler.isProven",
            OutputSettler(address(0)).isProven.selector,
            "isProven(uint256,bytes32,bytes32,bytes32)",
            0x3ff04aff
        );
        _pin(
            "OutputSettler.efficientRequireProven",
            OutputSettler(address(0)).efficientRequireProven.selector,
            "efficientRequireProven(bytes)",
            0xae0dd770
        );
        _pinTopic(
            "OutputFilled",
            OutputSettler.OutputFilled.selector,
            string.concat("OutputFilled(bytes32,bytes32,uint32,", MO, ",uint256)"),
            0xfef24569
        );
    }

    function test_outputSettler_getFillRecordBothForms() public {
        OutputSettler settler = new OutputSettler();
        _pinDispatch(
            "getFillRecord(bytes32,bytes32)",
            address(settler),
            abi.encodeWithSelector(_sel("getFillRecord(bytes32,bytes32)"), bytes32(0), bytes32(0)),
            0xe3815b64
        );
        MandateOutput memory output;
        _pinDispatch(
            "getFillRecord(bytes32,MandateOutput)",
            address(settler),
            abi.encodeWithSelector(_sel(string.concat("getFillRecord(bytes32,", MO, ")")), bytes32(0), output),
            0x50b0e849
        );
    }

    function test_oracles() public view {
        _pin("OutputOracle.submit", OutputOracle.submit.selector, "submit(address,bytes[])", 0x87d64b92);
        _pin("InputOracle.isProven", InputOracle(address(0)).isProven.selector, "isProven(uint256,bytes32,bytes32,bytes32)", 0x3ff04aff);
        _pin(
            "InputOracle.efficientRequireProven",
            InputOracle(address(0)).efficientRequireProven.selector,
            "efficientRequireProven(bytes)",
            0xae0dd770
        );
        _pinTopic(
            "OutputProven",
            BaseInputOracle.OutputProven.selector,
            "OutputProven(uint256,bytes32,bytes32,bytes32)",
            0x0181a126
        );
    }

    /// @notice The input oracle really emits upstream's OutputProven (non-indexed, four words) when it records.
    function test_inputOracle_emitsUpstreamOutputProven() public {
        InputOracle oracle = new InputOracle(address(this));
        bytes[] memory payloads = new bytes[](1);
        payloads[0] = abi.encodePacked(bytes32(uint256(1)), bytes32(uint256(2)), uint32(3));
        vm.recordLogs();
        oracle.receiveAttestation(10, bytes32(uint256(11)), bytes32(uint256(12)), payloads);
        _assertOutputProven(keccak256("OutputProven(uint256,bytes32,bytes32,bytes32)"), keccak256(payloads[0]));
    }

    function _assertOutputProven(bytes32 topic, bytes32 payloadHash) internal {
        VmLogs memory found = _find(topic);
        assertTrue(found.seen, "InputOracle did not emit OutputProven(uint256,bytes32,bytes32,bytes32)");
        assertEq(found.topicCount, 1, "OutputProven must have no indexed arguments (upstream)");
        assertEq(found.data, abi.encode(uint256(10), bytes32(uint256(11)), bytes32(uint256(12)), payloadHash));
    }

    struct VmLogs {
        bool seen;
        uint256 topicCount;
        bytes data;
    }

    function _find(bytes32 topic) internal returns (VmLogs memory result) {
        Vm.Log[] memory logs = vm.getRecordedLogs();
        for (uint256 i; i < logs.length; ++i) {
            if (logs[i].topics[0] == topic) return VmLogs(true, logs[i].topics.length, logs[i].data);
        }
    }

    function test_errors() public pure {
        // Input settlers (InputSettlerBase, InputSettlerPurchase and InputSettlerEscrow upstream).
        _pin("TimestampPassed", InputSettlerBase.TimestampPassed.selector, "TimestampPassed()", 0);
        _pin("TimestampNotPassed", InputSettlerBase.TimestampNotPassed.selector, "TimestampNotPassed()", 0);
        _pin("WrongChain(input)", InputSettlerBase.WrongChain.selector, "WrongChain(uint256,uint256)", 0);
        _pin("InvalidSigner", InputSettlerBase.InvalidSigner.selector, "InvalidSigner()", 0);
        _pin("FilledTooLate", InputSettlerBase.FilledTooLate.selector, "FilledTooLate(uint32,uint32)", 0);
        _pin("InvalidTimestampLength", InputSettlerBase.InvalidTimestampLength.selector, "InvalidTimestampLength()", 0);
        _pin("NoDestination", InputSettlerBase.NoDestination.selector, "NoDestination()", 0);
        _pin(
            "FillDeadlineAfterExpiry",
            InputSettlerBase.FillDeadlineAfterExpiry.selector,
            "FillDeadlineAfterExpiry(uint32,uint32)",
            0
        );
        _pin("NotOrderOwner", InputSettlerBase.NotOrderOwner.selector, "NotOrderOwner()", 0);
        _pin("AlreadyPurchased", InputSettlerBase.AlreadyPurchased.selector, "AlreadyPurchased()", 0);
        _pin("Expired", InputSettlerBase.Expired.selector, "Expired()", 0);
        _pin("InvalidPurchaser", InputSettlerBase.InvalidPurchaser.selector, "InvalidPurchaser()", 0);
        _pin("InvalidOrderStatus", InputSettlerEscrow.InvalidOrderStatus.selector, "InvalidOrderStatus()", 0);
        _pin("OrderIdMismatch", InputSettlerEscrow.OrderIdMismatch.selector, "OrderIdMismatch(bytes32,bytes32)", 0);
        _pin(
            "SignatureAndInputsNotEqual",
            InputSettlerEscrow.SignatureAndInputsNotEqual.selector,
            "SignatureAndInputsNotEqual()",
            0
        );
        _pin("ReentrancyDetected", InputSettlerEscrow.ReentrancyDetected.selector, "ReentrancyDetected()", 0);
        _pin("SignatureNotSupported", InputSettlerEscrow.SignatureNotSupported.selector, "SignatureNotSupported(bytes1)", 0);
        _pin("HasDirtyBits(escrow)", InputSettlerEscrow.HasDirtyBits.selector, "HasDirtyBits()", 0);
        _pin("CodeSize0", InputSettlerEscrow.CodeSize0.selector, "CodeSize0()", 0);
        _pin("UserCannotBeSettler", InputSettlerCompact.UserCannotBeSettler.selector, "UserCannotBeSettler()", 0);

        // Output settler (OutputSettlerBase, OutputSettlerSimple, FulfilmentLib, FillerDataLib,
        // OutputVerificationLib, LibAddress upstream).
        _pin("FillDeadline", OutputSettler.FillDeadline.selector, "FillDeadline()", 0);
        _pin("AlreadyFilled", OutputSettler.AlreadyFilled.selector, "AlreadyFilled()", 0);
        _pin(
            "InvalidAttestation", OutputSettler.InvalidAttestation.selector, "InvalidAttestation(bytes32,bytes32)", 0
        );
        _pin("NotImplemented", OutputSettler.NotImplemented.selector, "NotImplemented()", 0);
        _pin("ExclusiveTo", OutputSettler.ExclusiveTo.selector, "ExclusiveTo(bytes32)", 0);
        _pin("ZeroValue", OutputSettler.ZeroValue.selector, "ZeroValue()", 0);
        _pin(
            "InvalidContextDataLength",
            OutputSettler.InvalidContextDataLength.selector,
            "InvalidContextDataLength()",
            0
        );
        _pin("FillerDataTooShort", OutputSettler.FillerDataTooShort.selector, "FillerDataTooShort()", 0);
        _pin("WrongChain(output)", OutputSettler.WrongChain.selector, "WrongChain(uint256,uint256)", 0);
        _pin(
            "WrongOutputSettler",
            OutputSettler.WrongOutputSettler.selector,
            "WrongOutputSettler(bytes32,bytes32)",
            0
        );
        _pin("WrongOutputOracle", OutputSettler.WrongOutputOracle.selector, "WrongOutputOracle(bytes32,bytes32)", 0);
        _pin("HasDirtyBits(output)", OutputSettler.HasDirtyBits.selector, "HasDirtyBits()", 0);

        // Oracles (BaseInputOracle upstream).
        _pin("NotProven", IInputOracle.NotProven.selector, "NotProven()", 0);
        _pin("NotDivisible", BaseInputOracle.NotDivisible.selector, "NotDivisible(uint256,uint256)", 0);
    }

    /// @dev ABI arguments of `orderIdentifier(SO)` for an all-zero order with empty arrays.
    function _emptyOrderArgs() internal pure returns (bytes memory) {
        StandardOrder memory order;
        return abi.encode(order);
    }
}
