// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {MandateOutput, StandardOrder} from "../types/StandardOrder.sol";
import {OrderHashLib} from "./OrderHashLib.sol";

/// @title CompactMandateLib
/// @notice The Compact `BatchCompact` message and its `Mandate` witness for resource-lock orders.
library CompactMandateLib {
    bytes internal constant MANDATE_TYPE =
        "Mandate(uint32 fillDeadline,address inputOracle,MandateOutput[] outputs)MandateOutput(bytes32 oracle,bytes32 settler,uint256 chainId,bytes32 token,uint256 amount,bytes32 recipient,bytes callbackData,bytes context)";
    bytes32 internal constant MANDATE_TYPEHASH = keccak256(MANDATE_TYPE);

    bytes internal constant LOCK_TYPE = "Lock(bytes12 lockTag,address token,uint256 amount)";
    bytes32 internal constant LOCK_TYPEHASH = keccak256(LOCK_TYPE);

    bytes internal constant BATCH_COMPACT_TYPE =
        "BatchCompact(address arbiter,address sponsor,uint256 nonce,uint256 expires,Lock[] commitments,Mandate mandate)Lock(bytes12 lockTag,address token,uint256 amount)Mandate(uint32 fillDeadline,address inputOracle,MandateOutput[] outputs)MandateOutput(bytes32 oracle,bytes32 settler,uint256 chainId,bytes32 token,uint256 amount,bytes32 recipient,bytes callbackData,bytes context)";
    bytes32 internal constant BATCH_COMPACT_TYPEHASH = keccak256(BATCH_COMPACT_TYPE);

    /// @notice EIP-712 struct hash of the order's Mandate witness.
    function mandateHash(StandardOrder calldata order) internal pure returns (bytes32) {
        return keccak256(
            abi.encode(MANDATE_TYPEHASH, order.fillDeadline, order.inputOracle, OrderHashLib.hashOutputs(order.outputs))
        );
    }

    /// @notice Memory variant of `mandateHash`.
    function mandateHashMemory(StandardOrder memory order) internal pure returns (bytes32) {
        return keccak256(
            abi.encode(MANDATE_TYPEHASH, order.fillDeadline, order.inputOracle, OrderHashLib.hashOutputs(order.outputs))
        );
    }

    /// @notice Splits an ERC-6909 lock id into its 12-byte lock tag and token: id = lockTag << 160 | token.
    function splitLockId(uint256 id) internal pure returns (bytes12 lockTag, address token) {
        lockTag = bytes12(bytes32(id));
        token = address(uint160(id));
    }

    /// @notice EIP-712 hash of `Lock[]` built from the order inputs (each input id is a lock id).
    function hashCommitments(uint256[2][] memory inputs) internal pure returns (bytes32) {
        bytes32[] memory hashes = new bytes32[](inputs.length);
        for (uint256 i; i < inputs.length; ++i) {
            (bytes12 lockTag, address token) = splitLockId(inputs[i][0]);
            hashes[i] = keccak256(abi.encode(LOCK_TYPEHASH, lockTag, token, inputs[i][1]));
        }
        return keccak256(abi.encodePacked(hashes));
    }

    /// @notice EIP-712 struct hash of the BatchCompact the sponsor signs for `order`.
    function batchCompactHash(StandardOrder memory order, address arbiter) internal pure returns (bytes32) {
        return keccak256(
            abi.encode(
                BATCH_COMPACT_TYPEHASH,
                arbiter,
                order.user,
                order.nonce,
                uint256(order.expires),
                hashCommitments(order.inputs),
                mandateHashMemory(order)
            )
        );
    }
}
