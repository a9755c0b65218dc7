// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

/// @title IOutputCallback
/// @notice Implemented by output recipients whose order carries `callbackData` (OIF callback shape).
interface IOutputCallback {
    /// @notice Called by the output settler after the recipient has been paid and the fill recorded.
    /// @param token The output's token identifier (bytes32(0) for the native coin).
    /// @param amount The amount delivered.
    /// @param callbackData The output's `callbackData`, verbatim.
    function outputFilled(bytes32 token, uint256 amount, bytes calldata callbackData) external;
}
