// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {MandateOutput, StandardOrder} from "../types/StandardOrder.sol";
import {OrderHashLib} from "./OrderHashLib.sol";

/// @title Permit2WitnessLib
/// @notice The witness an escrow order embeds in Permit2's `PermitBatchWitnessTransferFrom`.
/// @dev The witness carries `user`: without it a relayer holding the signature could redirect refunds.
library Permit2WitnessLib {
    bytes internal constant PERMIT2_WITNESS_TYPE =
        "Permit2Witness(address user,uint32 expires,address inputOracle,MandateOutput[] outputs)MandateOutput(bytes32 oracle,bytes32 settler,uint256 chainId,bytes32 token,uint256 amount,bytes32 recipient,bytes callbackData,bytes context)";
    bytes32 internal constant PERMIT2_WITNESS_TYPEHASH = keccak256(PERMIT2_WITNESS_TYPE);

    /// @notice The `witnessTypeString` argument of Permit2's `permitWitnessTransferFrom`: the tail of the
    /// full type string after `...,uint256 deadline,`, with referenced types sorted by name.
    string internal constant PERMIT2_WITNESS_TYPE_STRING =
        "Permit2Witness witness)MandateOutput(bytes32 oracle,bytes32 settler,uint256 chainId,bytes32 token,uint256 amount,bytes32 recipient,bytes callbackData,bytes context)Permit2Witness(address user,uint32 expires,address inputOracle,MandateOutput[] outputs)TokenPermissions(address token,uint256 amount)";

    /// @notice EIP-712 struct hash of the order's Permit2 witness.
    function witnessHash(StandardOrder calldata order) internal pure returns (bytes32) {
        return keccak256(
            abi.encode(
                PERMIT2_WITNESS_TYPEHASH,
                order.user,
                order.expires,
                order.inputOracle,
                OrderHashLib.hashOutputs(order.outputs)
            )
        );
    }

    /// @notice Memory variant of `witnessHash`.
    function witnessHashMemory(StandardOrder memory order) internal pure returns (bytes32) {
        return keccak256(
            abi.encode(
                PERMIT2_WITNESS_TYPEHASH,
                order.user,
                order.expires,
                order.inputOracle,
                OrderHashLib.hashOutputs(order.outputs)
            )
        );
    }
}
