// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @notice Plain mintable ERC-20 for output settler tests (the project's stablecoins evolve independently).
contract OutputTestToken is ERC20 {
    constructor() ERC20("Output Test Dollar", "OTD") {}

    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }
}
