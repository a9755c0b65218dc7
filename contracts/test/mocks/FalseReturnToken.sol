// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

/// @title FalseReturnToken
/// @notice Token that signals failure by returning false instead of reverting; callers must treat it as a
/// failed transfer.
contract FalseReturnToken {
    function approve(address, uint256) external pure returns (bool) {
        return true;
    }

    function transfer(address, uint256) external pure returns (bool) {
        return false;
    }

    function transferFrom(address, address, uint256) external pure returns (bool) {
        return false;
    }
}
