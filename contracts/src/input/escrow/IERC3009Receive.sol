// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

/// @title IERC3009Receive
/// @notice The one ERC-3009 entry point the escrow uses: a payee-pulled transfer authorised by the payer's
/// signature (the `bytes signature` overload, which also accepts ERC-1271 wallets).
interface IERC3009Receive {
    /// @notice Moves `value` from `from` to `to` when `from` signed ReceiveWithAuthorization for exactly these
    /// arguments; the token requires msg.sender == to, validAfter < now < validBefore and an unused nonce.
    function receiveWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes calldata signature
    ) external;
}
