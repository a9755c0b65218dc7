// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {StablecoinBase} from "./StablecoinBase.sol";
import {ERC3009} from "./ERC3009.sol";

/// @title TestStablecoin
/// @notice USDC-like test stablecoin of the devnet: ERC-20, EIP-2612 permit, ERC-3009 and an owner faucet,
/// all signed in the domain `{name, version: "2", chainId, verifyingContract: this}`.
contract TestStablecoin is ERC3009 {
    constructor(string memory name_, string memory symbol_, uint8 decimals_, address owner_)
        StablecoinBase(name_, symbol_, decimals_, owner_)
    {}
}
