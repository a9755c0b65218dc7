// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {IERC20Errors} from "@openzeppelin/contracts/interfaces/draft-IERC6093.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {Permit2TestBase} from "./Permit2TestBase.sol";
import {ISignatureTransfer} from "../../src/permit2/ISignatureTransfer.sol";
import {PermitHashLib} from "../../src/permit2/PermitHashLib.sol";
import {NoReturnToken} from "../mocks/NoReturnToken.sol";
import {FalseReturnToken} from "../mocks/FalseReturnToken.sol";
import {MockERC1271Wallet} from "../mocks/MockERC1271Wallet.sol";

/// @notice Unit tests of every SignatureTransfer function: success paths and each revert.
contract SignatureTransferTest is Permit2TestBase {
    // ---------------------------------------------------------------- typehashes and domain

    function test_typehashes_matchPermit2() public pure {
        assertEq(PermitHashLib.TOKEN_PERMISSIONS_TYPEHASH, 0x618358ac3db8dc274f0cd8829da7e234bd48cd73c4a740aede1adec9846d06a1);
        assertEq(
            PermitHashLib.PERMIT_TRANSFER_FROM_TYPEHASH, 0x939c21a48a8dbe3a9a2404a1d46691e4d39f6583d6ec6b35714604c986d80106
        );
        assertEq(
            PermitHashLib.PERMIT_BATCH_TRANSFER_FROM_TYPEHASH,
            0xfcf35f5ac6a2c28868dc44c302166470266239195f02b0ee408334829333b766
        );
        assertEq(PERMIT2_DOMAIN_TYPEHASH, 0x8cad95687ba82c2ce50e74f7b754645e5117c3a5bec8151c0726d5857980a866);
    }

    function test_orderWitnessTypehash_isStubPlusWitnessTypeString() public pure {
        assertEq(
            keccak256(
                abi.encodePacked(
                    PermitHashLib.PERMIT_BATCH_WITNESS_TRANSFER_FROM_TYPEHASH_STUB,
                    "Permit2Witness witness)MandateOutput(bytes32 oracle,bytes32 settler,uint256 chainId,bytes32 token,uint256 amount,bytes32 recipient,bytes callbackData,bytes context)Permit2Witness(address user,uint32 expires,address inputOracle,MandateOutput[] outputs)TokenPermissions(address token,uint256 amount)"
                )
            ),
            PERMIT_BATCH_ORDER_WITNESS_TYPEHASH
        );
    }

    function test_domainSeparator_isNameChainIdAndAddressWithoutVersion() public view {
        bytes32 expected = keccak256(
            abi.encode(
                keccak256("EIP712Domain(string name,uint256 chainId,address verifyingContract)"),
                keccak256("Permit2"),
                block.chainid,
                PERMIT2
            )
        );
        assertEq(permit2.DOMAIN_SEPARATOR(), expected);
    }

    // ---------------------------------------------------------------- permitTransferFrom (single)

    function test_permitTransferFrom_movesRequestedAmountToRecipient() public {
        ISignatureTransfer.PermitTransferFrom memory permit = singlePermit(address(usdc), 100e6, 0, DEADLINE);
        bytes memory sig = signDigest(OWNER_KEY, singleDigest(permit, spender));

        vm.prank(spender);
        permit2.permitTransferFrom(permit, details(recipient, 60e6), owner, sig);

        assertEq(usdc.balanceOf(recipient), 60e6);
        assertEq(usdc.balanceOf(owner), START_BALANCE - 60e6);
        assertEq(permit2.nonceBitmap(owner, 0), 1);
    }

    function test_permitTransferFrom_acceptsCompactSignature() public {
        ISignatureTransfer.PermitTransferFrom memory permit = singlePermit(address(usdc), 100e6, 7, DEADLINE);
        bytes memory sig = signDigestCompact(OWNER_KEY, singleDigest(permit, spender));
        assertEq(sig.length, 64);

        vm.prank(spender);
        permit2.permitTransferFrom(permit, details(recipient, 100e6), owner, sig);
        assertEq(usdc.balanceOf(recipient), 100e6);
    }

    function test_permitTransferFrom_revertsWhenAmountAboveSigned() public {
        ISignatureTransfer.PermitTransferFrom memory permit = singlePermit(address(usdc), 100e6, 0, DEADLINE);
        bytes memory sig = signDigest(OWNER_KEY, singleDigest(permit, spender));

        vm.prank(spender);
        vm.expectRevert(abi.encodeWithSelector(ISignatureTransfer.InvalidAmount.selector, 100e6));
        permit2.permitTransferFrom(permit, details(recipient, 100e6 + 1), owner, sig);
    }

    function test_permitTransferFrom_deadlineOneSecondBefore() public {
        _transferAt(DEADLINE - 1);
        assertEq(usdc.balanceOf(recipient), 1e6);
    }

    function test_permitTransferFrom_deadlineItselfIsValid() public {
        _transferAt(DEADLINE);
        assertEq(usdc.balanceOf(recipient), 1e6);
    }

    function test_permitTransferFrom_revertsOneSecondAfterDeadline() public {
        vm.expectRevert(abi.encodeWithSelector(ISignatureTransfer.SignatureExpired.selector, DEADLINE));
        _transferAt(DEADLINE + 1);
    }

    function test_permitTransferFrom_revertsOnReplay() public {
        ISignatureTransfer.PermitTransferFrom memory permit = singlePermit(address(usdc), 100e6, 42, DEADLINE);
        bytes memory sig = signDigest(OWNER_KEY, singleDigest(permit, spender));
        vm.prank(spender);
        permit2.permitTransferFrom(permit, details(recipient, 50e6), owner, sig);

        vm.prank(spender);
        vm.expectRevert(ISignatureTransfer.InvalidNonce.selector);
        permit2.permitTransferFrom(permit, details(recipient, 50e6), owner, sig);
    }

    function test_permitTransferFrom_revertsForOtherKey() public {
        ISignatureTransfer.PermitTransferFrom memory permit = singlePermit(address(usdc), 100e6, 0, DEADLINE);
        bytes memory sig = signDigest(OTHER_KEY, singleDigest(permit, spender));

        vm.prank(spender);
        vm.expectRevert(ISignatureTransfer.InvalidSigner.selector);
        permit2.permitTransferFrom(permit, details(recipient, 1), owner, sig);
    }

    function test_permitTransferFrom_revertsForOtherSpender() public {
        ISignatureTransfer.PermitTransferFrom memory permit = singlePermit(address(usdc), 100e6, 0, DEADLINE);
        bytes memory sig = signDigest(OWNER_KEY, singleDigest(permit, spender));

        vm.prank(makeAddr("front-runner"));
        vm.expectRevert(ISignatureTransfer.InvalidSigner.selector);
        permit2.permitTransferFrom(permit, details(recipient, 1), owner, sig);
    }

    function test_permitTransferFrom_revertsOnBadSignatureLength() public {
        ISignatureTransfer.PermitTransferFrom memory permit = singlePermit(address(usdc), 100e6, 0, DEADLINE);
        bytes memory sig = signDigest(OWNER_KEY, singleDigest(permit, spender));

        vm.startPrank(spender);
        vm.expectRevert(ISignatureTransfer.InvalidSignatureLength.selector);
        permit2.permitTransferFrom(permit, details(recipient, 1), owner, bytes.concat(sig, hex"00"));
        vm.expectRevert(ISignatureTransfer.InvalidSignatureLength.selector);
        permit2.permitTransferFrom(permit, details(recipient, 1), owner, "");
        vm.stopPrank();
    }

    function test_permitTransferFrom_revertsWhenSignatureRecoversNobody() public {
        ISignatureTransfer.PermitTransferFrom memory permit = singlePermit(address(usdc), 100e6, 0, DEADLINE);
        (, bytes32 r, bytes32 s) = vm.sign(OWNER_KEY, singleDigest(permit, spender));

        vm.prank(spender);
        vm.expectRevert(ISignatureTransfer.InvalidSignature.selector);
        permit2.permitTransferFrom(permit, details(recipient, 1), owner, abi.encodePacked(r, s, uint8(29)));
    }

    function test_permitTransferFrom_revertsWithoutAllowance() public {
        vm.prank(owner);
        usdc.approve(PERMIT2, 10);
        ISignatureTransfer.PermitTransferFrom memory permit = singlePermit(address(usdc), 100, 0, DEADLINE);
        bytes memory sig = signDigest(OWNER_KEY, singleDigest(permit, spender));

        vm.prank(spender);
        vm.expectRevert(abi.encodeWithSelector(IERC20Errors.ERC20InsufficientAllowance.selector, PERMIT2, 10, 11));
        permit2.permitTransferFrom(permit, details(recipient, 11), owner, sig);
        assertEq(permit2.nonceBitmap(owner, 0), 0, "a failed transfer leaves the nonce unused");
    }

    function test_permitTransferFrom_worksWithTokenReturningNothing() public {
        NoReturnToken token = new NoReturnToken();
        token.mint(owner, 500);
        vm.prank(owner);
        token.approve(PERMIT2, 500);
        ISignatureTransfer.PermitTransferFrom memory permit = singlePermit(address(token), 500, 0, DEADLINE);
        bytes memory sig = signDigest(OWNER_KEY, singleDigest(permit, spender));

        vm.prank(spender);
        permit2.permitTransferFrom(permit, details(recipient, 500), owner, sig);
        assertEq(token.balanceOf(recipient), 500);
    }

    function test_permitTransferFrom_revertsWhenTokenReturnsFalse() public {
        FalseReturnToken token = new FalseReturnToken();
        ISignatureTransfer.PermitTransferFrom memory permit = singlePermit(address(token), 500, 0, DEADLINE);
        bytes memory sig = signDigest(OWNER_KEY, singleDigest(permit, spender));

        vm.prank(spender);
        vm.expectRevert(abi.encodeWithSelector(SafeERC20.SafeERC20FailedOperation.selector, address(token)));
        permit2.permitTransferFrom(permit, details(recipient, 500), owner, sig);
    }

    function test_permitTransferFrom_revertsWhenTokenHasNoCode() public {
        address notAToken = makeAddr("not-a-token");
        ISignatureTransfer.PermitTransferFrom memory permit = singlePermit(notAToken, 500, 0, DEADLINE);
        bytes memory sig = signDigest(OWNER_KEY, singleDigest(permit, spender));

        vm.prank(spender);
        vm.expectRevert(abi.encodeWithSelector(SafeERC20.SafeERC20FailedOperation.selector, notAToken));
        permit2.permitTransferFrom(permit, details(recipient, 500), owner, sig);
    }

    function test_permitTransferFrom_contractWalletSignsThroughErc1271() public {
        MockERC1271Wallet wallet = new MockERC1271Wallet(owner);
        usdc.mint(address(wallet), 100);
        wallet.approve(IERC20(address(usdc)), PERMIT2, 100);
        ISignatureTransfer.PermitTransferFrom memory permit = singlePermit(address(usdc), 100, 0, DEADLINE);
        bytes memory sig = signDigest(OWNER_KEY, singleDigest(permit, spender));

        vm.prank(spender);
        permit2.permitTransferFrom(permit, details(recipient, 100), address(wallet), sig);
        assertEq(usdc.balanceOf(recipient), 100);
    }

    function test_permitTransferFrom_revertsWhenContractWalletRefuses() public {
        MockERC1271Wallet wallet = new MockERC1271Wallet(owner);
        usdc.mint(address(wallet), 100);
        wallet.approve(IERC20(address(usdc)), PERMIT2, 100);
        ISignatureTransfer.PermitTransferFrom memory permit = singlePermit(address(usdc), 100, 0, DEADLINE);
        bytes memory sig = signDigest(OTHER_KEY, singleDigest(permit, spender));

        vm.prank(spender);
        vm.expectRevert(ISignatureTransfer.InvalidContractSignature.selector);
        permit2.permitTransferFrom(permit, details(recipient, 100), address(wallet), sig);
    }

    // ---------------------------------------------------------------- permitWitnessTransferFrom (single)

    function test_permitWitnessTransferFrom_single_succeeds() public {
        ISignatureTransfer.PermitTransferFrom memory permit = singlePermit(address(usdc), 100e6, 1, DEADLINE);
        bytes memory sig =
            signDigest(OWNER_KEY, singleWitnessDigest(permit, spender, mockWitness(7), MOCK_WITNESS_TYPE_STRING));

        vm.prank(spender);
        permit2.permitWitnessTransferFrom(
            permit, details(recipient, 100e6), owner, mockWitness(7), MOCK_WITNESS_TYPE_STRING, sig
        );
        assertEq(usdc.balanceOf(recipient), 100e6);
    }

    function test_permitWitnessTransferFrom_single_revertsOnOtherWitness() public {
        ISignatureTransfer.PermitTransferFrom memory permit = singlePermit(address(usdc), 100e6, 1, DEADLINE);
        bytes memory sig =
            signDigest(OWNER_KEY, singleWitnessDigest(permit, spender, mockWitness(7), MOCK_WITNESS_TYPE_STRING));

        vm.prank(spender);
        vm.expectRevert(ISignatureTransfer.InvalidSigner.selector);
        permit2.permitWitnessTransferFrom(
            permit, details(recipient, 100e6), owner, mockWitness(8), MOCK_WITNESS_TYPE_STRING, sig
        );
    }

    function test_permitWitnessTransferFrom_single_revertsOnOtherWitnessTypeString() public {
        ISignatureTransfer.PermitTransferFrom memory permit = singlePermit(address(usdc), 100e6, 1, DEADLINE);
        bytes memory sig =
            signDigest(OWNER_KEY, singleWitnessDigest(permit, spender, mockWitness(7), MOCK_WITNESS_TYPE_STRING));

        vm.prank(spender);
        vm.expectRevert(ISignatureTransfer.InvalidSigner.selector);
        permit2.permitWitnessTransferFrom(
            permit,
            details(recipient, 100e6),
            owner,
            mockWitness(7),
            "MockWitness witness)MockWitness(uint256 amount)TokenPermissions(address token,uint256 amount)",
            sig
        );
    }

    function test_permitWitnessTransferFrom_single_signatureWithoutWitnessDoesNotVerify() public {
        ISignatureTransfer.PermitTransferFrom memory permit = singlePermit(address(usdc), 100e6, 1, DEADLINE);
        bytes memory sig = signDigest(OWNER_KEY, singleDigest(permit, spender));

        vm.prank(spender);
        vm.expectRevert(ISignatureTransfer.InvalidSigner.selector);
        permit2.permitWitnessTransferFrom(
            permit, details(recipient, 100e6), owner, mockWitness(7), MOCK_WITNESS_TYPE_STRING, sig
        );
    }

    function test_permitWitnessTransferFrom_single_revertsAfterDeadline() public {
        ISignatureTransfer.PermitTransferFrom memory permit = singlePermit(address(usdc), 100e6, 1, DEADLINE);
        bytes memory sig =
            signDigest(OWNER_KEY, singleWitnessDigest(permit, spender, mockWitness(7), MOCK_WITNESS_TYPE_STRING));

        vm.warp(DEADLINE + 1);
        vm.prank(spender);
        vm.expectRevert(abi.encodeWithSelector(ISignatureTransfer.SignatureExpired.selector, DEADLINE));
        permit2.permitWitnessTransferFrom(
            permit, details(recipient, 100e6), owner, mockWitness(7), MOCK_WITNESS_TYPE_STRING, sig
        );
    }

    function test_permitWitnessTransferFrom_single_revertsWhenAmountAboveSigned() public {
        ISignatureTransfer.PermitTransferFrom memory permit = singlePermit(address(usdc), 100e6, 1, DEADLINE);
        bytes memory sig =
            signDigest(OWNER_KEY, singleWitnessDigest(permit, spender, mockWitness(7), MOCK_WITNESS_TYPE_STRING));

        vm.prank(spender);
        vm.expectRevert(abi.encodeWithSelector(ISignatureTransfer.InvalidAmount.selector, 100e6));
        permit2.permitWitnessTransferFrom(
            permit, details(recipient, 100e6 + 1), owner, mockWitness(7), MOCK_WITNESS_TYPE_STRING, sig
        );
    }

    function test_permitWitnessTransferFrom_single_revertsOnReplay() public {
        ISignatureTransfer.PermitTransferFrom memory permit = singlePermit(address(usdc), 100e6, 1, DEADLINE);
        bytes memory sig =
            signDigest(OWNER_KEY, singleWitnessDigest(permit, spender, mockWitness(7), MOCK_WITNESS_TYPE_STRING));
        vm.startPrank(spender);
        permit2.permitWitnessTransferFrom(
            permit, details(recipient, 1e6), owner, mockWitness(7), MOCK_WITNESS_TYPE_STRING, sig
        );
        vm.expectRevert(ISignatureTransfer.InvalidNonce.selector);
        permit2.permitWitnessTransferFrom(
            permit, details(recipient, 1e6), owner, mockWitness(7), MOCK_WITNESS_TYPE_STRING, sig
        );
        vm.stopPrank();
    }

    // ---------------------------------------------------------------- permitTransferFrom (batch)

    function test_permitTransferFrom_batch_movesEveryToken() public {
        ISignatureTransfer.PermitBatchTransferFrom memory permit = batchPermit(100e6, 200e6, 3, DEADLINE);
        bytes memory sig = signDigest(OWNER_KEY, batchDigest(permit, spender));

        vm.prank(spender);
        permit2.permitTransferFrom(permit, batchDetails(recipient, 100e6, 150e6), owner, sig);

        assertEq(usdc.balanceOf(recipient), 100e6);
        assertEq(eurc.balanceOf(recipient), 150e6);
    }

    function test_permitTransferFrom_batch_zeroRequestSkipsToken() public {
        ISignatureTransfer.PermitBatchTransferFrom memory permit = batchPermit(100e6, 200e6, 3, DEADLINE);
        bytes memory sig = signDigest(OWNER_KEY, batchDigest(permit, spender));
        vm.prank(owner);
        eurc.approve(PERMIT2, 0);

        vm.prank(spender);
        permit2.permitTransferFrom(permit, batchDetails(recipient, 100e6, 0), owner, sig);

        assertEq(usdc.balanceOf(recipient), 100e6);
        assertEq(eurc.balanceOf(owner), START_BALANCE);
    }

    function test_permitTransferFrom_batch_sendsEachTokenToItsRecipient() public {
        ISignatureTransfer.PermitBatchTransferFrom memory permit = batchPermit(100e6, 200e6, 3, DEADLINE);
        bytes memory sig = signDigest(OWNER_KEY, batchDigest(permit, spender));
        ISignatureTransfer.SignatureTransferDetails[] memory list = batchDetails(recipient, 1, 2);
        address second = makeAddr("second");
        list[1].to = second;

        vm.prank(spender);
        permit2.permitTransferFrom(permit, list, owner, sig);
        assertEq(usdc.balanceOf(recipient), 1);
        assertEq(eurc.balanceOf(second), 2);
    }

    function test_permitTransferFrom_batch_revertsOnLengthMismatch() public {
        ISignatureTransfer.PermitBatchTransferFrom memory permit = batchPermit(100e6, 200e6, 3, DEADLINE);
        bytes memory sig = signDigest(OWNER_KEY, batchDigest(permit, spender));
        ISignatureTransfer.SignatureTransferDetails[] memory one = new ISignatureTransfer.SignatureTransferDetails[](1);
        one[0] = details(recipient, 1);

        vm.prank(spender);
        vm.expectRevert(ISignatureTransfer.LengthMismatch.selector);
        permit2.permitTransferFrom(permit, one, owner, sig);
    }

    function test_permitTransferFrom_batch_revertsWhenAnyAmountAboveSigned() public {
        ISignatureTransfer.PermitBatchTransferFrom memory permit = batchPermit(100e6, 200e6, 3, DEADLINE);
        bytes memory sig = signDigest(OWNER_KEY, batchDigest(permit, spender));

        vm.prank(spender);
        vm.expectRevert(abi.encodeWithSelector(ISignatureTransfer.InvalidAmount.selector, 200e6));
        permit2.permitTransferFrom(permit, batchDetails(recipient, 100e6, 200e6 + 1), owner, sig);
        assertEq(usdc.balanceOf(recipient), 0, "the whole batch reverts");
    }

    function test_permitTransferFrom_batch_deadlineEdges() public {
        ISignatureTransfer.PermitBatchTransferFrom memory permit = batchPermit(100e6, 200e6, 3, DEADLINE);
        bytes memory sig = signDigest(OWNER_KEY, batchDigest(permit, spender));
        uint256 snapshot = vm.snapshotState();

        vm.warp(DEADLINE - 1);
        vm.prank(spender);
        permit2.permitTransferFrom(permit, batchDetails(recipient, 1, 1), owner, sig);
        vm.revertToState(snapshot);

        vm.warp(DEADLINE);
        vm.prank(spender);
        permit2.permitTransferFrom(permit, batchDetails(recipient, 1, 1), owner, sig);
        vm.revertToState(snapshot);

        vm.warp(DEADLINE + 1);
        vm.prank(spender);
        vm.expectRevert(abi.encodeWithSelector(ISignatureTransfer.SignatureExpired.selector, DEADLINE));
        permit2.permitTransferFrom(permit, batchDetails(recipient, 1, 1), owner, sig);
    }

    function test_permitTransferFrom_batch_revertsOnReplay() public {
        ISignatureTransfer.PermitBatchTransferFrom memory permit = batchPermit(100e6, 200e6, 3, DEADLINE);
        bytes memory sig = signDigest(OWNER_KEY, batchDigest(permit, spender));
        vm.startPrank(spender);
        permit2.permitTransferFrom(permit, batchDetails(recipient, 1, 1), owner, sig);
        vm.expectRevert(ISignatureTransfer.InvalidNonce.selector);
        permit2.permitTransferFrom(permit, batchDetails(recipient, 1, 1), owner, sig);
        vm.stopPrank();
    }

    function test_permitTransferFrom_batch_revertsForOtherKey() public {
        ISignatureTransfer.PermitBatchTransferFrom memory permit = batchPermit(100e6, 200e6, 3, DEADLINE);
        bytes memory sig = signDigest(OTHER_KEY, batchDigest(permit, spender));
        vm.prank(spender);
        vm.expectRevert(ISignatureTransfer.InvalidSigner.selector);
        permit2.permitTransferFrom(permit, batchDetails(recipient, 1, 1), owner, sig);
    }

    function test_permitTransferFrom_batch_singleSignatureDoesNotVerify() public {
        ISignatureTransfer.PermitBatchTransferFrom memory permit = batchPermit(100e6, 200e6, 3, DEADLINE);
        bytes memory sig = signDigest(OWNER_KEY, singleDigest(singlePermit(address(usdc), 100e6, 3, DEADLINE), spender));
        vm.prank(spender);
        vm.expectRevert(ISignatureTransfer.InvalidSigner.selector);
        permit2.permitTransferFrom(permit, batchDetails(recipient, 1, 1), owner, sig);
    }

    // ---------------------------------------------------------------- permitWitnessTransferFrom (batch)

    function test_permitWitnessTransferFrom_batch_succeeds() public {
        ISignatureTransfer.PermitBatchTransferFrom memory permit = batchPermit(100e6, 200e6, 4, DEADLINE);
        bytes memory sig = signDigest(
            OWNER_KEY, permit2BatchWitnessDigest(permit, spender, mockWitness(1), MOCK_WITNESS_TYPE_STRING, PERMIT2)
        );
        vm.prank(spender);
        permit2.permitWitnessTransferFrom(
            permit, batchDetails(recipient, 100e6, 200e6), owner, mockWitness(1), MOCK_WITNESS_TYPE_STRING, sig
        );
        assertEq(usdc.balanceOf(recipient), 100e6);
        assertEq(eurc.balanceOf(recipient), 200e6);
    }

    function test_permitWitnessTransferFrom_batch_revertsOnOtherWitness() public {
        ISignatureTransfer.PermitBatchTransferFrom memory permit = batchPermit(100e6, 200e6, 4, DEADLINE);
        bytes memory sig = signDigest(
            OWNER_KEY, permit2BatchWitnessDigest(permit, spender, mockWitness(1), MOCK_WITNESS_TYPE_STRING, PERMIT2)
        );
        vm.prank(spender);
        vm.expectRevert(ISignatureTransfer.InvalidSigner.selector);
        permit2.permitWitnessTransferFrom(
            permit, batchDetails(recipient, 1, 1), owner, mockWitness(2), MOCK_WITNESS_TYPE_STRING, sig
        );
    }

    function test_permitWitnessTransferFrom_batch_revertsOnLengthMismatch() public {
        ISignatureTransfer.PermitBatchTransferFrom memory permit = batchPermit(100e6, 200e6, 4, DEADLINE);
        bytes memory sig = signDigest(
            OWNER_KEY, permit2BatchWitnessDigest(permit, spender, mockWitness(1), MOCK_WITNESS_TYPE_STRING, PERMIT2)
        );
        vm.prank(spender);
        vm.expectRevert(ISignatureTransfer.LengthMismatch.selector);
        permit2.permitWitnessTransferFrom(
            permit,
            new ISignatureTransfer.SignatureTransferDetails[](3),
            owner,
            mockWitness(1),
            MOCK_WITNESS_TYPE_STRING,
            sig
        );
    }

    function test_permitWitnessTransferFrom_batch_revertsAfterDeadline() public {
        ISignatureTransfer.PermitBatchTransferFrom memory permit = batchPermit(100e6, 200e6, 4, DEADLINE);
        bytes memory sig = signDigest(
            OWNER_KEY, permit2BatchWitnessDigest(permit, spender, mockWitness(1), MOCK_WITNESS_TYPE_STRING, PERMIT2)
        );
        vm.warp(DEADLINE + 1);
        vm.prank(spender);
        vm.expectRevert(abi.encodeWithSelector(ISignatureTransfer.SignatureExpired.selector, DEADLINE));
        permit2.permitWitnessTransferFrom(
            permit, batchDetails(recipient, 1, 1), owner, mockWitness(1), MOCK_WITNESS_TYPE_STRING, sig
        );
    }

    function test_permitWitnessTransferFrom_batch_revertsWhenAmountAboveSigned() public {
        ISignatureTransfer.PermitBatchTransferFrom memory permit = batchPermit(100e6, 200e6, 4, DEADLINE);
        bytes memory sig = signDigest(
            OWNER_KEY, permit2BatchWitnessDigest(permit, spender, mockWitness(1), MOCK_WITNESS_TYPE_STRING, PERMIT2)
        );
        vm.prank(spender);
        vm.expectRevert(abi.encodeWithSelector(ISignatureTransfer.InvalidAmount.selector, 100e6));
        permit2.permitWitnessTransferFrom(
            permit, batchDetails(recipient, 100e6 + 1, 1), owner, mockWitness(1), MOCK_WITNESS_TYPE_STRING, sig
        );
    }

    function test_permitWitnessTransferFrom_batch_revertsOnReplay() public {
        ISignatureTransfer.PermitBatchTransferFrom memory permit = batchPermit(100e6, 200e6, 4, DEADLINE);
        bytes memory sig = signDigest(
            OWNER_KEY, permit2BatchWitnessDigest(permit, spender, mockWitness(1), MOCK_WITNESS_TYPE_STRING, PERMIT2)
        );
        vm.startPrank(spender);
        permit2.permitWitnessTransferFrom(
            permit, batchDetails(recipient, 1, 1), owner, mockWitness(1), MOCK_WITNESS_TYPE_STRING, sig
        );
        vm.expectRevert(ISignatureTransfer.InvalidNonce.selector);
        permit2.permitWitnessTransferFrom(
            permit, batchDetails(recipient, 1, 1), owner, mockWitness(1), MOCK_WITNESS_TYPE_STRING, sig
        );
        vm.stopPrank();
    }

    // ---------------------------------------------------------------- nonces

    function test_nonceBitmap_wordAndBitPositions() public {
        uint256[3] memory nonces = [uint256(0), 257, type(uint256).max];
        for (uint256 i; i < nonces.length; ++i) {
            ISignatureTransfer.PermitTransferFrom memory permit = singlePermit(address(usdc), 1, nonces[i], DEADLINE);
            bytes memory sig = signDigest(OWNER_KEY, singleDigest(permit, spender));
            vm.prank(spender);
            permit2.permitTransferFrom(permit, details(recipient, 1), owner, sig);
        }
        assertEq(permit2.nonceBitmap(owner, 0), 1);
        assertEq(permit2.nonceBitmap(owner, 1), 2);
        assertEq(permit2.nonceBitmap(owner, type(uint248).max), 1 << 255);
        assertEq(permit2.nonceBitmap(recipient, 0), 0, "bitmaps are per owner");
    }

    function test_invalidateUnorderedNonces_setsBitsAndEmits() public {
        vm.expectEmit(true, false, false, true, PERMIT2);
        emit ISignatureTransfer.UnorderedNonceInvalidation(owner, 5, 0x0f);
        vm.prank(owner);
        permit2.invalidateUnorderedNonces(5, 0x0f);
        assertEq(permit2.nonceBitmap(owner, 5), 0x0f);

        vm.prank(owner);
        permit2.invalidateUnorderedNonces(5, 0xf0);
        assertEq(permit2.nonceBitmap(owner, 5), 0xff, "invalidation only ever adds bits");

        vm.prank(owner);
        permit2.invalidateUnorderedNonces(5, 0);
        assertEq(permit2.nonceBitmap(owner, 5), 0xff);
        assertEq(permit2.nonceBitmap(spender, 5), 0, "only the caller's bitmap changes");
    }

    function test_invalidateUnorderedNonces_makesSignedPermitUnusable() public {
        uint256 nonce = (5 << 8) | 3;
        ISignatureTransfer.PermitTransferFrom memory permit = singlePermit(address(usdc), 1, nonce, DEADLINE);
        bytes memory sig = signDigest(OWNER_KEY, singleDigest(permit, spender));
        vm.prank(owner);
        permit2.invalidateUnorderedNonces(5, 1 << 3);

        vm.prank(spender);
        vm.expectRevert(ISignatureTransfer.InvalidNonce.selector);
        permit2.permitTransferFrom(permit, details(recipient, 1), owner, sig);
    }

    function test_invalidateUnorderedNonces_leavesOtherNoncesUsable() public {
        vm.prank(owner);
        permit2.invalidateUnorderedNonces(0, ~uint256(1 << 9));
        ISignatureTransfer.PermitTransferFrom memory permit = singlePermit(address(usdc), 1, 9, DEADLINE);
        bytes memory sig = signDigest(OWNER_KEY, singleDigest(permit, spender));

        vm.prank(spender);
        permit2.permitTransferFrom(permit, details(recipient, 1), owner, sig);
        assertEq(permit2.nonceBitmap(owner, 0), type(uint256).max);
    }

    // ---------------------------------------------------------------- helpers

    function _transferAt(uint256 timestamp) private {
        ISignatureTransfer.PermitTransferFrom memory permit = singlePermit(address(usdc), 1e6, 11, DEADLINE);
        bytes memory sig = signDigest(OWNER_KEY, singleDigest(permit, spender));
        vm.warp(timestamp);
        vm.prank(spender);
        permit2.permitTransferFrom(permit, details(recipient, 1e6), owner, sig);
    }
}
