// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {Eip3009Authorization, Eip3009Signer} from "./Eip3009Signer.sol";
import {Permit2Signer} from "../permit2/Permit2Signer.sol";
import {FeeOnTransferToken} from "../mocks/FeeOnTransferToken.sol";
import {NoOpToken} from "../mocks/NoOpToken.sol";
import {ISignatureTransfer} from "../../src/permit2/ISignatureTransfer.sol";

/// @notice The negative-test tokens behave as advertised, through every path an escrow pulls with:
/// plain transferFrom, Permit2 and ERC-3009. Escrow tests rely on these short-changes being real.
contract NegativeTestTokensTest is Eip3009Signer, Permit2Signer {
    uint256 internal constant ALICE_KEY = 0xA11CE;

    FeeOnTransferToken internal feeToken;
    NoOpToken internal noOp;
    address internal alice;
    address internal escrow = makeAddr("escrow");

    function setUp() public {
        vm.warp(1_700_000_000);
        alice = vm.addr(ALICE_KEY);
        feeToken = new FeeOnTransferToken("Fee USD", "FUSD", 6, address(this));
        noOp = new NoOpToken("No-Op USD", "NUSD", 6);
        feeToken.mint(alice, 1_000e6);
        noOp.mint(alice, 1_000e6);
    }

    // ---------------------------------------------------------------- FeeOnTransferToken

    function test_feeToken_mintIsNotCharged() public view {
        assertEq(feeToken.balanceOf(alice), 1_000e6);
        assertEq(feeToken.totalSupply(), 1_000e6);
    }

    function test_feeToken_transferBurnsOnePercent() public {
        vm.prank(alice);
        assertTrue(feeToken.transfer(escrow, 100e6));
        assertEq(feeToken.balanceOf(escrow), 99e6);
        assertEq(feeToken.balanceOf(alice), 900e6);
        assertEq(feeToken.totalSupply(), 999e6);
    }

    function test_feeToken_feeRoundsUpSoTinyTransfersArriveShort() public {
        vm.prank(alice);
        assertTrue(feeToken.transfer(escrow, 1));
        assertEq(feeToken.balanceOf(escrow), 0);
        assertEq(feeToken.amountAfterFee(150), 148);
    }

    function test_feeToken_transferFromIsCharged() public {
        vm.prank(alice);
        feeToken.approve(escrow, 10e6);
        vm.prank(escrow);
        assertTrue(feeToken.transferFrom(alice, escrow, 10e6));
        assertEq(feeToken.balanceOf(escrow), feeToken.amountAfterFee(10e6));
    }

    function test_feeToken_permit2PullArrivesShort() public {
        ISignatureTransfer permit2 = etchPermit2();
        vm.prank(alice);
        feeToken.approve(PERMIT2, type(uint256).max);
        ISignatureTransfer.PermitBatchTransferFrom memory permit = _permit(address(feeToken), 50e6);
        bytes memory sig =
            signDigest(ALICE_KEY, permit2BatchWitnessDigest(permit, escrow, bytes32(0), _witnessType(), PERMIT2));

        vm.prank(escrow);
        permit2.permitWitnessTransferFrom(permit, _details(50e6), alice, bytes32(0), _witnessType(), sig);
        assertEq(feeToken.balanceOf(escrow), 49.5e6);
    }

    function test_feeToken_erc3009PullArrivesShort() public {
        Eip3009Authorization memory auth = Eip3009Authorization({
            from: alice, to: escrow, value: 20e6, validAfter: 0, validBefore: block.timestamp + 1, nonce: keccak256("o")
        });
        bytes memory sig = signReceiveWithAuthorization(ALICE_KEY, address(feeToken), auth);
        vm.prank(escrow);
        feeToken.receiveWithAuthorization(alice, escrow, 20e6, 0, auth.validBefore, auth.nonce, sig);
        assertEq(feeToken.balanceOf(escrow), 19.8e6);
    }

    // ---------------------------------------------------------------- NoOpToken

    function test_noOp_looksFundedAndApproves() public {
        assertEq(noOp.balanceOf(alice), 1_000e6);
        assertEq(noOp.totalSupply(), 1_000e6);
        assertEq(noOp.decimals(), 6);
        vm.prank(alice);
        assertTrue(noOp.approve(escrow, 5));
        assertEq(noOp.allowance(alice, escrow), 5);
    }

    function test_noOp_transfersReportSuccessButMoveNothing() public {
        vm.prank(alice);
        assertTrue(noOp.transfer(escrow, 10));
        vm.prank(escrow);
        assertTrue(noOp.transferFrom(alice, escrow, 10));
        assertEq(noOp.balanceOf(escrow), 0);
        assertEq(noOp.balanceOf(alice), 1_000e6);
    }

    function test_noOp_permit2PullSucceedsButMovesNothing() public {
        ISignatureTransfer permit2 = etchPermit2();
        ISignatureTransfer.PermitBatchTransferFrom memory permit = _permit(address(noOp), 50e6);
        bytes memory sig =
            signDigest(ALICE_KEY, permit2BatchWitnessDigest(permit, escrow, bytes32(0), _witnessType(), PERMIT2));

        vm.prank(escrow);
        permit2.permitWitnessTransferFrom(permit, _details(50e6), alice, bytes32(0), _witnessType(), sig);
        assertEq(noOp.balanceOf(escrow), 0);
    }

    function test_noOp_receiveWithAuthorizationAcceptsAnythingAndMovesNothing() public {
        vm.prank(escrow);
        noOp.receiveWithAuthorization(alice, escrow, 20e6, 0, 0, bytes32(0), hex"deadbeef");
        vm.prank(makeAddr("anyone"));
        noOp.receiveWithAuthorization(alice, escrow, 20e6, 0, 0, bytes32(0), 27, bytes32(0), bytes32(0));
        assertEq(noOp.balanceOf(escrow), 0);
    }

    function test_noOp_domainSeparatorLetsSignersSign() public view {
        Eip3009Authorization memory auth = Eip3009Authorization({
            from: alice, to: escrow, value: 1, validAfter: 0, validBefore: 1, nonce: bytes32(0)
        });
        assertEq(signReceiveWithAuthorization(ALICE_KEY, address(noOp), auth).length, 65);
        assertEq(
            noOp.DOMAIN_SEPARATOR(),
            keccak256(
                abi.encode(
                    keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"),
                    keccak256("No-Op USD"),
                    keccak256("2"),
                    block.chainid,
                    address(noOp)
                )
            )
        );
    }

    // ---------------------------------------------------------------- helpers

    function _permit(address token, uint256 amount)
        private
        view
        returns (ISignatureTransfer.PermitBatchTransferFrom memory permit)
    {
        permit.permitted = new ISignatureTransfer.TokenPermissions[](1);
        permit.permitted[0] = ISignatureTransfer.TokenPermissions({token: token, amount: amount});
        permit.deadline = block.timestamp;
    }

    function _details(uint256 amount) private view returns (ISignatureTransfer.SignatureTransferDetails[] memory list) {
        list = new ISignatureTransfer.SignatureTransferDetails[](1);
        list[0] = ISignatureTransfer.SignatureTransferDetails({to: escrow, requestedAmount: amount});
    }

    function _witnessType() private pure returns (string memory) {
        return "Empty witness)Empty()TokenPermissions(address token,uint256 amount)";
    }
}
