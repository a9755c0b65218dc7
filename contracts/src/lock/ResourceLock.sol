// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {ERC6909} from "@openzeppelin/contracts/token/ERC6909/draft-ERC6909.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";
import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";

import {IAllocator} from "./interfaces/IAllocator.sol";
import {IResourceLock} from "./interfaces/IResourceLock.sol";
import {BatchCompactHashLib} from "./libraries/BatchCompactHashLib.sol";
import {LockIdLib} from "./libraries/LockIdLib.sol";
import {
    BatchClaim,
    BatchClaimComponent,
    Component,
    ForcedWithdrawalStatus,
    ResetPeriod,
    Scope
} from "./types/LockTypes.sol";

/// @title ResourceLock: The Compact (subset)
/// @notice An ownerless ERC-6909 resource lock that follows The Compact v1 where it matters to resource-lock
/// orders: lock ids and lock tags, the EIP-712 domain {name: "The Compact", version: "1"}, the BatchCompact
/// signed by sponsors, `batchClaim` with its claimant encoding, allocator hooks, allocator-scoped nonces and
/// forced withdrawals. Registration of compacts, emissaries, Permit2 deposits, single and multichain claims,
/// allocated transfers and the withdrawal gas fallback are left out.
/// @dev Takes no constructor arguments, so a CREATE2 deployment lands on the same address on every chain. The
/// EIP-712 domain separator is recomputed when block.chainid differs from the deployment chain.
contract ResourceLock is IResourceLock, ERC6909, EIP712, ReentrancyGuardTransient {
    using SafeERC20 for IERC20;

    /// @dev allocatorId => registered allocator.
    mapping(uint96 allocatorId => address allocator) private _allocators;
    /// @dev Nonces are scoped to the allocator of the claimed locks, as in The Compact.
    mapping(address allocator => mapping(uint256 nonce => bool consumed)) private _consumedNonces;
    mapping(address account => mapping(uint256 id => uint256 withdrawableAt)) private _forcedWithdrawals;

    constructor() EIP712("The Compact", "1") {}

    // --- Deposits --- //

    /// @inheritdoc IResourceLock
    function depositERC20(address token, bytes12 lockTag, uint256 amount, address recipient)
        external
        nonReentrant
        returns (uint256 id)
    {
        if (token == address(0)) revert InvalidToken(token);
        _registeredAllocator(LockIdLib.allocatorIdOf(lockTag));
        id = LockIdLib.toId(lockTag, token);

        uint256 balanceBefore = IERC20(token).balanceOf(address(this));
        IERC20(token).safeTransferFrom(msg.sender, address(this), amount);
        uint256 received = IERC20(token).balanceOf(address(this)) - balanceBefore;
        // A token that reports success without moving funds must not mint a balance.
        if (received == 0) revert InvalidDepositBalanceChange();

        _mint(recipient == address(0) ? msg.sender : recipient, id, received);
    }

    /// @inheritdoc IResourceLock
    function depositNative(bytes12 lockTag, address recipient) external payable nonReentrant returns (uint256 id) {
        if (msg.value == 0) revert InvalidDepositBalanceChange();
        _registeredAllocator(LockIdLib.allocatorIdOf(lockTag));
        id = LockIdLib.toId(lockTag, address(0));
        _mint(recipient == address(0) ? msg.sender : recipient, id, msg.value);
    }

    // --- Allocators --- //

    /// @inheritdoc IResourceLock
    function __registerAllocator(address allocator, bytes calldata proof) external returns (uint96 allocatorId) {
        if (msg.sender != allocator && allocator.code.length == 0 && !_isCreate2Proof(allocator, proof)) {
            revert InvalidRegistrationProof(allocator);
        }
        allocatorId = LockIdLib.allocatorIdFor(allocator);
        address existing = _allocators[allocatorId];
        if (existing != address(0)) revert AllocatorAlreadyRegistered(allocatorId, existing);
        _allocators[allocatorId] = allocator;
        emit AllocatorRegistered(allocatorId, allocator);
    }

    /// @inheritdoc IResourceLock
    function consume(uint256[] calldata nonces) external returns (bool) {
        for (uint256 i; i < nonces.length; ++i) {
            _consumeNonce(msg.sender, nonces[i]);
            emit NonceConsumedDirectly(msg.sender, nonces[i]);
        }
        return true;
    }

    // --- Claims --- //

    /// @inheritdoc IResourceLock
    /// @dev Order of checks: expiry, one allocator for all locks, nonce (consumed before any external call),
    /// sponsor signature over the BatchCompact naming msg.sender as arbiter, allocator authorization, payout.
    /// Because the arbiter is msg.sender inside the signed hash, only the arbiter the sponsor named can claim.
    function batchClaim(BatchClaim calldata claimPayload) external nonReentrant returns (bytes32 claimHash) {
        BatchClaimComponent[] calldata claims = claimPayload.claims;
        if (claims.length == 0) revert InvalidBatchAllocation();
        if (block.timestamp >= claimPayload.expires) revert Expired(claimPayload.expires);

        (address allocator, uint256[2][] memory idsAndAmounts) = _allocatorAndAmounts(claims);

        claimHash = BatchCompactHashLib.claimHash(
            msg.sender,
            claimPayload.sponsor,
            claimPayload.nonce,
            claimPayload.expires,
            claims,
            claimPayload.witness,
            claimPayload.witnessTypestring
        );

        _consumeNonce(allocator, claimPayload.nonce);

        // The Compact lets a sponsor act as its own arbiter without a signature; arbiters that may be named as
        // sponsor (e.g. a settler) must refuse such orders themselves.
        if (msg.sender != claimPayload.sponsor) {
            _verifySponsor(claimPayload.sponsor, _hashTypedDataV4(claimHash), claimPayload.sponsorSignature);
        }

        bytes4 answer = IAllocator(allocator).authorizeClaim(
            claimHash,
            msg.sender,
            claimPayload.sponsor,
            claimPayload.nonce,
            claimPayload.expires,
            idsAndAmounts,
            claimPayload.allocatorData
        );
        if (answer != IAllocator.authorizeClaim.selector) revert InvalidAllocation(allocator);

        for (uint256 i; i < claims.length; ++i) {
            _payOut(claimPayload.sponsor, claims[i]);
        }

        emit Claim(claimPayload.sponsor, allocator, msg.sender, claimHash, claimPayload.nonce);
    }

    // --- Forced withdrawals --- //

    /// @inheritdoc IResourceLock
    function enableForcedWithdrawal(uint256 id) external returns (uint256 withdrawableAt) {
        withdrawableAt = block.timestamp + LockIdLib.resetPeriodSeconds(LockIdLib.resetPeriodOf(id));
        _forcedWithdrawals[msg.sender][id] = withdrawableAt;
        emit ForcedWithdrawalStatusUpdated(msg.sender, id, true, withdrawableAt);
    }

    /// @inheritdoc IResourceLock
    function disableForcedWithdrawal(uint256 id) external returns (bool) {
        if (_forcedWithdrawals[msg.sender][id] == 0) revert ForcedWithdrawalAlreadyDisabled(msg.sender, id);
        delete _forcedWithdrawals[msg.sender][id];
        emit ForcedWithdrawalStatusUpdated(msg.sender, id, false, 0);
        return true;
    }

    /// @inheritdoc IResourceLock
    /// @dev A zero `recipient` pays the caller.
    function forcedWithdrawal(uint256 id, address recipient, uint256 amount) external nonReentrant returns (bool) {
        uint256 withdrawableAt = _forcedWithdrawals[msg.sender][id];
        if (withdrawableAt == 0 || withdrawableAt > block.timestamp) revert PrematureWithdrawal(id);
        _burn(msg.sender, id, amount);
        _release(LockIdLib.addressOf(id), recipient == address(0) ? msg.sender : recipient, amount);
        return true;
    }

    // --- ERC-6909 transfers need the allocator's attestation --- //

    /// @dev Without the attestation a sponsor could move a balance it already committed to a compact.
    function transfer(address receiver, uint256 id, uint256 amount) public override nonReentrant returns (bool) {
        _attest(msg.sender, receiver, id, amount);
        return super.transfer(receiver, id, amount);
    }

    function transferFrom(address sender, address receiver, uint256 id, uint256 amount)
        public
        override
        nonReentrant
        returns (bool)
    {
        _attest(sender, receiver, id, amount);
        return super.transferFrom(sender, receiver, id, amount);
    }

    // --- Views --- //

    /// @inheritdoc IResourceLock
    function getForcedWithdrawalStatus(address account, uint256 id)
        external
        view
        returns (ForcedWithdrawalStatus status, uint256 forcedWithdrawalAvailableAt)
    {
        forcedWithdrawalAvailableAt = _forcedWithdrawals[account][id];
        if (forcedWithdrawalAvailableAt == 0) status = ForcedWithdrawalStatus.Disabled;
        else if (forcedWithdrawalAvailableAt > block.timestamp) status = ForcedWithdrawalStatus.Pending;
        else status = ForcedWithdrawalStatus.Enabled;
    }

    /// @inheritdoc IResourceLock
    /// @dev Reverts NoAllocatorRegistered for an id whose allocator is unknown.
    function getLockDetails(uint256 id)
        external
        view
        returns (address token, address allocator, ResetPeriod resetPeriod, Scope scope, bytes12 lockTag)
    {
        token = LockIdLib.addressOf(id);
        allocator = _registeredAllocator(LockIdLib.allocatorIdOf(id));
        resetPeriod = LockIdLib.resetPeriodOf(id);
        scope = LockIdLib.scopeOf(id);
        lockTag = LockIdLib.lockTagOf(id);
    }

    /// @inheritdoc IResourceLock
    function hasConsumedAllocatorNonce(uint256 nonce, address allocator) external view returns (bool) {
        return _consumedNonces[allocator][nonce];
    }

    /// @inheritdoc IResourceLock
    function DOMAIN_SEPARATOR() external view returns (bytes32) {
        return _domainSeparatorV4();
    }

    // --- Internals --- //

    function _registeredAllocator(uint96 allocatorId) private view returns (address allocator) {
        allocator = _allocators[allocatorId];
        if (allocator == address(0)) revert NoAllocatorRegistered(allocatorId);
    }

    function _isCreate2Proof(address allocator, bytes calldata proof) private pure returns (bool) {
        return proof.length == 85 && proof[0] == 0xff && address(uint160(uint256(keccak256(proof)))) == allocator;
    }

    function _consumeNonce(address allocator, uint256 nonce) private {
        if (_consumedNonces[allocator][nonce]) revert InvalidNonce(allocator, nonce);
        _consumedNonces[allocator][nonce] = true;
    }

    /// @dev All locks of one claim must share an allocator: it alone authorizes the claim and owns the nonce.
    function _allocatorAndAmounts(BatchClaimComponent[] calldata claims)
        private
        view
        returns (address allocator, uint256[2][] memory idsAndAmounts)
    {
        uint96 allocatorId = LockIdLib.allocatorIdOf(claims[0].id);
        idsAndAmounts = new uint256[2][](claims.length);
        for (uint256 i; i < claims.length; ++i) {
            if (LockIdLib.allocatorIdOf(claims[i].id) != allocatorId) revert InconsistentAllocators();
            idsAndAmounts[i] = [claims[i].id, claims[i].allocatedAmount];
        }
        allocator = _registeredAllocator(allocatorId);
    }

    /// @dev ECDSA (65-byte or EIP-2098 64-byte) first, then ERC-1271 for contract sponsors.
    function _verifySponsor(address sponsor, bytes32 digest, bytes calldata signature) private view {
        address recovered;
        if (signature.length == 64) {
            (recovered,,) = ECDSA.tryRecover(digest, bytes32(signature[0:32]), bytes32(signature[32:64]));
        } else {
            (recovered,,) = ECDSA.tryRecover(digest, signature);
        }
        if (recovered == sponsor && recovered != address(0)) return;
        if (sponsor.code.length > 0 && SignatureChecker.isValidERC1271SignatureNow(sponsor, digest, signature)) {
            return;
        }
        revert InvalidSignature();
    }

    function _payOut(address sponsor, BatchClaimComponent calldata claim) private {
        uint256 id = claim.id;
        Component[] calldata portions = claim.portions;
        uint256 total;
        for (uint256 i; i < portions.length; ++i) {
            total += portions[i].amount;
        }
        if (total > claim.allocatedAmount) revert AllocatedAmountExceeded(claim.allocatedAmount, total);

        bytes12 lockTag = LockIdLib.lockTagOf(id);
        address token = LockIdLib.addressOf(id);
        for (uint256 i; i < portions.length; ++i) {
            uint256 claimant = portions[i].claimant;
            uint256 amount = portions[i].amount;
            bytes12 targetTag = LockIdLib.lockTagOf(claimant);
            address recipient = LockIdLib.addressOf(claimant);
            if (targetTag == bytes12(0)) {
                _burn(sponsor, id, amount);
                _release(token, recipient, amount);
            } else if (targetTag == lockTag) {
                _transfer(sponsor, recipient, id, amount);
            } else {
                _registeredAllocator(LockIdLib.allocatorIdOf(targetTag));
                _burn(sponsor, id, amount);
                _mint(recipient, LockIdLib.toId(targetTag, token), amount);
            }
        }
    }

    /// @dev Pays out underlying tokens; the ERC-6909 balance was burnt first.
    function _release(address token, address recipient, uint256 amount) private {
        if (token == address(0)) {
            (bool ok,) = recipient.call{value: amount}("");
            if (!ok) revert NativeTransferFailed();
        } else {
            IERC20(token).safeTransfer(recipient, amount);
        }
    }

    function _attest(address from, address to, uint256 id, uint256 amount) private {
        address allocator = _registeredAllocator(LockIdLib.allocatorIdOf(id));
        if (IAllocator(allocator).attest(msg.sender, from, to, id, amount) != IAllocator.attest.selector) {
            revert UnallocatedTransfer(msg.sender, from, to, id, amount);
        }
    }
}
