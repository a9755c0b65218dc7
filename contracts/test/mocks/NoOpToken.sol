// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

/// @title NoOpToken
/// @notice Negative-test token that lies: `transfer`, `transferFrom` and ERC-3009 `receiveWithAuthorization`
/// report success yet move nothing. Balances come from a permissionless `mint`, so a sponsor looks funded;
/// only a balance-delta check catches it.
contract NoOpToken {
    string public name;
    string public symbol;
    uint8 public immutable decimals;
    uint256 public totalSupply;
    mapping(address account => uint256 balance) public balanceOf;
    mapping(address owner => mapping(address spender => uint256 amount)) public allowance;

    event Approval(address indexed owner, address indexed spender, uint256 value);

    constructor(string memory name_, string memory symbol_, uint8 decimals_) {
        name = name_;
        symbol = symbol_;
        decimals = decimals_;
    }

    /// @notice Anyone may mint: the token exists only to fool an escrow.
    function mint(address to, uint256 amount) external {
        balanceOf[to] += amount;
        totalSupply += amount;
    }

    function approve(address spender, uint256 amount) external returns (bool) {
        allowance[msg.sender][spender] = amount;
        emit Approval(msg.sender, spender, amount);
        return true;
    }

    function transfer(address, uint256) external pure returns (bool) {
        return true;
    }

    function transferFrom(address, address, uint256) external pure returns (bool) {
        return true;
    }

    /// @notice Same domain shape as the real stablecoins, so test signers can sign for this token too.
    // solhint-disable-next-line func-name-mixedcase
    function DOMAIN_SEPARATOR() external view returns (bytes32) {
        return keccak256(
            abi.encode(
                keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"),
                keccak256(bytes(name)),
                keccak256("2"),
                block.chainid,
                address(this)
            )
        );
    }

    /// @notice ERC-3009 pull that accepts any signature and moves nothing.
    function receiveWithAuthorization(address, address, uint256, uint256, uint256, bytes32, bytes memory)
        external
        pure
    {}

    function receiveWithAuthorization(address, address, uint256, uint256, uint256, bytes32, uint8, bytes32, bytes32)
        external
        pure
    {}
}
