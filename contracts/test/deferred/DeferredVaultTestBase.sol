// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {Permit2Signer} from "../permit2/Permit2Signer.sol";
import {ISignatureTransfer} from "../../src/permit2/ISignatureTransfer.sol";
import {DeferredVault} from "../../src/deferred/DeferredVault.sol";
import {TestStablecoin} from "../../src/tokens/TestStablecoin.sol";

/// @notice A vault on the canonical Permit2 with two stablecoins, and a signer for deposit permits built from the
/// literal type strings (not the vault's constants), so a drift in the vault's witness is caught.
abstract contract DeferredVaultTestBase is Permit2Signer {
    bytes32 internal constant DEPOSIT_PERMIT_TYPEHASH = keccak256(
        "PermitWitnessTransferFrom(TokenPermissions permitted,address spender,uint256 nonce,uint256 deadline,Deposit witness)Deposit(bytes32 account)TokenPermissions(address token,uint256 amount)"
    );
    bytes32 internal constant ACCOUNT = keccak256("ws_alpha");
    bytes32 internal constant OTHER_ACCOUNT = keccak256("ws_beta");
    uint256 internal constant DEPOSITOR_KEY = 0xD3A0;
    uint256 internal constant START_BALANCE = 1e30;

    DeferredVault internal vault;
    TestStablecoin internal usdc;
    TestStablecoin internal usdt;
    address internal operator = makeAddr("operator");
    address internal depositor;
    uint256 internal nextNonce = 1;

    function setUp() public virtual {
        vm.warp(1_700_000_000);
        etchPermit2();
        vault = new DeferredVault(ISignatureTransfer(PERMIT2), operator);
        usdc = new TestStablecoin("USD Coin", "USDC", 6, address(this));
        usdt = new TestStablecoin("Tether USD", "USDT", 6, address(this));
        depositor = vm.addr(DEPOSITOR_KEY);
        fund(depositor);
    }

    function fund(address who) internal {
        usdc.mint(who, START_BALANCE);
        usdt.mint(who, START_BALANCE);
        vm.startPrank(who);
        usdc.approve(PERMIT2, type(uint256).max);
        usdt.approve(PERMIT2, type(uint256).max);
        vm.stopPrank();
    }

    function depositPermit(address token, uint256 amount) internal returns (ISignatureTransfer.PermitTransferFrom memory) {
        return ISignatureTransfer.PermitTransferFrom({
            permitted: ISignatureTransfer.TokenPermissions({token: token, amount: amount}),
            nonce: nextNonce++,
            deadline: block.timestamp + 1 hours
        });
    }

    /// @notice The owner's signature over a deposit permit crediting `account`, with the vault as spender.
    function signDeposit(uint256 key, ISignatureTransfer.PermitTransferFrom memory permit, bytes32 account)
        internal
        view
        returns (bytes memory)
    {
        bytes32 tokenPermissions =
            keccak256(abi.encode(TOKEN_PERMISSIONS_TYPEHASH, permit.permitted.token, permit.permitted.amount));
        bytes32 witness = keccak256(abi.encode(keccak256("Deposit(bytes32 account)"), account));
        bytes32 structHash = keccak256(
            abi.encode(DEPOSIT_PERMIT_TYPEHASH, tokenPermissions, address(vault), permit.nonce, permit.deadline, witness)
        );
        bytes32 digest = keccak256(abi.encodePacked("\x19\x01", permit2DomainSeparator(PERMIT2), structHash));
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(key, digest);
        return abi.encodePacked(r, s, v);
    }

    function depositAs(uint256 key, bytes32 account, address token, uint256 amount) internal returns (uint256) {
        ISignatureTransfer.PermitTransferFrom memory permit = depositPermit(token, amount);
        return vault.deposit(account, permit, vm.addr(key), signDeposit(key, permit, account));
    }
}
