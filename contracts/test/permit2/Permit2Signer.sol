// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {Test} from "forge-std/Test.sol";
import {StandardOrder} from "../../src/types/StandardOrder.sol";
import {Permit2WitnessLib} from "../../src/libraries/Permit2WitnessLib.sol";
import {ISignatureTransfer} from "../../src/permit2/ISignatureTransfer.sol";
import {SignatureTransfer} from "../../src/permit2/SignatureTransfer.sol";

/// @title Permit2Signer
/// @notice Test helper: puts SignatureTransfer at Permit2's canonical address and signs the
/// `PermitBatchWitnessTransferFrom` a taker signs for an escrow order (onchain.md, Permit2Escrow).
/// @dev Hashes are built here from the pinned type strings rather than through PermitHashLib, so tests
/// using this helper check the contract against an independent encoding.
abstract contract Permit2Signer is Test {
    address internal constant PERMIT2 = 0x000000000022D473030F116dDEE9F6B43aC78BA3;

    bytes32 internal constant PERMIT2_DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,uint256 chainId,address verifyingContract)");
    bytes32 internal constant TOKEN_PERMISSIONS_TYPEHASH = keccak256("TokenPermissions(address token,uint256 amount)");
    /// @dev keccak256 of "PermitBatchWitnessTransferFrom(TokenPermissions[] permitted,address spender,uint256
    /// nonce,uint256 deadline," ++ Permit2WitnessLib.PERMIT2_WITNESS_TYPE_STRING, pinned in onchain.md.
    bytes32 internal constant PERMIT_BATCH_ORDER_WITNESS_TYPEHASH =
        0x392238876bfda99ea4fa7856a798a813866bf086e76744d43bb3f51e54419167;

    /// @notice Copies a fresh SignatureTransfer's runtime code to the canonical Permit2 address.
    function etchPermit2() internal returns (ISignatureTransfer permit2) {
        vm.etch(PERMIT2, address(new SignatureTransfer()).code);
        vm.label(PERMIT2, "Permit2");
        return ISignatureTransfer(PERMIT2);
    }

    /// @notice Permit2 domain separator for `permit2` on the current chain.
    function permit2DomainSeparator(address permit2) internal view returns (bytes32) {
        return keccak256(abi.encode(PERMIT2_DOMAIN_TYPEHASH, keccak256("Permit2"), block.chainid, permit2));
    }

    /// @notice The Permit2 batch permit an escrow presents for `order`: inputs as token permissions,
    /// nonce = order.nonce, deadline = order.fillDeadline.
    function orderPermit(StandardOrder memory order)
        internal
        pure
        returns (ISignatureTransfer.PermitBatchTransferFrom memory permit)
    {
        permit.permitted = new ISignatureTransfer.TokenPermissions[](order.inputs.length);
        for (uint256 i; i < order.inputs.length; ++i) {
            permit.permitted[i] = ISignatureTransfer.TokenPermissions({
                token: address(uint160(order.inputs[i][0])), amount: order.inputs[i][1]
            });
        }
        permit.nonce = order.nonce;
        permit.deadline = order.fillDeadline;
    }

    /// @notice EIP-712 digest of `order`'s PermitBatchWitnessTransferFrom for `spender`, verified by the
    /// Permit2 at the canonical address.
    function permit2OrderDigest(StandardOrder memory order, address spender) internal view returns (bytes32) {
        return permit2OrderDigest(order, spender, PERMIT2);
    }

    /// @notice Same as above, for a SignatureTransfer deployed at `permit2`.
    function permit2OrderDigest(StandardOrder memory order, address spender, address permit2)
        internal
        view
        returns (bytes32)
    {
        ISignatureTransfer.PermitBatchTransferFrom memory permit = orderPermit(order);
        bytes32 structHash = keccak256(
            abi.encode(
                PERMIT_BATCH_ORDER_WITNESS_TYPEHASH,
                _hashPermitted(permit.permitted),
                spender,
                permit.nonce,
                permit.deadline,
                Permit2WitnessLib.witnessHashMemory(order)
            )
        );
        return keccak256(abi.encodePacked("\x19\x01", permit2DomainSeparator(permit2), structHash));
    }

    /// @notice 65-byte signature (r ‖ s ‖ v) by `privateKey` of `order` for `spender` (canonical Permit2).
    function signPermit2Order(uint256 privateKey, StandardOrder memory order, address spender)
        internal
        view
        returns (bytes memory signature)
    {
        return signDigest(privateKey, permit2OrderDigest(order, spender));
    }

    /// @notice `openFor` signature argument for the Permit2 lock: 0x00 ‖ signature.
    function permit2OpenForSignature(uint256 privateKey, StandardOrder memory order, address spender)
        internal
        view
        returns (bytes memory)
    {
        return bytes.concat(bytes1(0x00), signPermit2Order(privateKey, order, spender));
    }

    /// @notice Digest of any PermitBatchWitnessTransferFrom (generic witness) for the Permit2 at `permit2`.
    function permit2BatchWitnessDigest(
        ISignatureTransfer.PermitBatchTransferFrom memory permit,
        address spender,
        bytes32 witness,
        string memory witnessTypeString,
        address permit2
    ) internal view returns (bytes32) {
        bytes32 typeHash = keccak256(
            abi.encodePacked(
                "PermitBatchWitnessTransferFrom(TokenPermissions[] permitted,address spender,uint256 nonce,uint256 deadline,",
                witnessTypeString
            )
        );
        bytes32 structHash = keccak256(
            abi.encode(typeHash, _hashPermitted(permit.permitted), spender, permit.nonce, permit.deadline, witness)
        );
        return keccak256(abi.encodePacked("\x19\x01", permit2DomainSeparator(permit2), structHash));
    }

    /// @notice 65-byte signature r ‖ s ‖ v, the layout viem's signTypedData returns.
    function signDigest(uint256 privateKey, bytes32 digest) internal pure returns (bytes memory) {
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(privateKey, digest);
        return abi.encodePacked(r, s, v);
    }

    /// @notice 64-byte EIP-2098 compact signature r ‖ vs.
    function signDigestCompact(uint256 privateKey, bytes32 digest) internal pure returns (bytes memory) {
        (bytes32 r, bytes32 vs) = vm.signCompact(privateKey, digest);
        return abi.encodePacked(r, vs);
    }

    function _hashPermitted(ISignatureTransfer.TokenPermissions[] memory permitted) private pure returns (bytes32) {
        bytes32[] memory hashes = new bytes32[](permitted.length);
        for (uint256 i; i < permitted.length; ++i) {
            hashes[i] = keccak256(abi.encode(TOKEN_PERMISSIONS_TYPEHASH, permitted[i].token, permitted[i].amount));
        }
        return keccak256(abi.encodePacked(hashes));
    }
}
