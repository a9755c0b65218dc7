// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {BatchClaim, ForcedWithdrawalStatus, ResetPeriod, Scope} from "../types/LockTypes.sol";

/// @title IResourceLock
/// @notice The subset of The Compact v1 that resource-lock orders need: deposits, allocator registration,
/// signed batch claims and forced withdrawals. Selectors, events and errors match The Compact where they exist.
/// @dev The ERC-6909 surface (balanceOf, allowance, isOperator, transfer, transferFrom, approve, setOperator,
/// supportsInterface) comes from OpenZeppelin's ERC6909 and is not repeated here.
interface IResourceLock {
    /// @notice A claim paid out; `claimHash` is the EIP-712 struct hash of the signed BatchCompact.
    event Claim(
        address indexed sponsor, address indexed allocator, address indexed arbiter, bytes32 claimHash, uint256 nonce
    );
    event AllocatorRegistered(uint96 allocatorId, address allocator);
    event NonceConsumedDirectly(address indexed allocator, uint256 nonce);
    event ForcedWithdrawalStatusUpdated(
        address indexed account, uint256 indexed id, bool activating, uint256 withdrawableAt
    );

    error InvalidToken(address token);
    error InvalidDepositBalanceChange();
    error NoAllocatorRegistered(uint96 allocatorId);
    error AllocatorAlreadyRegistered(uint96 allocatorId, address allocator);
    error InvalidRegistrationProof(address allocator);
    error Expired(uint256 expiration);
    error InvalidNonce(address account, uint256 nonce);
    error InvalidSignature();
    error InvalidAllocation(address allocator);
    error InvalidBatchAllocation();
    error InconsistentAllocators();
    error AllocatedAmountExceeded(uint256 allocatedAmount, uint256 providedAmount);
    error UnallocatedTransfer(address operator, address from, address to, uint256 id, uint256 amount);
    error PrematureWithdrawal(uint256 id);
    error ForcedWithdrawalAlreadyDisabled(address account, uint256 id);
    error NativeTransferFailed();

    /// @notice Locks `amount` of `token` under `lockTag` for `recipient` (msg.sender when zero).
    /// Mints the balance change actually received, so fee-on-transfer tokens stay solvent.
    function depositERC20(address token, bytes12 lockTag, uint256 amount, address recipient)
        external
        returns (uint256 id);

    /// @notice Locks msg.value of the native coin under `lockTag` for `recipient` (msg.sender when zero).
    function depositNative(bytes12 lockTag, address recipient) external payable returns (uint256 id);

    /// @notice Registers `allocator`. Allowed when the caller is the allocator, the allocator has code, or
    /// `proof` (85 bytes: 0xff ‖ factory ‖ salt ‖ initCodeHash) derives its CREATE2 address.
    function __registerAllocator(address allocator, bytes calldata proof) external returns (uint96 allocatorId);

    /// @notice Pays out a sponsor-signed BatchCompact. The caller is the compact's arbiter.
    /// @return claimHash EIP-712 struct hash of the BatchCompact that was claimed.
    function batchClaim(BatchClaim calldata claimPayload) external returns (bytes32 claimHash);

    /// @notice Consumes nonces in the caller's (allocator's) namespace, cancelling compacts that use them.
    function consume(uint256[] calldata nonces) external returns (bool);

    /// @notice Starts the reset period of the caller's `id` balance.
    function enableForcedWithdrawal(uint256 id) external returns (uint256 withdrawableAt);

    function disableForcedWithdrawal(uint256 id) external returns (bool);

    /// @notice Withdraws the caller's `id` balance without the allocator once the reset period has elapsed
    /// (allowed from `withdrawableAt` on, inclusive).
    function forcedWithdrawal(uint256 id, address recipient, uint256 amount) external returns (bool);

    function getForcedWithdrawalStatus(address account, uint256 id)
        external
        view
        returns (ForcedWithdrawalStatus status, uint256 forcedWithdrawalAvailableAt);

    function getLockDetails(uint256 id)
        external
        view
        returns (address token, address allocator, ResetPeriod resetPeriod, Scope scope, bytes12 lockTag);

    function hasConsumedAllocatorNonce(uint256 nonce, address allocator) external view returns (bool);

    function DOMAIN_SEPARATOR() external view returns (bytes32);
}
