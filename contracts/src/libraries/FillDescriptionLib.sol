// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {MandateOutput} from "../types/StandardOrder.sol";

/// @title FillDescriptionLib
/// @notice Byte encodings of outputs and fills shared by the output settler and the oracles (OIF layout).
/// @dev 2-byte length prefixes keep callbackData and context unambiguous; each is capped at 65,535 bytes.
///  MandateOutput: oracle(32) settler(32) chainId(32) | common
///  FillDescription: solver(32) orderId(32) timestamp(4) | common
///  common: token(32) amount(32) recipient(32) len(2) callbackData len(2) context
library FillDescriptionLib {
    error CallbackDataTooLong();
    error ContextTooLong();

    /// @notice Collision-free encoding of a whole output; its keccak keys fill records.
    function encodeMandateOutput(MandateOutput memory output) internal pure returns (bytes memory) {
        _checkLengths(output);
        return abi.encodePacked(
            output.oracle,
            output.settler,
            output.chainId,
            output.token,
            output.amount,
            output.recipient,
            uint16(output.callbackData.length),
            output.callbackData,
            uint16(output.context.length),
            output.context
        );
    }

    /// @notice Hash identifying an output on its destination chain (never carried cross-chain).
    function outputHash(MandateOutput memory output) internal pure returns (bytes32) {
        return keccak256(encodeMandateOutput(output));
    }

    /// @notice The payload an oracle carries cross-chain: who filled which order's output, and when.
    function encodeFillDescription(bytes32 solver, bytes32 orderId, uint32 timestamp, MandateOutput memory output)
        internal
        pure
        returns (bytes memory)
    {
        _checkLengths(output);
        return abi.encodePacked(
            solver,
            orderId,
            timestamp,
            output.token,
            output.amount,
            output.recipient,
            uint16(output.callbackData.length),
            output.callbackData,
            uint16(output.context.length),
            output.context
        );
    }

    function _checkLengths(MandateOutput memory output) private pure {
        if (output.callbackData.length > type(uint16).max) revert CallbackDataTooLong();
        if (output.context.length > type(uint16).max) revert ContextTooLong();
    }
}
