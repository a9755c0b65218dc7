// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {IERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Permit.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";
import {Nonces} from "@openzeppelin/contracts/utils/Nonces.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

/// @title StablecoinBase
/// @notice What every test stablecoin shares: ERC-20 with chosen decimals, EIP-2612 permit and an owner
/// faucet (`mint`).
/// @dev The EIP-712 domain is USDC's: `{name: token name, version: "2", chainId, verifyingContract: token}`,
/// readable through `eip712Domain()` (ERC-5267) and `DOMAIN_SEPARATOR()`. Signatures go through
/// SignatureChecker, so smart-contract wallets (ERC-1271) can permit too, as with USDC v2.2.
abstract contract StablecoinBase is ERC20, IERC20Permit, EIP712, Nonces, Ownable {
    /// @notice `block.timestamp > deadline`: the permit is no longer valid (the deadline itself still is).
    error PermitExpired(uint256 deadline);
    /// @notice The permit signature is not the owner's.
    error InvalidPermitSignature();

    bytes32 public constant PERMIT_TYPEHASH =
        keccak256("Permit(address owner,address spender,uint256 value,uint256 nonce,uint256 deadline)");

    uint8 private immutable _decimals;

    constructor(string memory name_, string memory symbol_, uint8 decimals_, address owner_)
        ERC20(name_, symbol_)
        EIP712(name_, "2")
        Ownable(owner_)
    {
        _decimals = decimals_;
    }

    function decimals() public view override returns (uint8) {
        return _decimals;
    }

    /// @notice Faucet: the sandbox funds accounts with it.
    function mint(address to, uint256 amount) external onlyOwner {
        _mint(to, amount);
    }

    /// @inheritdoc IERC20Permit
    function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)
        external
    {
        // forge-lint: disable-next-line(block-timestamp)
        if (block.timestamp > deadline) revert PermitExpired(deadline);
        bytes32 structHash = keccak256(abi.encode(PERMIT_TYPEHASH, owner, spender, value, _useNonce(owner), deadline));
        if (!_isValidSignature(owner, structHash, abi.encodePacked(r, s, v))) revert InvalidPermitSignature();
        _approve(owner, spender, value);
    }

    /// @inheritdoc IERC20Permit
    function nonces(address owner) public view override(IERC20Permit, Nonces) returns (uint256) {
        return super.nonces(owner);
    }

    /// @inheritdoc IERC20Permit
    // solhint-disable-next-line func-name-mixedcase
    function DOMAIN_SEPARATOR() external view returns (bytes32) {
        return _domainSeparatorV4();
    }

    /// @dev True when `signature` over this token's EIP-712 digest of `structHash` is `signer`'s.
    function _isValidSignature(address signer, bytes32 structHash, bytes memory signature)
        internal
        view
        returns (bool)
    {
        return SignatureChecker.isValidSignatureNow(signer, _hashTypedDataV4(structHash), signature);
    }
}
