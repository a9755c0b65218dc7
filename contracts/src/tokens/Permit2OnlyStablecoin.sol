// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {StablecoinBase} from "./StablecoinBase.sol";

/// @title Permit2OnlyStablecoin
/// @notice A stablecoin without ERC-3009: takers can lock it only through Permit2 (or a plain approval).
contract Permit2OnlyStablecoin is StablecoinBase {
    constructor(string memory name_, string memory symbol_, uint8 decimals_, address owner_)
        StablecoinBase(name_, symbol_, decimals_, owner_)
    {}
}
