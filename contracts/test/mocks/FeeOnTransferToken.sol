// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {TestStablecoin} from "../../src/tokens/TestStablecoin.sol";

/// @title FeeOnTransferToken
/// @notice Negative-test token: a TestStablecoin (permit, ERC-3009, owner mint) that burns 1% of every
/// transfer, so the receiver gets less than `value`. An escrow that books `value` instead of its balance
/// delta becomes insolvent with it.
/// @dev The fee rounds up, so even a 1-unit transfer arrives short. Mint and burn are not charged.
contract FeeOnTransferToken is TestStablecoin {
    uint256 public constant FEE_PERCENT = 1;

    constructor(string memory name_, string memory symbol_, uint8 decimals_, address owner_)
        TestStablecoin(name_, symbol_, decimals_, owner_)
    {}

    /// @notice What `to` receives when `value` is sent.
    function amountAfterFee(uint256 value) public pure returns (uint256) {
        return value - _fee(value);
    }

    function _update(address from, address to, uint256 value) internal override {
        if (from == address(0) || to == address(0)) {
            super._update(from, to, value);
            return;
        }
        uint256 fee = _fee(value);
        super._update(from, address(0), fee);
        super._update(from, to, value - fee);
    }

    function _fee(uint256 value) private pure returns (uint256) {
        return (value * FEE_PERCENT + 99) / 100;
    }
}
