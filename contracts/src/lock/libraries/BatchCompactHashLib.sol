// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {BatchClaimComponent} from "../types/LockTypes.sol";
import {LockIdLib} from "./LockIdLib.sol";

/// @title BatchCompactHashLib
/// @notice EIP-712 struct hash of the BatchCompact a sponsor signed, rebuilt from a claim.
/// @dev The typestring is assembled the way The Compact does it: a fixed prefix, the arbiter-supplied
/// `witnessTypestring`, then ")". For the order Mandate this yields exactly CompactMandateLib.BATCH_COMPACT_TYPE.
library BatchCompactHashLib {
    bytes internal constant WITNESS_TYPE_PREFIX =
        "BatchCompact(address arbiter,address sponsor,uint256 nonce,uint256 expires,Lock[] commitments,Mandate mandate)Lock(bytes12 lockTag,address token,uint256 amount)Mandate(";

    bytes32 internal constant NO_WITNESS_TYPEHASH = keccak256(
        "BatchCompact(address arbiter,address sponsor,uint256 nonce,uint256 expires,Lock[] commitments)Lock(bytes12 lockTag,address token,uint256 amount)"
    );

    bytes32 internal constant LOCK_TYPEHASH = keccak256("Lock(bytes12 lockTag,address token,uint256 amount)");

    /// @notice Typehash of a BatchCompact carrying a Mandate described by `witnessTypestring`
    /// (empty: no mandate).
    function typehash(string calldata witnessTypestring) internal pure returns (bytes32) {
        if (bytes(witnessTypestring).length == 0) return NO_WITNESS_TYPEHASH;
        return keccak256(abi.encodePacked(WITNESS_TYPE_PREFIX, witnessTypestring, ")"));
    }

    /// @notice `Lock[]` hash of the commitments (each lock's signed amount is its allocatedAmount).
    function commitmentsHash(BatchClaimComponent[] calldata claims) internal pure returns (bytes32) {
        bytes32[] memory hashes = new bytes32[](claims.length);
        for (uint256 i; i < claims.length; ++i) {
            uint256 id = claims[i].id;
            hashes[i] = keccak256(
                abi.encode(LOCK_TYPEHASH, LockIdLib.lockTagOf(id), LockIdLib.addressOf(id), claims[i].allocatedAmount)
            );
        }
        return keccak256(abi.encodePacked(hashes));
    }

    /// @notice The claim hash: struct hash of the BatchCompact with `arbiter` as the arbiter.
    function claimHash(
        address arbiter,
        address sponsor,
        uint256 nonce,
        uint256 expires,
        BatchClaimComponent[] calldata claims,
        bytes32 witness,
        string calldata witnessTypestring
    ) internal pure returns (bytes32) {
        bytes32 commitments = commitmentsHash(claims);
        if (bytes(witnessTypestring).length == 0) {
            return keccak256(abi.encode(NO_WITNESS_TYPEHASH, arbiter, sponsor, nonce, expires, commitments));
        }
        return keccak256(
            abi.encode(typehash(witnessTypestring), arbiter, sponsor, nonce, expires, commitments, witness)
        );
    }
}
