// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {IInputOracle} from "../interfaces/IInputOracle.sol";

/// @title BaseInputOracle
/// @notice Storage and proof checks of an input oracle (OIF shape): a set of records
/// `(remoteChainId, remoteOracle, application, dataHash)`, `isProven` for one record and
/// `efficientRequireProven` for a series of 128-byte records. Inherited by `InputOracle` and by the
/// `OutputSettler` (which, as in OIF, can also serve as a same-chain oracle through `setAttestation`).
abstract contract BaseInputOracle is IInputOracle {
    /// @notice The proof series is not a whole number of 128-byte records.
    error NotDivisible(uint256 value, uint256 divisor);

    /// @notice A record was proven: `payloadHash` from `application` on `chainid`, attested by `remoteIdentifier`.
    event OutputProven(uint256 chainid, bytes32 remoteIdentifier, bytes32 application, bytes32 payloadHash);

    /// @dev 32-byte remoteChainId, remoteOracle, application, dataHash.
    uint256 internal constant PROOF_RECORD_LENGTH = 128;

    mapping(
        uint256 remoteChainId
            => mapping(bytes32 remoteOracle => mapping(bytes32 application => mapping(bytes32 dataHash => bool)))
    ) internal _attestations;

    /// @inheritdoc IInputOracle
    function isProven(uint256 remoteChainId, bytes32 remoteOracle, bytes32 application, bytes32 dataHash)
        external
        view
        returns (bool)
    {
        return _attestations[remoteChainId][remoteOracle][application][dataHash];
    }

    /// @inheritdoc IInputOracle
    /// @dev Stricter than OIF: an empty series reverts `NotProven` (it would prove an order with no outputs).
    function efficientRequireProven(bytes calldata proofSeries) external view {
        uint256 length = proofSeries.length;
        if (length % PROOF_RECORD_LENGTH != 0) revert NotDivisible(length, PROOF_RECORD_LENGTH);
        if (length == 0) revert NotProven();
        for (uint256 offset; offset < length; offset += PROOF_RECORD_LENGTH) {
            uint256 remoteChainId = uint256(bytes32(proofSeries[offset:offset + 32]));
            bytes32 remoteOracle = bytes32(proofSeries[offset + 32:offset + 64]);
            bytes32 application = bytes32(proofSeries[offset + 64:offset + 96]);
            bytes32 dataHash = bytes32(proofSeries[offset + 96:offset + 128]);
            if (!_attestations[remoteChainId][remoteOracle][application][dataHash]) revert NotProven();
        }
    }
}
