// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

/// @title NoReturnToken
/// @notice USDT-style token whose `transfer`/`transferFrom`/`approve` return nothing; it does move balances.
/// Shows that callers use SafeERC20-style calls rather than expecting a bool.
contract NoReturnToken {
    mapping(address account => uint256 balance) public balanceOf;
    mapping(address owner => mapping(address spender => uint256 amount)) public allowance;

    function mint(address to, uint256 amount) external {
        balanceOf[to] += amount;
    }

    function approve(address spender, uint256 amount) external {
        allowance[msg.sender][spender] = amount;
    }

    function transfer(address to, uint256 amount) external {
        balanceOf[msg.sender] -= amount;
        balanceOf[to] += amount;
    }

    function transferFrom(address from, address to, uint256 amount) external {
        allowance[from][msg.sender] -= amount;
        balanceOf[from] -= amount;
        balanceOf[to] += amount;
    }
}
