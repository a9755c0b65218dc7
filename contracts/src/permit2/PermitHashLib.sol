// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {ISignatureTransfer} from "./ISignatureTransfer.sol";

/// @title PermitHashLib
/// @notice EIP-712 struct hashes of Permit2's SignatureTransfer messages.
/// @dev The spender is an argument rather than msg.sender so that escrows and test signers can build the
/// exact message a given spender will present.
library PermitHashLib {
    bytes32 internal constant TOKEN_PERMISSIONS_TYPEHASH = keccak256("TokenPermissions(address token,uint256 amount)");

    bytes32 internal constant PERMIT_TRANSFER_FROM_TYPEHASH = keccak256(
        "PermitTransferFrom(TokenPermissions permitted,address spender,uint256 nonce,uint256 deadline)TokenPermissions(address token,uint256 amount)"
    );

    bytes32 internal constant PERMIT_BATCH_TRANSFER_FROM_TYPEHASH = keccak256(
        "PermitBatchTransferFrom(TokenPermissions[] permitted,address spender,uint256 nonce,uint256 deadline)TokenPermissions(address token,uint256 amount)"
    );

    /// @dev Witness variants: the caller supplies the rest of the type string, starting at the witness member.
    string internal constant PERMIT_WITNESS_TRANSFER_FROM_TYPEHASH_STUB =
        "PermitWitnessTransferFrom(TokenPermissions permitted,address spender,uint256 nonce,uint256 deadline,";

    string internal constant PERMIT_BATCH_WITNESS_TRANSFER_FROM_TYPEHASH_STUB =
        "PermitBatchWitnessTransferFrom(TokenPermissions[] permitted,address spender,uint256 nonce,uint256 deadline,";

    function hash(ISignatureTransfer.PermitTransferFrom memory permit, address spender)
        internal
        pure
        returns (bytes32)
    {
        return keccak256(
            abi.encode(
                PERMIT_TRANSFER_FROM_TYPEHASH,
                hashTokenPermissions(permit.permitted),
                spender,
                permit.nonce,
                permit.deadline
            )
        );
    }

    function hash(ISignatureTransfer.PermitBatchTransferFrom memory permit, address spender)
        internal
        pure
        returns (bytes32)
    {
        return keccak256(
            abi.encode(
                PERMIT_BATCH_TRANSFER_FROM_TYPEHASH,
                hashTokenPermissions(permit.permitted),
                spender,
                permit.nonce,
                permit.deadline
            )
        );
    }

    function hashWithWitness(
        ISignatureTransfer.PermitTransferFrom memory permit,
        address spender,
        bytes32 witness,
        string memory witnessTypeString
    ) internal pure returns (bytes32) {
        bytes32 typeHash = keccak256(abi.encodePacked(PERMIT_WITNESS_TRANSFER_FROM_TYPEHASH_STUB, witnessTypeString));
        return keccak256(
            abi.encode(typeHash, hashTokenPermissions(permit.permitted), spender, permit.nonce, permit.deadline, witness)
        );
    }

    function hashWithWitness(
        ISignatureTransfer.PermitBatchTransferFrom memory permit,
        address spender,
        bytes32 witness,
        string memory witnessTypeString
    ) internal pure returns (bytes32) {
        bytes32 typeHash =
            keccak256(abi.encodePacked(PERMIT_BATCH_WITNESS_TRANSFER_FROM_TYPEHASH_STUB, witnessTypeString));
        return keccak256(
            abi.encode(typeHash, hashTokenPermissions(permit.permitted), spender, permit.nonce, permit.deadline, witness)
        );
    }

    function hashTokenPermissions(ISignatureTransfer.TokenPermissions memory permitted)
        internal
        pure
        returns (bytes32)
    {
        return keccak256(abi.encode(TOKEN_PERMISSIONS_TYPEHASH, permitted.token, permitted.amount));
    }

    /// @notice EIP-712 hash of `TokenPermissions[]`: keccak of the concatenated element hashes.
    function hashTokenPermissions(ISignatureTransfer.TokenPermissions[] memory permitted)
        internal
        pure
        returns (bytes32)
    {
        bytes32[] memory hashes = new bytes32[](permitted.length);
        for (uint256 i; i < permitted.length; ++i) {
            hashes[i] = hashTokenPermissions(permitted[i]);
        }
        return keccak256(abi.encodePacked(hashes));
    }
}
