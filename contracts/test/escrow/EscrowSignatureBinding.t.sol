// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {InputSettlerBase} from "../../src/input/InputSettlerBase.sol";
import {InputSettlerEscrow} from "../../src/input/escrow/InputSettlerEscrow.sol";
import {ISignatureTransfer} from "../../src/permit2/ISignatureTransfer.sol";
import {IERC3009} from "../../src/tokens/IERC3009.sol";
import {MandateOutput, StandardOrder} from "../../src/types/StandardOrder.sol";
import {EscrowTestBase} from "./EscrowTestBase.sol";

/// @notice Signature binding: a relayer holding a taker's signature cannot open any order but the signed one.
/// Each run changes one field of the signed order (or the sponsor), expects `openFor` to revert, then opens
/// the untouched order with the same signature to show the revert came from the change.
contract EscrowSignatureBindingTest is EscrowTestBase {
    uint8 internal constant FIELD_COUNT = 19;

    address internal relayer = makeAddr("relayer");

    function setUp() public override {
        super.setUp();
        _fundTaker(stranger);
    }

    function testFuzz_permit2_changingAnyFieldOfTheSignedOrderReverts(uint8 field, uint256 seed) public {
        _checkPermit2Binding(field, seed);
    }

    function testFuzz_erc3009_changingAnyFieldOfTheSignedOrderReverts(uint8 field, uint256 seed) public {
        _checkErc3009Binding(field, seed);
    }

    /// Every field at least once, whatever the fuzzer happens to pick.
    function test_everyFieldIsBoundOnBothPaths() public {
        for (uint8 field; field < FIELD_COUNT; ++field) {
            uint256 snapshot = vm.snapshotState();
            _checkPermit2Binding(field, uint256(keccak256(abi.encode(field))));
            vm.revertToState(snapshot);
            _checkErc3009Binding(field, uint256(keccak256(abi.encode(field, "3009"))));
            vm.revertToState(snapshot);
        }
    }

    // ------------------------------------------------------------------------------------------------------

    function _checkPermit2Binding(uint8 field, uint256 seed) internal {
        StandardOrder memory signed = _signedOrder(seed);
        bytes memory signature = _permit2Signature(takerKey, signed);
        (StandardOrder memory tampered, address sponsor) = _tamper(signed, field % FIELD_COUNT, seed);

        vm.expectRevert(_expectedPermit2Error(field % FIELD_COUNT, tampered));
        vm.prank(relayer);
        escrow.openFor(tampered, sponsor, signature);

        _opensUntouched(signed, signature);
    }

    function _checkErc3009Binding(uint8 field, uint256 seed) internal {
        StandardOrder memory signed = _signedOrder(seed);
        bytes memory signature = _erc3009Signature(takerKey, taker, signed);
        (StandardOrder memory tampered, address sponsor) = _tamper(signed, field % FIELD_COUNT, seed);
        bytes memory presented = signature;
        if (tampered.inputs.length > 1) {
            // The relayer reuses the one signature it has for every input.
            bytes[] memory copies = new bytes[](tampered.inputs.length);
            bytes memory raw = _slice(signature, 1);
            for (uint256 i; i < copies.length; ++i) {
                copies[i] = raw;
            }
            presented = abi.encodePacked(bytes1(0x01), abi.encode(copies));
        }

        vm.expectRevert(_expectedErc3009Error(field % FIELD_COUNT, tampered));
        vm.prank(relayer);
        escrow.openFor(tampered, sponsor, presented);

        _opensUntouched(signed, signature);
    }

    function _signedOrder(uint256 seed) internal returns (StandardOrder memory order) {
        order = _order();
        order.outputs[0].callbackData = seed % 2 == 0 ? bytes("") : bytes(hex"abcd");
    }

    function _opensUntouched(StandardOrder memory signed, bytes memory signature) internal {
        vm.prank(relayer);
        escrow.openFor(signed, taker, signature);
        assertEq(uint8(_status(signed)), uint8(InputSettlerEscrow.OrderStatus.Deposited));
    }

    /// @dev Each change keeps the order valid for every check but the signature, except `originChainId`,
    /// which the escrow checks itself.
    function _tamper(StandardOrder memory signed, uint256 field, uint256 seed)
        internal
        view
        returns (StandardOrder memory order, address sponsor)
    {
        order = abi.decode(abi.encode(signed), (StandardOrder));
        sponsor = taker;
        bytes32 flip = bytes32(bound(seed, 1, type(uint160).max));
        MandateOutput memory output = order.outputs[0];

        if (field == 0) {
            order.user = address(uint160(uint256(flip) ^ uint160(taker)));
            if (order.user == address(0)) order.user = stranger;
        }
        else if (field == 1) order.nonce ^= uint256(flip);
        else if (field == 2) order.originChainId ^= uint256(flip);
        else if (field == 3) order.expires += uint32(bound(seed, 1, 365 days));
        else if (field == 4) order.fillDeadline -= uint32(bound(seed, 1, FILL_WINDOW - 2));
        else if (field == 5) order.inputOracle = address(uint160(uint256(flip) ^ uint160(order.inputOracle)));
        else if (field == 6) order.inputs[0][0] = uint256(uint160(address(eurc)));
        else if (field == 7) order.inputs[0][1] = _differentAmount(order.inputs[0][1], seed);
        else if (field == 8) order.inputs = _withExtraInput(order.inputs, seed);
        else if (field == 9) output.oracle ^= flip;
        else if (field == 10) output.settler ^= flip;
        else if (field == 11) output.chainId ^= uint256(flip);
        else if (field == 12) output.token ^= flip;
        else if (field == 13) output.amount = _differentAmount(output.amount, seed);
        else if (field == 14) output.recipient ^= flip;
        else if (field == 15) output.callbackData = abi.encodePacked(output.callbackData, bytes1(uint8(seed)));
        else if (field == 16) output.context = abi.encodePacked(bytes1(uint8(seed)));
        else if (field == 17) order.outputs = _withExtraOutput(order.outputs);
        else sponsor = stranger;
    }

    function _expectedPermit2Error(uint256 field, StandardOrder memory tampered) internal view returns (bytes memory) {
        if (field == 2) return _wrongChain(tampered);
        return abi.encodeWithSelector(ISignatureTransfer.InvalidSigner.selector);
    }

    function _expectedErc3009Error(uint256 field, StandardOrder memory tampered) internal view returns (bytes memory) {
        if (field == 2) return _wrongChain(tampered);
        return abi.encodeWithSelector(IERC3009.InvalidAuthorizationSignature.selector);
    }

    function _wrongChain(StandardOrder memory tampered) internal view returns (bytes memory) {
        return abi.encodeWithSelector(InputSettlerBase.WrongChain.selector, tampered.originChainId, block.chainid);
    }

    function _differentAmount(uint256 amount, uint256 seed) internal pure returns (uint256) {
        uint256 other = bound(seed, 1, amount * 10);
        return other == amount ? amount + 1 : other;
    }

    function _withExtraInput(uint256[2][] memory inputs, uint256 seed) internal view returns (uint256[2][] memory) {
        uint256[2][] memory longer = new uint256[2][](inputs.length + 1);
        for (uint256 i; i < inputs.length; ++i) {
            longer[i] = inputs[i];
        }
        longer[inputs.length] = [uint256(uint160(address(eurc))), bound(seed, 1, 1_000e6)];
        return longer;
    }

    function _withExtraOutput(MandateOutput[] memory outputs) internal view returns (MandateOutput[] memory) {
        MandateOutput[] memory longer = new MandateOutput[](outputs.length + 1);
        for (uint256 i; i < outputs.length; ++i) {
            longer[i] = outputs[i];
        }
        longer[outputs.length] = _output(1, takerRecipient);
        return longer;
    }

    function _slice(bytes memory data, uint256 from) internal pure returns (bytes memory out) {
        out = new bytes(data.length - from);
        for (uint256 i; i < out.length; ++i) {
            out[i] = data[from + i];
        }
    }
}
