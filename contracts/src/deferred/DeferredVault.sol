// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";
import {ISignatureTransfer} from "../permit2/ISignatureTransfer.sol";

/// @title DeferredVault
/// @notice The deferred rail's prefunded balances. A workspace (an opaque `account`) deposits tokens through a
/// Permit2 transfer its owner signed, with the account as witness, so whoever relays the deposit cannot credit
/// anyone else. The service (the `operator`) then moves that credit: it holds an order's input at once (no
/// per-order escrow), releases it back on a refund, pays solvers their held amounts in netted batches, and pays
/// withdrawals. Every token the vault holds is somebody's credit or a held order:
/// `balanceOf(vault) == totalCredit[token] + totalHeld[token]` after every call.
contract DeferredVault is ReentrancyGuardTransient {
    using SafeERC20 for IERC20;

    /// @notice Permit2's witness type for a deposit: the account the deposit credits.
    string public constant DEPOSIT_WITNESS_TYPE_STRING =
        "Deposit witness)Deposit(bytes32 account)TokenPermissions(address token,uint256 amount)";
    bytes32 public constant DEPOSIT_TYPEHASH = keccak256("Deposit(bytes32 account)");

    enum HoldStatus {
        None,
        Held,
        Released,
        Paid
    }

    struct Hold {
        bytes32 account;
        address token;
        uint256 amount;
        HoldStatus status;
    }

    /// @notice One order of a payout batch and the solver it pays.
    struct Payout {
        bytes32 orderId;
        address recipient;
    }

    ISignatureTransfer public immutable PERMIT2;
    /// @notice The only caller of hold, release, payout and withdraw (the service's relayer).
    address public immutable OPERATOR;

    mapping(bytes32 account => mapping(address token => uint256 amount)) public credit;
    mapping(bytes32 orderId => Hold) public holds;
    mapping(address token => uint256 amount) public totalCredit;
    mapping(address token => uint256 amount) public totalHeld;

    event Deposited(bytes32 indexed account, address indexed token, address indexed from, uint256 amount);
    event Withdrawn(bytes32 indexed account, address indexed token, address indexed to, uint256 amount);
    event Held(bytes32 indexed orderId, bytes32 indexed account, address indexed token, uint256 amount);
    event Released(bytes32 indexed orderId, bytes32 indexed account, address indexed token, uint256 amount);
    event Paid(bytes32 indexed orderId, address indexed recipient, address indexed token, uint256 amount);
    /// @notice One transfer of a batch: the sum paid to `recipient` in `token` for `orders` orders.
    event BatchTransfer(address indexed recipient, address indexed token, uint256 amount, uint256 orders);

    error NotOperator(address caller);
    error ZeroAccount();
    error ZeroAddress();
    error ZeroAmount();
    /// @notice The account's available credit in `token` is below `requested`.
    error InsufficientCredit(bytes32 account, address token, uint256 available, uint256 requested);
    /// @notice The order id already has a hold (held, released or paid): ids are never reused.
    error HoldExists(bytes32 orderId);
    /// @notice The order has no hold in the `Held` state.
    error NotHeld(bytes32 orderId, HoldStatus status);
    /// @notice The vault received less than the permit moved (a fee-on-transfer or no-op token).
    error InsufficientDeposit(address token, uint256 expected, uint256 received);

    modifier onlyOperator() {
        if (msg.sender != OPERATOR) revert NotOperator(msg.sender);
        _;
    }

    constructor(ISignatureTransfer permit2, address operator) {
        if (address(permit2) == address(0) || operator == address(0)) revert ZeroAddress();
        PERMIT2 = permit2;
        OPERATOR = operator;
    }

    /// @notice Pulls `permit.permitted.amount` of the owner's tokens through Permit2 and credits `account` with what
    /// arrived. Anyone may relay it: the owner's signature covers the account (witness), the vault as spender, the
    /// amount, the nonce and the deadline.
    function deposit(
        bytes32 account,
        ISignatureTransfer.PermitTransferFrom calldata permit,
        address owner,
        bytes calldata signature
    ) external nonReentrant returns (uint256 received) {
        if (account == bytes32(0)) revert ZeroAccount();
        uint256 amount = permit.permitted.amount;
        if (amount == 0) revert ZeroAmount();
        IERC20 token = IERC20(permit.permitted.token);
        uint256 before = token.balanceOf(address(this));
        PERMIT2.permitWitnessTransferFrom(
            permit,
            ISignatureTransfer.SignatureTransferDetails({to: address(this), requestedAmount: amount}),
            owner,
            keccak256(abi.encode(DEPOSIT_TYPEHASH, account)),
            DEPOSIT_WITNESS_TYPE_STRING,
            signature
        );
        received = token.balanceOf(address(this)) - before;
        if (received != amount) revert InsufficientDeposit(address(token), amount, received);
        credit[account][address(token)] += received;
        totalCredit[address(token)] += received;
        emit Deposited(account, address(token), owner, received);
    }

    /// @notice Pays `amount` of `account`'s available credit to `to`.
    function withdraw(bytes32 account, address token, uint256 amount, address to) external onlyOperator nonReentrant {
        if (to == address(0)) revert ZeroAddress();
        if (amount == 0) revert ZeroAmount();
        _debit(account, token, amount);
        totalCredit[token] -= amount;
        IERC20(token).safeTransfer(to, amount);
        emit Withdrawn(account, token, to, amount);
    }

    /// @notice Moves `amount` of `account`'s credit into a hold for `orderId` (a deferred order's input).
    function hold(bytes32 orderId, bytes32 account, address token, uint256 amount) external onlyOperator {
        if (amount == 0) revert ZeroAmount();
        if (holds[orderId].status != HoldStatus.None) revert HoldExists(orderId);
        _debit(account, token, amount);
        totalCredit[token] -= amount;
        totalHeld[token] += amount;
        holds[orderId] = Hold({account: account, token: token, amount: amount, status: HoldStatus.Held});
        emit Held(orderId, account, token, amount);
    }

    /// @notice Credits a held order back to its account (the order was refunded).
    function release(bytes32 orderId) external onlyOperator {
        Hold storage held = holds[orderId];
        if (held.status != HoldStatus.Held) revert NotHeld(orderId, held.status);
        held.status = HoldStatus.Released;
        totalHeld[held.token] -= held.amount;
        totalCredit[held.token] += held.amount;
        credit[held.account][held.token] += held.amount;
        emit Released(orderId, held.account, held.token, held.amount);
    }

    /// @notice Pays held orders to their solvers, netted: one transfer per (recipient, token) pair of the batch.
    /// All or nothing: one order that is not held reverts the batch.
    function payout(Payout[] calldata batch) external onlyOperator nonReentrant {
        address[] memory recipients = new address[](batch.length);
        address[] memory tokens = new address[](batch.length);
        uint256[] memory sums = new uint256[](batch.length);
        uint256[] memory counts = new uint256[](batch.length);
        uint256 pairs;
        for (uint256 i; i < batch.length; ++i) {
            Payout calldata item = batch[i];
            if (item.recipient == address(0)) revert ZeroAddress();
            Hold storage held = holds[item.orderId];
            if (held.status != HoldStatus.Held) revert NotHeld(item.orderId, held.status);
            held.status = HoldStatus.Paid;
            totalHeld[held.token] -= held.amount;
            emit Paid(item.orderId, item.recipient, held.token, held.amount);
            uint256 slot = pairs;
            for (uint256 j; j < pairs; ++j) {
                if (recipients[j] == item.recipient && tokens[j] == held.token) {
                    slot = j;
                    break;
                }
            }
            if (slot == pairs) {
                recipients[slot] = item.recipient;
                tokens[slot] = held.token;
                ++pairs;
            }
            sums[slot] += held.amount;
            ++counts[slot];
        }
        for (uint256 j; j < pairs; ++j) {
            IERC20(tokens[j]).safeTransfer(recipients[j], sums[j]);
            emit BatchTransfer(recipients[j], tokens[j], sums[j], counts[j]);
        }
    }

    function _debit(bytes32 account, address token, uint256 amount) private {
        uint256 available = credit[account][token];
        if (available < amount) revert InsufficientCredit(account, token, available, amount);
        credit[account][token] = available - amount;
    }
}
