// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {Permit2TestBase} from "./Permit2TestBase.sol";
import {OrderFixture} from "./OrderFixture.sol";
import {StandardOrder} from "../../src/types/StandardOrder.sol";
import {ISignatureTransfer} from "../../src/permit2/ISignatureTransfer.sol";
import {Permit2WitnessLib} from "../../src/libraries/Permit2WitnessLib.sol";

/// @notice The escrow's use of Permit2: a taker signs PermitBatchWitnessTransferFrom for a StandardOrder
/// (Permit2Signer), the escrow redeems it with the order witness.
contract Permit2OrderWitnessTest is Permit2TestBase {
    address internal escrow = makeAddr("escrow");
    uint32 internal fillDeadline;

    function setUp() public override {
        super.setUp();
        fillDeadline = uint32(block.timestamp + 1 hours);
    }

    /// A fresh copy per call: legacy codegen cannot keep nested order structs in storage.
    function _order() internal view returns (StandardOrder memory) {
        return OrderFixture.twoInputOrder(owner, address(usdc), address(eurc), fillDeadline);
    }

    function test_orderSignature_pullsEveryInputIntoEscrow() public {
        StandardOrder memory order = _order();
        bytes memory sig = signPermit2Order(OWNER_KEY, order, escrow);
        _open(order, sig);

        assertEq(usdc.balanceOf(escrow), 100e6);
        assertEq(eurc.balanceOf(escrow), 50e6);
        assertEq(permit2.nonceBitmap(owner, order.nonce >> 8), 2 ** (order.nonce & 0xff));
    }

    function test_orderSignature_openForPrefixIsZeroByte() public view {
        StandardOrder memory order = _order();
        bytes memory arg = permit2OpenForSignature(OWNER_KEY, order, escrow);
        assertEq(arg.length, 66);
        assertEq(uint8(arg[0]), 0);
    }

    /// An independent EIP-712 implementation (forge's, from the JSON typed data a wallet would get) must
    /// agree with the helper's digest, so viem's signTypedData produces signatures the contract accepts.
    function test_orderDigest_matchesTypedDataJson() public view {
        StandardOrder memory order = _order();
        assertEq(vm.eip712HashTypedData(_typedDataJson(order, escrow)), permit2OrderDigest(order, escrow));
    }

    function test_orderSignature_revertsWhenReplayed() public {
        StandardOrder memory order = _order();
        bytes memory sig = signPermit2Order(OWNER_KEY, order, escrow);
        _open(order, sig);
        vm.expectRevert(ISignatureTransfer.InvalidNonce.selector);
        _open(order, sig);
    }

    function test_orderSignature_revertsForOtherEscrow() public {
        StandardOrder memory order = _order();
        bytes memory sig = signPermit2Order(OWNER_KEY, order, escrow);
        vm.prank(makeAddr("other-escrow"));
        vm.expectRevert(ISignatureTransfer.InvalidSigner.selector);
        permit2.permitWitnessTransferFrom(
            orderPermit(order),
            OrderFixture.pullAll(order, escrow),
            owner,
            Permit2WitnessLib.witnessHashMemory(order),
            Permit2WitnessLib.PERMIT2_WITNESS_TYPE_STRING,
            sig
        );
    }

    /// Permit2 deadline = fillDeadline, inclusive.
    function test_orderSignature_fillDeadlineEdges() public {
        StandardOrder memory order = _order();
        bytes memory sig = signPermit2Order(OWNER_KEY, order, escrow);
        uint256 snapshot = vm.snapshotState();

        vm.warp(order.fillDeadline - 1);
        _open(order, sig);
        vm.revertToState(snapshot);

        vm.warp(order.fillDeadline);
        _open(order, sig);
        vm.revertToState(snapshot);

        vm.warp(uint256(order.fillDeadline) + 1);
        vm.expectRevert(abi.encodeWithSelector(ISignatureTransfer.SignatureExpired.selector, order.fillDeadline));
        _open(order, sig);
    }

    function test_orderSignature_revertsWhenUserChanged() public {
        StandardOrder memory order = _order();
        bytes memory sig = signPermit2Order(OWNER_KEY, order, escrow);
        order.user = makeAddr("refund-thief");
        vm.expectRevert(ISignatureTransfer.InvalidSigner.selector);
        _open(order, sig);
    }

    function test_orderSignature_revertsWhenOutputRecipientChanged() public {
        StandardOrder memory order = _order();
        bytes memory sig = signPermit2Order(OWNER_KEY, order, escrow);
        order.outputs[0].recipient = bytes32(uint256(0xBAD));
        vm.expectRevert(ISignatureTransfer.InvalidSigner.selector);
        _open(order, sig);
    }

    function test_orderSignature_revertsWhenInputAmountChanged() public {
        StandardOrder memory order = _order();
        bytes memory sig = signPermit2Order(OWNER_KEY, order, escrow);
        order.inputs[1][1] += 1;
        vm.expectRevert(ISignatureTransfer.InvalidSigner.selector);
        _open(order, sig);
    }

    /// originChainId is not in the Permit2 message: the Permit2 domain's chainId already binds the chain,
    /// and the escrow checks the field against block.chainid itself.
    function test_orderSignature_originChainIdIsNotSigned() public {
        StandardOrder memory order = _order();
        bytes memory sig = signPermit2Order(OWNER_KEY, order, escrow);
        order.originChainId = 999;
        _open(order, sig);
        assertEq(usdc.balanceOf(escrow), 100e6);
    }

    function _open(StandardOrder memory o, bytes memory sig) internal {
        vm.prank(escrow);
        permit2.permitWitnessTransferFrom(
            orderPermit(o),
            OrderFixture.pullAll(o, escrow),
            owner,
            Permit2WitnessLib.witnessHashMemory(o),
            Permit2WitnessLib.PERMIT2_WITNESS_TYPE_STRING,
            sig
        );
    }

    function _typedDataJson(StandardOrder memory o, address spender_) internal view returns (string memory) {
        string memory types = string.concat(
            '{"EIP712Domain":[{"name":"name","type":"string"},{"name":"chainId","type":"uint256"},{"name":"verifyingContract","type":"address"}],',
            '"PermitBatchWitnessTransferFrom":[{"name":"permitted","type":"TokenPermissions[]"},{"name":"spender","type":"address"},{"name":"nonce","type":"uint256"},{"name":"deadline","type":"uint256"},{"name":"witness","type":"Permit2Witness"}],',
            '"TokenPermissions":[{"name":"token","type":"address"},{"name":"amount","type":"uint256"}],',
            '"Permit2Witness":[{"name":"user","type":"address"},{"name":"expires","type":"uint32"},{"name":"inputOracle","type":"address"},{"name":"outputs","type":"MandateOutput[]"}],',
            '"MandateOutput":[{"name":"oracle","type":"bytes32"},{"name":"settler","type":"bytes32"},{"name":"chainId","type":"uint256"},{"name":"token","type":"bytes32"},{"name":"amount","type":"uint256"},{"name":"recipient","type":"bytes32"},{"name":"callbackData","type":"bytes"},{"name":"context","type":"bytes"}]}'
        );
        string memory domain = string.concat(
            '{"name":"Permit2","chainId":', vm.toString(block.chainid), ',"verifyingContract":"', vm.toString(PERMIT2), '"}'
        );
        string memory permitted = "[";
        for (uint256 i; i < o.inputs.length; ++i) {
            permitted = string.concat(
                permitted,
                i == 0 ? "" : ",",
                '{"token":"',
                vm.toString(address(uint160(o.inputs[i][0]))),
                '","amount":"',
                vm.toString(o.inputs[i][1]),
                '"}'
            );
        }
        permitted = string.concat(permitted, "]");
        string memory outputs = "[";
        for (uint256 i; i < o.outputs.length; ++i) {
            outputs = string.concat(outputs, i == 0 ? "" : ",", _outputJson(o, i));
        }
        outputs = string.concat(outputs, "]");
        string memory witness = string.concat(
            '{"user":"',
            vm.toString(o.user),
            '","expires":',
            vm.toString(uint256(o.expires)),
            ',"inputOracle":"',
            vm.toString(o.inputOracle),
            '","outputs":',
            outputs,
            "}"
        );
        string memory message = string.concat(
            '{"permitted":',
            permitted,
            ',"spender":"',
            vm.toString(spender_),
            '","nonce":"',
            vm.toString(o.nonce),
            '","deadline":"',
            vm.toString(uint256(o.fillDeadline)),
            '","witness":',
            witness,
            "}"
        );
        return string.concat(
            '{"types":',
            types,
            ',"primaryType":"PermitBatchWitnessTransferFrom","domain":',
            domain,
            ',"message":',
            message,
            "}"
        );
    }

    function _outputJson(StandardOrder memory o, uint256 i) private pure returns (string memory) {
        return string.concat(
            '{"oracle":"',
            vm.toString(o.outputs[i].oracle),
            '","settler":"',
            vm.toString(o.outputs[i].settler),
            '","chainId":"',
            vm.toString(o.outputs[i].chainId),
            '","token":"',
            vm.toString(o.outputs[i].token),
            '","amount":"',
            vm.toString(o.outputs[i].amount),
            '","recipient":"',
            vm.toString(o.outputs[i].recipient),
            '","callbackData":"',
            vm.toString(o.outputs[i].callbackData),
            '","context":"',
            vm.toString(o.outputs[i].context),
            '"}'
        );
    }
}
