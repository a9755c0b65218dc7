// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {MandateOutput, StandardOrder} from "../types/StandardOrder.sol";

/// @title OrderHashLib
/// @notice Order identifier and EIP-712 struct hashing shared by every settler, oracle and test.
library OrderHashLib {
    /// @dev EIP-712 type string of `MandateOutput`; its hash is pinned in onchain.md.
    bytes internal constant MANDATE_OUTPUT_TYPE =
        "MandateOutput(bytes32 oracle,bytes32 settler,uint256 chainId,bytes32 token,uint256 amount,bytes32 recipient,bytes callbackData,bytes context)";
    bytes32 internal constant MANDATE_OUTPUT_TYPEHASH = keccak256(MANDATE_OUTPUT_TYPE);

    /// @notice Order id as computed by the input settler `settler` on the current chain.
    /// @dev Inputs are hashed before packing: packed dynamic arrays would collide. `originChainId` is not
    /// hashed; settlers check it against block.chainid instead.
    function orderIdentifier(StandardOrder calldata order, address settler) internal view returns (bytes32) {
        return keccak256(
            abi.encodePacked(
                block.chainid,
                settler,
                order.user,
                order.nonce,
                order.expires,
                order.fillDeadline,
                order.inputOracle,
                keccak256(abi.encodePacked(order.inputs)),
                abi.encode(order.outputs)
            )
        );
    }

    /// @notice Same as `orderIdentifier` for an order held in memory (tests, handlers).
    function orderIdentifierMemory(StandardOrder memory order, address settler) internal view returns (bytes32) {
        return keccak256(
            abi.encodePacked(
                block.chainid,
                settler,
                order.user,
                order.nonce,
                order.expires,
                order.fillDeadline,
                order.inputOracle,
                keccak256(abi.encodePacked(order.inputs)),
                abi.encode(order.outputs)
            )
        );
    }

    /// @notice EIP-712 struct hash of one output.
    function hashOutput(MandateOutput memory output) internal pure returns (bytes32) {
        return keccak256(
            abi.encode(
                MANDATE_OUTPUT_TYPEHASH,
                output.oracle,
                output.settler,
                output.chainId,
                output.token,
                output.amount,
                output.recipient,
                keccak256(output.callbackData),
                keccak256(output.context)
            )
        );
    }

    /// @notice EIP-712 hash of `MandateOutput[]`: keccak of the concatenated element hashes.
    function hashOutputs(MandateOutput[] memory outputs) internal pure returns (bytes32) {
        bytes32[] memory hashes = new bytes32[](outputs.length);
        for (uint256 i; i < outputs.length; ++i) {
            hashes[i] = hashOutput(outputs[i]);
        }
        return keccak256(abi.encodePacked(hashes));
    }
}
