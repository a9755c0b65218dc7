// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {Test} from "forge-std/Test.sol";
import {BaseInputOracle} from "../../src/oracle/BaseInputOracle.sol";
import {InputOracle} from "../../src/oracle/InputOracle.sol";
import {IInputOracle} from "../../src/interfaces/IInputOracle.sol";

contract InputOracleTest is Test {
    uint256 internal constant REMOTE_CHAIN = 8453;

    InputOracle internal inputOracle;
    address internal relayer = makeAddr("relayer");
    bytes32 internal remoteOracle = bytes32(uint256(uint160(makeAddr("outputOracle"))));
    bytes32 internal application = bytes32(uint256(uint160(makeAddr("outputSettler"))));

    function setUp() public {
        inputOracle = new InputOracle(relayer);
    }

    function _payload(uint256 n) internal pure returns (bytes memory) {
        // Shaped like a fill description: solver ‖ orderId ‖ timestamp ‖ common payload.
        return abi.encodePacked(bytes32(uint256(0x50)), keccak256(abi.encode("order", n)), uint32(n), new bytes(100));
    }

    function _payloads(uint256 count) internal pure returns (bytes[] memory payloads) {
        payloads = new bytes[](count);
        for (uint256 i; i < count; ++i) {
            payloads[i] = _payload(i);
        }
    }

    function _record(bytes[] memory payloads) internal {
        vm.prank(relayer);
        inputOracle.receiveAttestation(REMOTE_CHAIN, remoteOracle, application, payloads);
    }

    function _proofRecord(bytes memory payload) internal view returns (bytes memory) {
        return abi.encodePacked(REMOTE_CHAIN, remoteOracle, application, keccak256(payload));
    }

    // ---------------------------------------------------------------- construction and relayer role

    function test_constructor_setsRelayerAndEmits() public {
        vm.expectEmit(true, true, true, true);
        emit InputOracle.RelayerChanged(address(0), relayer);
        InputOracle fresh = new InputOracle(relayer);
        assertEq(fresh.relayer(), relayer);
    }

    function test_constructor_zeroRelayer_reverts() public {
        vm.expectRevert(InputOracle.ZeroRelayer.selector);
        new InputOracle(address(0));
    }

    function test_receiveAttestation_notRelayer_reverts() public {
        bytes[] memory payloads = _payloads(1);
        vm.prank(makeAddr("intruder"));
        vm.expectRevert(InputOracle.NotRelayer.selector);
        inputOracle.receiveAttestation(REMOTE_CHAIN, remoteOracle, application, payloads);
        assertFalse(inputOracle.isProven(REMOTE_CHAIN, remoteOracle, application, keccak256(payloads[0])));
    }

    function test_setRelayer_rotatesRole() public {
        address next = makeAddr("nextRelayer");
        vm.expectEmit(true, true, true, true, address(inputOracle));
        emit InputOracle.RelayerChanged(relayer, next);
        vm.prank(relayer);
        inputOracle.setRelayer(next);
        assertEq(inputOracle.relayer(), next);

        bytes[] memory payloads = _payloads(1);
        vm.prank(relayer);
        vm.expectRevert(InputOracle.NotRelayer.selector);
        inputOracle.receiveAttestation(REMOTE_CHAIN, remoteOracle, application, payloads);

        vm.prank(next);
        inputOracle.receiveAttestation(REMOTE_CHAIN, remoteOracle, application, payloads);
        assertTrue(inputOracle.isProven(REMOTE_CHAIN, remoteOracle, application, keccak256(payloads[0])));
    }

    function test_setRelayer_notRelayer_reverts() public {
        vm.prank(makeAddr("intruder"));
        vm.expectRevert(InputOracle.NotRelayer.selector);
        inputOracle.setRelayer(makeAddr("intruder"));
    }

    function test_setRelayer_zero_reverts() public {
        vm.prank(relayer);
        vm.expectRevert(InputOracle.ZeroRelayer.selector);
        inputOracle.setRelayer(address(0));
    }

    // ---------------------------------------------------------------- recording

    function test_receiveAttestation_recordsAndEmitsPerPayload() public {
        bytes[] memory payloads = _payloads(3);
        for (uint256 i; i < 3; ++i) {
            vm.expectEmit(true, true, true, true, address(inputOracle));
            emit InputOracle.AttestationRecorded(
                REMOTE_CHAIN, application, keccak256(abi.encode("order", i)), remoteOracle, keccak256(payloads[i])
            );
        }
        _record(payloads);
        for (uint256 i; i < 3; ++i) {
            assertTrue(inputOracle.isProven(REMOTE_CHAIN, remoteOracle, application, keccak256(payloads[i])));
        }
    }

    function test_receiveAttestation_again_isSilentNoOp() public {
        bytes[] memory payloads = _payloads(1);
        _record(payloads);
        vm.recordLogs();
        _record(payloads);
        assertEq(vm.getRecordedLogs().length, 0);
        assertTrue(inputOracle.isProven(REMOTE_CHAIN, remoteOracle, application, keccak256(payloads[0])));
    }

    function test_receiveAttestation_noPayloads_reverts() public {
        vm.prank(relayer);
        vm.expectRevert(InputOracle.NoPayloads.selector);
        inputOracle.receiveAttestation(REMOTE_CHAIN, remoteOracle, application, new bytes[](0));
    }

    function test_receiveAttestation_shortPayload_reverts() public {
        bytes[] memory payloads = _payloads(2);
        payloads[1] = new bytes(63);
        vm.prank(relayer);
        vm.expectRevert(abi.encodeWithSelector(InputOracle.PayloadTooShort.selector, 1));
        inputOracle.receiveAttestation(REMOTE_CHAIN, remoteOracle, application, payloads);
        assertFalse(inputOracle.isProven(REMOTE_CHAIN, remoteOracle, application, keccak256(payloads[0])));
    }

    // ---------------------------------------------------------------- isProven

    function test_isProven_unrecorded_false() public view {
        assertFalse(inputOracle.isProven(REMOTE_CHAIN, remoteOracle, application, keccak256(_payload(0))));
    }

    function testFuzz_isProven_onlyExactTuple(uint256 chainId, bytes32 oracle_, bytes32 app, bytes32 dataHash)
        public
    {
        bytes[] memory payloads = _payloads(1);
        _record(payloads);
        bytes32 recorded = keccak256(payloads[0]);
        bool exact = chainId == REMOTE_CHAIN && oracle_ == remoteOracle && app == application && dataHash == recorded;
        assertEq(inputOracle.isProven(chainId, oracle_, app, dataHash), exact);
        // Each coordinate alone must also matter.
        assertEq(inputOracle.isProven(chainId, remoteOracle, application, recorded), chainId == REMOTE_CHAIN);
        assertEq(inputOracle.isProven(REMOTE_CHAIN, oracle_, application, recorded), oracle_ == remoteOracle);
        assertEq(inputOracle.isProven(REMOTE_CHAIN, remoteOracle, app, recorded), app == application);
        assertEq(inputOracle.isProven(REMOTE_CHAIN, remoteOracle, application, dataHash), dataHash == recorded);
    }

    // ---------------------------------------------------------------- efficientRequireProven

    function test_efficientRequireProven_allRecorded_passes() public {
        bytes[] memory payloads = _payloads(3);
        _record(payloads);
        inputOracle.efficientRequireProven(
            bytes.concat(_proofRecord(payloads[0]), _proofRecord(payloads[1]), _proofRecord(payloads[2]))
        );
        inputOracle.efficientRequireProven(_proofRecord(payloads[1]));
    }

    function test_efficientRequireProven_mixedSeries_reverts() public {
        bytes[] memory payloads = _payloads(2);
        bytes[] memory onlyFirst = new bytes[](1);
        onlyFirst[0] = payloads[0];
        _record(onlyFirst);

        vm.expectRevert(IInputOracle.NotProven.selector);
        inputOracle.efficientRequireProven(bytes.concat(_proofRecord(payloads[0]), _proofRecord(payloads[1])));
        vm.expectRevert(IInputOracle.NotProven.selector);
        inputOracle.efficientRequireProven(bytes.concat(_proofRecord(payloads[1]), _proofRecord(payloads[0])));
    }

    function test_efficientRequireProven_otherRemoteCoordinates_reverts() public {
        bytes[] memory payloads = _payloads(1);
        _record(payloads);
        bytes32 dataHash = keccak256(payloads[0]);
        vm.expectRevert(IInputOracle.NotProven.selector);
        inputOracle.efficientRequireProven(abi.encodePacked(REMOTE_CHAIN + 1, remoteOracle, application, dataHash));
        vm.expectRevert(IInputOracle.NotProven.selector);
        inputOracle.efficientRequireProven(abi.encodePacked(REMOTE_CHAIN, application, application, dataHash));
        vm.expectRevert(IInputOracle.NotProven.selector);
        inputOracle.efficientRequireProven(abi.encodePacked(REMOTE_CHAIN, remoteOracle, remoteOracle, dataHash));
    }

    function test_efficientRequireProven_empty_reverts() public {
        vm.expectRevert(IInputOracle.NotProven.selector);
        inputOracle.efficientRequireProven("");
    }

    function test_efficientRequireProven_malformedLength_reverts() public {
        bytes[] memory payloads = _payloads(1);
        _record(payloads);
        bytes memory proof = _proofRecord(payloads[0]);

        vm.expectRevert(abi.encodeWithSelector(BaseInputOracle.NotDivisible.selector, 129, 128));
        inputOracle.efficientRequireProven(bytes.concat(proof, hex"00"));

        bytes memory cut = new bytes(127);
        for (uint256 i; i < 127; ++i) {
            cut[i] = proof[i];
        }
        vm.expectRevert(abi.encodeWithSelector(BaseInputOracle.NotDivisible.selector, 127, 128));
        inputOracle.efficientRequireProven(cut);

        vm.expectRevert(abi.encodeWithSelector(BaseInputOracle.NotDivisible.selector, 192, 128));
        inputOracle.efficientRequireProven(bytes.concat(proof, new bytes(64)));
    }

    function testFuzz_efficientRequireProven_anyByteFlip_reverts(uint256 index, uint8 mask) public {
        vm.assume(mask != 0);
        bytes[] memory payloads = _payloads(2);
        _record(payloads);
        bytes memory series = bytes.concat(_proofRecord(payloads[0]), _proofRecord(payloads[1]));
        inputOracle.efficientRequireProven(series);

        index = bound(index, 0, series.length - 1);
        series[index] = series[index] ^ bytes1(mask);
        vm.expectRevert(IInputOracle.NotProven.selector);
        inputOracle.efficientRequireProven(series);
    }
}
