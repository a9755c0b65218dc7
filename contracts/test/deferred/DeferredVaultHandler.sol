// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {Test} from "forge-std/Test.sol";
import {ISignatureTransfer} from "../../src/permit2/ISignatureTransfer.sol";
import {DeferredVault} from "../../src/deferred/DeferredVault.sol";
import {TestStablecoin} from "../../src/tokens/TestStablecoin.sol";

/// @notice Drives the vault the way the service does (deposits relayed from signed permits, holds for orders,
/// releases on refunds, netted payouts, withdrawals), with bounded random inputs, and keeps ghost books: the sum
/// of every account's credit per token and the held amount per token, computed independently of the vault.
contract DeferredVaultHandler is Test {
    bytes32 internal constant DEPOSIT_PERMIT_TYPEHASH = keccak256(
        "PermitWitnessTransferFrom(TokenPermissions permitted,address spender,uint256 nonce,uint256 deadline,Deposit witness)Deposit(bytes32 account)TokenPermissions(address token,uint256 amount)"
    );
    address internal constant PERMIT2 = 0x000000000022D473030F116dDEE9F6B43aC78BA3;

    DeferredVault public immutable vault;
    address public immutable operator;
    TestStablecoin[2] internal _tokens;
    bytes32[3] public accounts = [keccak256("ws_a"), keccak256("ws_b"), keccak256("ws_c")];
    uint256[3] internal keys = [uint256(0xA1), 0xA2, 0xA3];
    address[2] public solvers = [address(0x5011), address(0x5012)];

    mapping(address token => uint256) public ghostCredit;
    mapping(address token => uint256) public ghostHeld;
    mapping(address token => uint256) public paidOut;
    bytes32[] public heldOrders;
    uint256 internal nonce = 1;
    uint256 internal orderCounter;
    uint256 public calls;

    constructor(DeferredVault vault_, address operator_, TestStablecoin usdc, TestStablecoin usdt) {
        vault = vault_;
        operator = operator_;
        _tokens = [usdc, usdt];
        for (uint256 i; i < keys.length; ++i) {
            address who = vm.addr(keys[i]);
            for (uint256 t; t < 2; ++t) {
                vm.prank(who);
                _tokens[t].approve(PERMIT2, type(uint256).max);
            }
        }
    }

    function tokens() external view returns (TestStablecoin[2] memory) {
        return _tokens;
    }

    function heldCount() external view returns (uint256) {
        return heldOrders.length;
    }

    function deposit(uint256 accountSeed, uint256 tokenSeed, uint256 amount) external {
        ++calls;
        uint256 a = accountSeed % 3;
        TestStablecoin token = _tokens[tokenSeed % 2];
        amount = bound(amount, 1, 1e24);
        address owner = vm.addr(keys[a]);
        token.mint(owner, amount);
        ISignatureTransfer.PermitTransferFrom memory permit = ISignatureTransfer.PermitTransferFrom({
            permitted: ISignatureTransfer.TokenPermissions({token: address(token), amount: amount}),
            nonce: nonce++,
            deadline: block.timestamp + 1 hours
        });
        vault.deposit(accounts[a], permit, owner, _sign(keys[a], permit, accounts[a]));
        ghostCredit[address(token)] += amount;
    }

    function hold(uint256 accountSeed, uint256 tokenSeed, uint256 amount) external {
        ++calls;
        bytes32 account = accounts[accountSeed % 3];
        address token = address(_tokens[tokenSeed % 2]);
        uint256 available = vault.credit(account, token);
        if (available == 0) return;
        amount = bound(amount, 1, available);
        bytes32 orderId = keccak256(abi.encode("order", ++orderCounter));
        vm.prank(operator);
        vault.hold(orderId, account, token, amount);
        heldOrders.push(orderId);
        ghostCredit[token] -= amount;
        ghostHeld[token] += amount;
    }

    function release(uint256 seed) external {
        ++calls;
        if (heldOrders.length == 0) return;
        bytes32 orderId = _takeHeld(seed);
        (, address token, uint256 amount,) = vault.holds(orderId);
        vm.prank(operator);
        vault.release(orderId);
        ghostHeld[token] -= amount;
        ghostCredit[token] += amount;
    }

    function payout(uint256 seed, uint256 size) external {
        ++calls;
        if (heldOrders.length == 0) return;
        size = bound(size, 1, heldOrders.length < 4 ? heldOrders.length : 4);
        DeferredVault.Payout[] memory batch = new DeferredVault.Payout[](size);
        for (uint256 i; i < size; ++i) {
            bytes32 orderId = _takeHeld(seed + i);
            (, address token, uint256 amount,) = vault.holds(orderId);
            batch[i] = DeferredVault.Payout({orderId: orderId, recipient: solvers[(seed + i) % 2]});
            ghostHeld[token] -= amount;
            paidOut[token] += amount;
        }
        vm.prank(operator);
        vault.payout(batch);
    }

    function withdraw(uint256 accountSeed, uint256 tokenSeed, uint256 amount) external {
        ++calls;
        bytes32 account = accounts[accountSeed % 3];
        address token = address(_tokens[tokenSeed % 2]);
        uint256 available = vault.credit(account, token);
        if (available == 0) return;
        amount = bound(amount, 1, available);
        vm.prank(operator);
        vault.withdraw(account, token, amount, address(0xBEEF));
        ghostCredit[token] -= amount;
    }

    /// @notice Someone sends tokens to the vault directly: not credit, so the balance may exceed the books.
    function donate(uint256 tokenSeed, uint256 amount) external {
        ++calls;
        amount = bound(amount, 1, 1e20);
        _tokens[tokenSeed % 2].mint(address(vault), amount);
        donated[address(_tokens[tokenSeed % 2])] += amount;
    }

    mapping(address token => uint256) public donated;

    function _takeHeld(uint256 seed) internal returns (bytes32 orderId) {
        uint256 index = seed % heldOrders.length;
        orderId = heldOrders[index];
        heldOrders[index] = heldOrders[heldOrders.length - 1];
        heldOrders.pop();
    }

    function _sign(uint256 key, ISignatureTransfer.PermitTransferFrom memory permit, bytes32 account)
        internal
        view
        returns (bytes memory)
    {
        bytes32 tokenPermissions = keccak256(
            abi.encode(keccak256("TokenPermissions(address token,uint256 amount)"), permit.permitted.token, permit.permitted.amount)
        );
        bytes32 witness = keccak256(abi.encode(keccak256("Deposit(bytes32 account)"), account));
        bytes32 structHash = keccak256(
            abi.encode(DEPOSIT_PERMIT_TYPEHASH, tokenPermissions, address(vault), permit.nonce, permit.deadline, witness)
        );
        bytes32 domain = keccak256(
            abi.encode(
                keccak256("EIP712Domain(string name,uint256 chainId,address verifyingContract)"),
                keccak256("Permit2"),
                block.chainid,
                PERMIT2
            )
        );
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(key, keccak256(abi.encodePacked("\x19\x01", domain, structHash)));
        return abi.encodePacked(r, s, v);
    }
}
