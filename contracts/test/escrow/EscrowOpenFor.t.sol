// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {InputSettlerBase} from "../../src/input/InputSettlerBase.sol";
import {InputSettlerEscrow} from "../../src/input/escrow/InputSettlerEscrow.sol";
import {ISignatureTransfer} from "../../src/permit2/ISignatureTransfer.sol";
import {IERC3009} from "../../src/tokens/IERC3009.sol";
import {StandardOrder} from "../../src/types/StandardOrder.sol";
import {FeeOnTransferToken} from "../mocks/FeeOnTransferToken.sol";
import {NoOpToken} from "../mocks/NoOpToken.sol";
import {MockERC1271Wallet} from "../mocks/MockERC1271Wallet.sol";
import {EscrowSigning} from "./EscrowSigning.sol";
import {EscrowTestBase} from "./EscrowTestBase.sol";

/// @notice `openFor`: the Permit2, ERC-3009 and self paths, their replay protection and their deadlines.
contract EscrowOpenForTest is EscrowTestBase {
    address internal relayer = makeAddr("relayer");

    function _openFor(StandardOrder memory order, address sponsor, bytes memory signature) internal {
        vm.prank(relayer);
        escrow.openFor(order, sponsor, signature);
    }

    // ------------------------------------------------------------------------------------------------------
    // Permit2 (0x00)
    // ------------------------------------------------------------------------------------------------------

    function test_openFor_permit2_pullsFromSponsorAndConsumesTheNonce() public {
        StandardOrder memory order = _order();
        bytes32 orderId = _orderId(order);
        bytes memory signature = _permit2Signature(takerKey, order);

        vm.expectEmit(address(escrow));
        emit InputSettlerEscrow.Open(orderId, order);
        _openFor(order, taker, signature);

        assertEq(uint8(escrow.orderStatus(orderId)), uint8(InputSettlerEscrow.OrderStatus.Deposited));
        assertEq(usdc.balanceOf(address(escrow)), INPUT_AMOUNT);
        uint256 bitmap = ISignatureTransfer(PERMIT2).nonceBitmap(taker, order.nonce >> 8);
        assertEq(bitmap & (1 << (order.nonce & 0xff)), 1 << (order.nonce & 0xff), "nonce bit set");
    }

    function test_openFor_permit2_severalInputs() public {
        StandardOrder memory order = _order();
        uint256[2][] memory inputs = new uint256[2][](2);
        inputs[0] = [uint256(uint160(address(usdc))), 100e6];
        inputs[1] = [uint256(uint160(address(eurc))), 200e6];
        order.inputs = inputs;

        _openFor(order, taker, _permit2Signature(takerKey, order));

        assertEq(usdc.balanceOf(address(escrow)), 100e6);
        assertEq(eurc.balanceOf(address(escrow)), 200e6);
    }

    function test_openFor_permit2_revertsOnSignatureOfAnotherKey() public {
        StandardOrder memory order = _order();
        (, uint256 otherKey) = makeAddrAndKey("other");
        bytes memory signature = _permit2Signature(otherKey, order);
        vm.expectRevert(ISignatureTransfer.InvalidSigner.selector);
        _openFor(order, taker, signature);
        assertEq(uint8(_status(order)), uint8(InputSettlerEscrow.OrderStatus.None));
    }

    function test_openFor_permit2_revertsOnTamperedSignature() public {
        StandardOrder memory order = _order();
        bytes memory signature = _permit2Signature(takerKey, order);
        signature[10] = bytes1(uint8(signature[10]) ^ 0x01);
        vm.expectRevert();
        _openFor(order, taker, signature);
        assertEq(uint8(_status(order)), uint8(InputSettlerEscrow.OrderStatus.None));
    }

    function test_openFor_permit2_revertsWhenSignedForAnotherSpender() public {
        StandardOrder memory order = _order();
        bytes memory signature = EscrowSigning.signPermit2(takerKey, order, stranger);
        vm.expectRevert(ISignatureTransfer.InvalidSigner.selector);
        _openFor(order, taker, signature);
    }

    function test_openFor_permit2_revertsWhenTheSponsorIsNotTheSigner() public {
        StandardOrder memory order = _order();
        _fundTaker(stranger);
        bytes memory signature = _permit2Signature(takerKey, order);
        vm.expectRevert(ISignatureTransfer.InvalidSigner.selector);
        _openFor(order, stranger, signature);
    }

    function test_openFor_permit2_replayedNonceRevertsForAnotherOrder() public {
        StandardOrder memory first = _order();
        _openFor(first, taker, _permit2Signature(takerKey, first));

        // Same user and nonce, different outputs: a new order id, but Permit2's nonce is spent.
        StandardOrder memory second = _order();
        second.nonce = first.nonce;
        second.outputs[0].amount = OUTPUT_AMOUNT - 1;
        bytes memory signature = _permit2Signature(takerKey, second);
        vm.expectRevert(ISignatureTransfer.InvalidNonce.selector);
        _openFor(second, taker, signature);
    }

    function test_openFor_permit2_nonceInvalidatedByTheTakerCannotOpen() public {
        StandardOrder memory order = _order();
        bytes memory signature = _permit2Signature(takerKey, order);
        vm.prank(taker);
        ISignatureTransfer(PERMIT2).invalidateUnorderedNonces(order.nonce >> 8, 1 << (order.nonce & 0xff));
        vm.expectRevert(ISignatureTransfer.InvalidNonce.selector);
        _openFor(order, taker, signature);
    }

    function test_openFor_permit2_replayedSignatureRevertsOnTheSameOrder() public {
        StandardOrder memory order = _order();
        bytes memory signature = _permit2Signature(takerKey, order);
        _openFor(order, taker, signature);
        vm.expectRevert(InputSettlerEscrow.InvalidOrderStatus.selector);
        _openFor(order, taker, signature);
    }

    function test_openFor_permit2_sponsorOtherThanUserStillRefundsToUser() public {
        (address sponsor, uint256 sponsorKey) = makeAddrAndKey("sponsor");
        _fundTaker(sponsor);
        StandardOrder memory order = _order();
        _openFor(order, sponsor, _permit2Signature(sponsorKey, order));

        uint256 takerBefore = usdc.balanceOf(taker);
        vm.warp(order.expires + 1);
        escrow.refund(order);
        assertEq(usdc.balanceOf(taker), takerBefore + INPUT_AMOUNT);
    }

    function test_openFor_permit2_smartContractWalletSponsor() public {
        MockERC1271Wallet wallet = new MockERC1271Wallet(taker);
        usdc.mint(address(wallet), INPUT_AMOUNT);
        wallet.approve(usdc, PERMIT2, type(uint256).max);
        StandardOrder memory order = _order();
        order.user = address(wallet);

        _openFor(order, address(wallet), _permit2Signature(takerKey, order));

        assertEq(usdc.balanceOf(address(escrow)), INPUT_AMOUNT);
    }

    function test_openFor_permit2_oneSecondBeforeFillDeadline() public {
        StandardOrder memory order = _order();
        bytes memory signature = _permit2Signature(takerKey, order);
        vm.warp(order.fillDeadline - 1);
        _openFor(order, taker, signature);
        assertEq(uint8(_status(order)), uint8(InputSettlerEscrow.OrderStatus.Deposited));
    }

    /// Permit2's deadline is inclusive, but the escrow's own `now < fillDeadline` rule is stricter.
    function test_openFor_permit2_revertsAtFillDeadline() public {
        StandardOrder memory order = _order();
        bytes memory signature = _permit2Signature(takerKey, order);
        vm.warp(order.fillDeadline);
        vm.expectRevert(InputSettlerBase.TimestampPassed.selector);
        _openFor(order, taker, signature);
    }

    function test_openFor_permit2_revertsOneSecondAfterFillDeadline() public {
        StandardOrder memory order = _order();
        bytes memory signature = _permit2Signature(takerKey, order);
        vm.warp(order.fillDeadline + 1);
        vm.expectRevert(InputSettlerBase.TimestampPassed.selector);
        _openFor(order, taker, signature);
    }

    function test_openFor_permit2_refusesFeeOnTransferToken() public {
        FeeOnTransferToken token = new FeeOnTransferToken("Fee Coin", "FEE", 6, address(this));
        token.mint(taker, 10_000e6);
        vm.prank(taker);
        token.approve(PERMIT2, type(uint256).max);
        StandardOrder memory order = _order();
        order.inputs[0] = [uint256(uint160(address(token))), 1_000e6];
        bytes memory signature = _permit2Signature(takerKey, order);

        vm.expectRevert(
            abi.encodeWithSelector(
                InputSettlerEscrow.InsufficientDeposit.selector, address(token), 1_000e6, token.amountAfterFee(1_000e6)
            )
        );
        _openFor(order, taker, signature);
        // The revert also undid Permit2's nonce: the taker can still use it elsewhere.
        assertEq(ISignatureTransfer(PERMIT2).nonceBitmap(taker, order.nonce >> 8), 0);
    }

    // ------------------------------------------------------------------------------------------------------
    // ERC-3009 (0x01)
    // ------------------------------------------------------------------------------------------------------

    function test_openFor_erc3009_singleInputUsesTheOrderIdAsNonce() public {
        StandardOrder memory order = _order();
        bytes32 orderId = _orderId(order);

        vm.expectEmit(address(escrow));
        emit InputSettlerEscrow.Open(orderId, order);
        _openFor(order, taker, _erc3009Signature(takerKey, taker, order));

        assertEq(usdc.balanceOf(address(escrow)), INPUT_AMOUNT);
        assertTrue(usdc.authorizationState(taker, orderId), "authorization spent");
    }

    function test_openFor_erc3009_singleInputMayAlsoCarryABytesArray() public {
        StandardOrder memory order = _order();
        bytes memory raw = _erc3009Signature(takerKey, taker, order);
        bytes[] memory wrapped = new bytes[](1);
        wrapped[0] = new bytes(raw.length - 1);
        for (uint256 i = 1; i < raw.length; ++i) {
            wrapped[0][i - 1] = raw[i];
        }

        _openFor(order, taker, abi.encodePacked(bytes1(0x01), abi.encode(wrapped)));

        assertEq(usdc.balanceOf(address(escrow)), INPUT_AMOUNT);
    }

    function test_openFor_erc3009_severalInputsCarryABytesArray() public {
        StandardOrder memory order = _order();
        uint256[2][] memory inputs = new uint256[2][](2);
        inputs[0] = [uint256(uint160(address(usdc))), 100e6];
        inputs[1] = [uint256(uint160(address(eurc))), 200e6];
        order.inputs = inputs;

        _openFor(order, taker, _erc3009Signature(takerKey, taker, order));

        assertEq(usdc.balanceOf(address(escrow)), 100e6);
        assertEq(eurc.balanceOf(address(escrow)), 200e6);
    }

    function test_openFor_erc3009_revertsWhenSignatureCountDiffersFromInputs() public {
        StandardOrder memory order = _order();
        uint256[2][] memory inputs = new uint256[2][](2);
        inputs[0] = [uint256(uint160(address(usdc))), 100e6];
        inputs[1] = [uint256(uint160(address(eurc))), 200e6];
        order.inputs = inputs;
        bytes[] memory one = new bytes[](1);
        one[0] = new bytes(65);

        vm.expectRevert(InputSettlerEscrow.SignatureAndInputsNotEqual.selector);
        _openFor(order, taker, abi.encodePacked(bytes1(0x01), abi.encode(one)));
    }

    function test_openFor_erc3009_repeatedTokenCannotReuseTheNonce() public {
        StandardOrder memory order = _order();
        uint256[2][] memory inputs = new uint256[2][](2);
        inputs[0] = [uint256(uint160(address(usdc))), 100e6];
        inputs[1] = [uint256(uint160(address(usdc))), 200e6];
        order.inputs = inputs;
        bytes memory signature = _erc3009Signature(takerKey, taker, order);

        vm.expectRevert(abi.encodeWithSelector(IERC3009.AuthorizationAlreadyUsed.selector, taker, _orderId(order)));
        _openFor(order, taker, signature);
    }

    function test_openFor_erc3009_revertsOnSignatureOfAnotherKey() public {
        StandardOrder memory order = _order();
        (, uint256 otherKey) = makeAddrAndKey("other");
        bytes memory signature = _erc3009Signature(otherKey, taker, order);
        vm.expectRevert(IERC3009.InvalidAuthorizationSignature.selector);
        _openFor(order, taker, signature);
        assertEq(uint8(_status(order)), uint8(InputSettlerEscrow.OrderStatus.None));
    }

    function test_openFor_erc3009_canceledAuthorizationCannotOpen() public {
        StandardOrder memory order = _order();
        bytes32 orderId = _orderId(order);
        bytes memory signature = _erc3009Signature(takerKey, taker, order);
        bytes32 digest = keccak256(
            abi.encodePacked(
                "\x19\x01",
                usdc.DOMAIN_SEPARATOR(),
                keccak256(abi.encode(usdc.CANCEL_AUTHORIZATION_TYPEHASH(), taker, orderId))
            )
        );
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(takerKey, digest);
        usdc.cancelAuthorization(taker, orderId, abi.encodePacked(r, s, v));

        vm.expectRevert(abi.encodeWithSelector(IERC3009.AuthorizationAlreadyUsed.selector, taker, orderId));
        _openFor(order, taker, signature);
    }

    function test_openFor_erc3009_smartContractWalletSponsor() public {
        MockERC1271Wallet wallet = new MockERC1271Wallet(taker);
        usdc.mint(address(wallet), INPUT_AMOUNT);
        StandardOrder memory order = _order();
        order.user = address(wallet);

        _openFor(order, address(wallet), _erc3009Signature(takerKey, address(wallet), order));

        assertEq(usdc.balanceOf(address(escrow)), INPUT_AMOUNT);
    }

    function test_openFor_erc3009_oneSecondBeforeFillDeadline() public {
        StandardOrder memory order = _order();
        bytes memory signature = _erc3009Signature(takerKey, taker, order);
        vm.warp(order.fillDeadline - 1);
        _openFor(order, taker, signature);
        assertEq(uint8(_status(order)), uint8(InputSettlerEscrow.OrderStatus.Deposited));
    }

    /// validBefore = fillDeadline is exclusive, like the escrow's own rule; the escrow answers first.
    function test_openFor_erc3009_revertsAtFillDeadline() public {
        StandardOrder memory order = _order();
        bytes memory signature = _erc3009Signature(takerKey, taker, order);
        vm.warp(order.fillDeadline);
        vm.expectRevert(InputSettlerBase.TimestampPassed.selector);
        _openFor(order, taker, signature);
    }

    function test_openFor_erc3009_revertsOneSecondAfterFillDeadline() public {
        StandardOrder memory order = _order();
        bytes memory signature = _erc3009Signature(takerKey, taker, order);
        vm.warp(order.fillDeadline + 1);
        vm.expectRevert(InputSettlerBase.TimestampPassed.selector);
        _openFor(order, taker, signature);
    }

    function test_openFor_erc3009_refusesTokenThatMovesNothing() public {
        NoOpToken token = new NoOpToken("No Op", "NOP", 6);
        token.mint(taker, 10_000e6);
        StandardOrder memory order = _order();
        order.inputs[0] = [uint256(uint160(address(token))), 1_000e6];
        bytes memory signature = _erc3009Signature(takerKey, taker, order);

        vm.expectRevert(
            abi.encodeWithSelector(InputSettlerEscrow.InsufficientDeposit.selector, address(token), 1_000e6, 0)
        );
        _openFor(order, taker, signature);
        assertEq(uint8(_status(order)), uint8(InputSettlerEscrow.OrderStatus.None));
    }

    function test_openFor_erc3009_refusesFeeOnTransferToken() public {
        FeeOnTransferToken token = new FeeOnTransferToken("Fee Coin", "FEE", 6, address(this));
        token.mint(taker, 10_000e6);
        StandardOrder memory order = _order();
        order.inputs[0] = [uint256(uint160(address(token))), 1_000e6];
        bytes memory signature = _erc3009Signature(takerKey, taker, order);

        vm.expectRevert(
            abi.encodeWithSelector(
                InputSettlerEscrow.InsufficientDeposit.selector, address(token), 1_000e6, token.amountAfterFee(1_000e6)
            )
        );
        _openFor(order, taker, signature);
    }

    // ------------------------------------------------------------------------------------------------------
    // Self (0xff) and unknown types
    // ------------------------------------------------------------------------------------------------------

    function test_openFor_self_pullsFromTheCallingSponsor() public {
        StandardOrder memory order = _order();
        vm.prank(taker);
        escrow.openFor(order, taker, hex"ff");
        assertEq(usdc.balanceOf(address(escrow)), INPUT_AMOUNT);
        assertEq(uint8(_status(order)), uint8(InputSettlerEscrow.OrderStatus.Deposited));
    }

    function test_openFor_self_revertsWhenCallerIsNotTheSponsor() public {
        StandardOrder memory order = _order();
        vm.expectRevert(abi.encodeWithSelector(InputSettlerEscrow.SignatureNotSupported.selector, bytes1(0xff)));
        _openFor(order, taker, hex"ff");
        assertEq(usdc.balanceOf(address(escrow)), 0);
    }

    function test_openFor_emptySignatureMeansSelf() public {
        StandardOrder memory order = _order();
        vm.prank(taker);
        escrow.openFor(order, taker, "");
        assertEq(usdc.balanceOf(address(escrow)), INPUT_AMOUNT);
    }

    function test_openFor_emptySignatureRevertsWhenCallerIsNotTheSponsor() public {
        StandardOrder memory order = _order();
        vm.expectRevert(abi.encodeWithSelector(InputSettlerEscrow.SignatureNotSupported.selector, bytes1(0xff)));
        _openFor(order, taker, "");
    }

    function testFuzz_openFor_revertsOnUnknownSignatureType(uint8 signatureType) public {
        vm.assume(signatureType != 0x00 && signatureType != 0x01 && signatureType != 0xff);
        StandardOrder memory order = _order();
        vm.expectRevert(abi.encodeWithSelector(InputSettlerEscrow.SignatureNotSupported.selector, bytes1(signatureType)));
        _openFor(order, taker, abi.encodePacked(bytes1(signatureType), new bytes(65)));
    }

    function test_openFor_appliesTheOpenChecks() public {
        StandardOrder memory order = _order();
        order.user = address(0);
        bytes memory signature = _permit2Signature(takerKey, order);
        vm.expectRevert(InputSettlerEscrow.ZeroUser.selector);
        _openFor(order, taker, signature);
    }
}
