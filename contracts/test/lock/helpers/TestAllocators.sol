// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {IAllocator} from "../../../src/lock/interfaces/IAllocator.sol";

/// @notice Allocator whose answers a test can switch, and which records the last claim it was asked about.
contract ScriptedAllocator is IAllocator {
    bool public refuseClaims;
    bool public refuseTransfers;

    bytes32 public lastClaimHash;
    address public lastArbiter;
    address public lastSponsor;
    uint256 public lastNonce;
    uint256 public lastExpires;
    bytes public lastAllocatorData;
    uint256[2][] internal _lastIdsAndAmounts;

    function setRefusals(bool claims, bool transfers) external {
        refuseClaims = claims;
        refuseTransfers = transfers;
    }

    function lastIdsAndAmounts() external view returns (uint256[2][] memory) {
        return _lastIdsAndAmounts;
    }

    function attest(address, address, address, uint256, uint256) external view returns (bytes4) {
        return refuseTransfers ? bytes4(0xdeadbeef) : IAllocator.attest.selector;
    }

    function authorizeClaim(
        bytes32 claimHash,
        address arbiter,
        address sponsor,
        uint256 nonce,
        uint256 expires,
        uint256[2][] calldata idsAndAmounts,
        bytes calldata allocatorData
    ) external returns (bytes4) {
        lastClaimHash = claimHash;
        lastArbiter = arbiter;
        lastSponsor = sponsor;
        lastNonce = nonce;
        lastExpires = expires;
        lastAllocatorData = allocatorData;
        delete _lastIdsAndAmounts;
        for (uint256 i; i < idsAndAmounts.length; ++i) {
            _lastIdsAndAmounts.push(idsAndAmounts[i]);
        }
        return refuseClaims ? bytes4(0) : IAllocator.authorizeClaim.selector;
    }

    function isClaimAuthorized(bytes32, address, address, uint256, uint256, uint256[2][] calldata, bytes calldata)
        external
        view
        returns (bool)
    {
        return !refuseClaims;
    }
}
