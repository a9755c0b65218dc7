// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {IAllocator} from "./interfaces/IAllocator.sol";
import {IResourceLock} from "./interfaces/IResourceLock.sol";
import {LockIdLib} from "./libraries/LockIdLib.sol";
import {ResetPeriod, Scope} from "./types/LockTypes.sol";

/// @title AlwaysOkAllocator
/// @notice SANDBOX ONLY. An allocator that authorizes every claim and every transfer, so it prevents no
/// double-spend: a sponsor can commit the same balance twice and the later claim simply fails for lack of
/// balance. Never use it where claimants rely on an allocator's guarantee.
/// @dev Registers itself with the lock in its constructor (allowed because the caller is the allocator), so a
/// CREATE2 deployment with the lock's address as argument gives the same allocator id on every chain.
contract AlwaysOkAllocator is IAllocator {
    error RegistrationFailed();

    IResourceLock public immutable LOCK;
    uint96 public immutable ALLOCATOR_ID;

    constructor(address lock) {
        LOCK = IResourceLock(lock);
        ALLOCATOR_ID = LOCK.__registerAllocator(address(this), "");
        if (ALLOCATOR_ID != LockIdLib.allocatorIdFor(address(this))) revert RegistrationFailed();
    }

    /// @notice Lock tag for deposits under this allocator.
    function lockTag(Scope scope, ResetPeriod resetPeriod) external view returns (bytes12) {
        return LockIdLib.toLockTag(ALLOCATOR_ID, scope, resetPeriod);
    }

    function attest(address, address, address, uint256, uint256) external pure returns (bytes4) {
        return IAllocator.attest.selector;
    }

    function authorizeClaim(bytes32, address, address, uint256, uint256, uint256[2][] calldata, bytes calldata)
        external
        pure
        returns (bytes4)
    {
        return IAllocator.authorizeClaim.selector;
    }

    function isClaimAuthorized(bytes32, address, address, uint256, uint256, uint256[2][] calldata, bytes calldata)
        external
        pure
        returns (bool)
    {
        return true;
    }
}
