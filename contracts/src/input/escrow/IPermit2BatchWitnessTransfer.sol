// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

/// @title IPermit2BatchWitnessTransfer
/// @notice The slice of Permit2's SignatureTransfer ABI the escrow calls: a batch transfer authorised by a
/// signature over `PermitBatchWitnessTransferFrom` with a caller-defined witness.
interface IPermit2BatchWitnessTransfer {
    struct TokenPermissions {
        address token;
        uint256 amount;
    }

    struct PermitBatchTransferFrom {
        TokenPermissions[] permitted;
        uint256 nonce;
        uint256 deadline;
    }

    struct SignatureTransferDetails {
        address to;
        uint256 requestedAmount;
    }

    function permitWitnessTransferFrom(
        PermitBatchTransferFrom memory permit,
        SignatureTransferDetails[] calldata transferDetails,
        address owner,
        bytes32 witness,
        string calldata witnessTypeString,
        bytes calldata signature
    ) external;
}
