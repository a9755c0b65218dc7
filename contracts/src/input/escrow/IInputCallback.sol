// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

/// @title IInputCallback
/// @notice Implemented by a solver's payout contract that wants to act on the inputs it just received.
interface IInputCallback {
    /// @notice Called by the input settler on the payout destination after the inputs were transferred to it.
    /// @param inputs The order's inputs, `[tokenId, amount]`, exactly as paid.
    /// @param callData The `call` bytes the solver passed to `finalise`.
    function orderFinalised(uint256[2][] calldata inputs, bytes calldata callData) external;
}
