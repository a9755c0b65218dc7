// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

/// @title IAllocator
/// @notice What the resource lock asks of an allocator (The Compact v1 `IAllocator` shape).
/// @dev Both state-changing hooks must return their own selector; anything else is a refusal.
interface IAllocator {
    /// @notice Approves a plain ERC-6909 transfer of a lock balance (`transfer` / `transferFrom`).
    function attest(address operator, address from, address to, uint256 id, uint256 amount) external returns (bytes4);

    /// @notice Approves a claim against a sponsor's locks. `idsAndAmounts` holds each lock id with its signed
    /// (allocated) amount.
    function authorizeClaim(
        bytes32 claimHash,
        address arbiter,
        address sponsor,
        uint256 nonce,
        uint256 expires,
        uint256[2][] calldata idsAndAmounts,
        bytes calldata allocatorData
    ) external returns (bytes4);

    /// @notice Off-chain preview of `authorizeClaim`.
    function isClaimAuthorized(
        bytes32 claimHash,
        address arbiter,
        address sponsor,
        uint256 nonce,
        uint256 expires,
        uint256[2][] calldata idsAndAmounts,
        bytes calldata allocatorData
    ) external view returns (bool);
}
