// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {Permit2TestBase} from "./Permit2TestBase.sol";
import {ISignatureTransfer} from "../../src/permit2/ISignatureTransfer.sol";
import {SignatureTransfer} from "../../src/permit2/SignatureTransfer.sol";

/// @notice The devnet copies SignatureTransfer's runtime code to Permit2's canonical address: the copy must
/// verify signatures made for the canonical domain, and the domain must follow the chain id.
contract CanonicalPermit2Test is Permit2TestBase {
    /// keccak256(abi.encode(domainTypehash, keccak256("Permit2"), 1, 0x0000…22D473030F116dDEE9F6B43aC78BA3)),
    /// the separator of the real Permit2 on Ethereum mainnet.
    bytes32 internal constant MAINNET_PERMIT2_DOMAIN_SEPARATOR =
        0x866a5aba21966af95d6c7ab78eb2b2fc913915c28be3b9aa07cc04ff903e3f28;

    function test_runtimeCode_isIndependentOfDeployment() public {
        bytes memory first = address(new SignatureTransfer()).code;
        vm.prank(makeAddr("another-deployer"));
        bytes memory second = address(new SignatureTransfer()).code;
        assertEq(keccak256(first), keccak256(second), "no immutables baked into the runtime code");
        assertEq(keccak256(PERMIT2.code), keccak256(first));
    }

    function test_etchedCopy_startsWithEmptyStorage() public view {
        assertEq(vm.load(PERMIT2, bytes32(0)), bytes32(0));
        assertEq(permit2.nonceBitmap(owner, 0), 0);
    }

    function test_etchedCopy_verifiesSignatureForCanonicalDomain() public {
        ISignatureTransfer.PermitTransferFrom memory permit = singlePermit(address(usdc), 5e6, 0, DEADLINE);
        bytes memory sig = signDigest(OWNER_KEY, singleDigest(permit, spender));

        vm.prank(spender);
        permit2.permitTransferFrom(permit, details(recipient, 5e6), owner, sig);
        assertEq(usdc.balanceOf(recipient), 5e6);
    }

    function test_etchedCopy_rejectsSignatureForTheTemplateAddress() public {
        SignatureTransfer template = new SignatureTransfer();
        ISignatureTransfer.PermitTransferFrom memory permit = singlePermit(address(usdc), 5e6, 0, DEADLINE);
        bytes32 structHash = keccak256(
            abi.encode(
                PERMIT_TRANSFER_FROM_TYPEHASH,
                keccak256(abi.encode(TOKEN_PERMISSIONS_TYPEHASH, address(usdc), 5e6)),
                spender,
                0,
                DEADLINE
            )
        );
        bytes32 templateDigest =
            keccak256(abi.encodePacked("\x19\x01", permit2DomainSeparator(address(template)), structHash));
        assertEq(template.DOMAIN_SEPARATOR(), permit2DomainSeparator(address(template)));
        assertTrue(template.DOMAIN_SEPARATOR() != permit2.DOMAIN_SEPARATOR());

        vm.prank(spender);
        vm.expectRevert(ISignatureTransfer.InvalidSigner.selector);
        permit2.permitTransferFrom(permit, details(recipient, 5e6), owner, signDigest(OWNER_KEY, templateDigest));
    }

    function test_domainSeparator_onChainOneEqualsMainnetPermit2() public {
        vm.chainId(1);
        assertEq(permit2.DOMAIN_SEPARATOR(), MAINNET_PERMIT2_DOMAIN_SEPARATOR);
    }

    function test_domainSeparator_changesWithChainId() public {
        bytes32 before = permit2.DOMAIN_SEPARATOR();
        vm.chainId(block.chainid + 1);
        bytes32 afterChange = permit2.DOMAIN_SEPARATOR();
        assertTrue(before != afterChange);
        assertEq(afterChange, permit2DomainSeparator(PERMIT2));
    }

    function test_signatureForOldChainId_revertsAfterChainIdChange() public {
        ISignatureTransfer.PermitTransferFrom memory permit = singlePermit(address(usdc), 5e6, 0, DEADLINE);
        bytes memory oldChainSig = signDigest(OWNER_KEY, singleDigest(permit, spender));

        vm.chainId(block.chainid + 1);
        vm.prank(spender);
        vm.expectRevert(ISignatureTransfer.InvalidSigner.selector);
        permit2.permitTransferFrom(permit, details(recipient, 5e6), owner, oldChainSig);

        bytes memory newChainSig = signDigest(OWNER_KEY, singleDigest(permit, spender));
        vm.prank(spender);
        permit2.permitTransferFrom(permit, details(recipient, 5e6), owner, newChainSig);
        assertEq(usdc.balanceOf(recipient), 5e6);
    }
}
