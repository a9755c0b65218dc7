// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {Eip3009Signer} from "./Eip3009Signer.sol";
import {Permit2Signer} from "../permit2/Permit2Signer.sol";
import {Permit2OnlyStablecoin} from "../../src/tokens/Permit2OnlyStablecoin.sol";
import {StablecoinBase} from "../../src/tokens/StablecoinBase.sol";
import {IERC3009} from "../../src/tokens/IERC3009.sol";
import {ISignatureTransfer} from "../../src/permit2/ISignatureTransfer.sol";

/// @notice The stablecoin without ERC-3009: ERC-20, permit and faucet work, no 3009 entry point exists,
/// and Permit2 moves it.
contract Permit2OnlyStablecoinTest is Eip3009Signer, Permit2Signer {
    uint256 internal constant ALICE_KEY = 0xA11CE;

    Permit2OnlyStablecoin internal token;
    address internal alice;
    address internal bob = makeAddr("bob");

    function setUp() public {
        vm.warp(1_700_000_000);
        alice = vm.addr(ALICE_KEY);
        token = new Permit2OnlyStablecoin("Pound Coin", "GBPC", 6, address(this));
        token.mint(alice, 100e6);
    }

    function test_metadataAndDomain() public view {
        assertEq(token.name(), "Pound Coin");
        assertEq(token.symbol(), "GBPC");
        assertEq(token.decimals(), 6);
        (, string memory name, string memory version, uint256 chainId, address verifyingContract,,) =
            token.eip712Domain();
        assertEq(name, "Pound Coin");
        assertEq(version, "2");
        assertEq(chainId, block.chainid);
        assertEq(verifyingContract, address(token));
    }

    function test_mint_onlyOwner() public {
        vm.prank(bob);
        vm.expectRevert(abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, bob));
        token.mint(bob, 1);
    }

    function test_permit_setsAllowance() public {
        (uint8 v, bytes32 r, bytes32 s) = signPermit(ALICE_KEY, address(token), alice, bob, 5, 0, block.timestamp);
        token.permit(alice, bob, 5, block.timestamp, v, r, s);
        assertEq(token.allowance(alice, bob), 5);
    }

    function test_permit_revertsAfterDeadline() public {
        uint256 deadline = block.timestamp - 1;
        (uint8 v, bytes32 r, bytes32 s) = signPermit(ALICE_KEY, address(token), alice, bob, 5, 0, deadline);
        vm.expectRevert(abi.encodeWithSelector(StablecoinBase.PermitExpired.selector, deadline));
        token.permit(alice, bob, 5, deadline, v, r, s);
    }

    function test_hasNoErc3009EntryPoints() public {
        bytes[4] memory calls = [
            abi.encodeWithSignature(
                "receiveWithAuthorization(address,address,uint256,uint256,uint256,bytes32,bytes)",
                alice,
                bob,
                1,
                0,
                type(uint256).max,
                bytes32(0),
                hex""
            ),
            abi.encodeWithSignature(
                "transferWithAuthorization(address,address,uint256,uint256,uint256,bytes32,bytes)",
                alice,
                bob,
                1,
                0,
                type(uint256).max,
                bytes32(0),
                hex""
            ),
            abi.encodeWithSignature("cancelAuthorization(address,bytes32,bytes)", alice, bytes32(0), hex""),
            abi.encodeCall(IERC3009.authorizationState, (alice, bytes32(0)))
        ];
        for (uint256 i; i < calls.length; ++i) {
            (bool ok,) = address(token).call(calls[i]);
            assertFalse(ok);
        }
        assertEq(token.balanceOf(bob), 0);
    }

    function test_movesThroughPermit2() public {
        ISignatureTransfer permit2 = etchPermit2();
        vm.prank(alice);
        token.approve(PERMIT2, type(uint256).max);

        ISignatureTransfer.PermitBatchTransferFrom memory permit;
        permit.permitted = new ISignatureTransfer.TokenPermissions[](1);
        permit.permitted[0] = ISignatureTransfer.TokenPermissions({token: address(token), amount: 40e6});
        permit.deadline = block.timestamp;
        bytes32 witness = keccak256("w");
        string memory witnessType = "W witness)TokenPermissions(address token,uint256 amount)W(uint256 x)";
        bytes memory sig = signDigest(ALICE_KEY, permit2BatchWitnessDigest(permit, bob, witness, witnessType, PERMIT2));

        ISignatureTransfer.SignatureTransferDetails[] memory transfer =
            new ISignatureTransfer.SignatureTransferDetails[](1);
        transfer[0] = ISignatureTransfer.SignatureTransferDetails({to: bob, requestedAmount: 40e6});
        vm.prank(bob);
        permit2.permitWitnessTransferFrom(permit, transfer, alice, witness, witnessType, sig);
        assertEq(token.balanceOf(bob), 40e6);
    }
}
