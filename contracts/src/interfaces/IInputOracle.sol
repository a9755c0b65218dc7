// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

/// @title IInputOracle
/// @notice Origin-chain side of the oracle pair: answers whether a remote fill has been proven (OIF shape).
interface IInputOracle {
    /// @notice A proof in the series is missing.
    error NotProven();

    /// @notice Whether `dataHash`, produced by `application` on `remoteChainId` and attested by `remoteOracle`,
    /// has been recorded here.
    function isProven(uint256 remoteChainId, bytes32 remoteOracle, bytes32 application, bytes32 dataHash)
        external
        view
        returns (bool);

    /// @notice Reverts `NotProven()` unless every record of the series is proven.
    /// @param proofSeries Concatenated 128-byte records `remoteChainId ‖ remoteOracle ‖ application ‖ dataHash`.
    function efficientRequireProven(bytes calldata proofSeries) external view;
}
