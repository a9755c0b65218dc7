// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ISignatureTransfer} from "./ISignatureTransfer.sol";
import {PermitHashLib} from "./PermitHashLib.sol";
import {Permit2SignatureLib} from "./Permit2SignatureLib.sol";

/// @title SignatureTransfer
/// @notice Permit2-compatible signature transfers: an owner approves this contract once per token, then
/// signs one-off permits that a named spender redeems, guarded by an unordered nonce bitmap.
/// @dev The devnet copies this runtime code to Permit2's canonical address with `anvil_setCode`, so the
/// contract has no constructor, no immutables and no initialised storage: the domain separator is derived
/// from `block.chainid` and `address(this)` on every use, which also keeps it right after a chain id change.
contract SignatureTransfer is ISignatureTransfer {
    using SafeERC20 for IERC20;

    /// @dev Permit2's domain has no `version` member.
    bytes32 private constant DOMAIN_TYPEHASH = keccak256("EIP712Domain(string name,uint256 chainId,address verifyingContract)");
    bytes32 private constant HASHED_NAME = keccak256("Permit2");

    /// @inheritdoc ISignatureTransfer
    mapping(address owner => mapping(uint256 wordPos => uint256 bitmap)) public nonceBitmap;

    /// @inheritdoc ISignatureTransfer
    function DOMAIN_SEPARATOR() public view returns (bytes32) {
        return keccak256(abi.encode(DOMAIN_TYPEHASH, HASHED_NAME, block.chainid, address(this)));
    }

    /// @inheritdoc ISignatureTransfer
    function permitTransferFrom(
        PermitTransferFrom memory permit,
        SignatureTransferDetails calldata transferDetails,
        address owner,
        bytes calldata signature
    ) external {
        _transferSingle(permit, transferDetails, owner, PermitHashLib.hash(permit, msg.sender), signature);
    }

    /// @inheritdoc ISignatureTransfer
    function permitWitnessTransferFrom(
        PermitTransferFrom memory permit,
        SignatureTransferDetails calldata transferDetails,
        address owner,
        bytes32 witness,
        string calldata witnessTypeString,
        bytes calldata signature
    ) external {
        _transferSingle(
            permit,
            transferDetails,
            owner,
            PermitHashLib.hashWithWitness(permit, msg.sender, witness, witnessTypeString),
            signature
        );
    }

    /// @inheritdoc ISignatureTransfer
    function permitTransferFrom(
        PermitBatchTransferFrom memory permit,
        SignatureTransferDetails[] calldata transferDetails,
        address owner,
        bytes calldata signature
    ) external {
        _transferBatch(permit, transferDetails, owner, PermitHashLib.hash(permit, msg.sender), signature);
    }

    /// @inheritdoc ISignatureTransfer
    function permitWitnessTransferFrom(
        PermitBatchTransferFrom memory permit,
        SignatureTransferDetails[] calldata transferDetails,
        address owner,
        bytes32 witness,
        string calldata witnessTypeString,
        bytes calldata signature
    ) external {
        _transferBatch(
            permit,
            transferDetails,
            owner,
            PermitHashLib.hashWithWitness(permit, msg.sender, witness, witnessTypeString),
            signature
        );
    }

    /// @inheritdoc ISignatureTransfer
    function invalidateUnorderedNonces(uint256 wordPos, uint256 mask) external {
        nonceBitmap[msg.sender][wordPos] |= mask;
        emit UnorderedNonceInvalidation(msg.sender, wordPos, mask);
    }

    function _transferSingle(
        PermitTransferFrom memory permit,
        SignatureTransferDetails calldata transferDetails,
        address owner,
        bytes32 structHash,
        bytes calldata signature
    ) private {
        uint256 requestedAmount = transferDetails.requestedAmount;
        // Deadlines are minutes to hours long: a validator's few seconds of timestamp leeway do not matter.
        // forge-lint: disable-next-line(block-timestamp)
        if (block.timestamp > permit.deadline) revert SignatureExpired(permit.deadline);
        if (requestedAmount > permit.permitted.amount) revert InvalidAmount(permit.permitted.amount);

        _useUnorderedNonce(owner, permit.nonce);
        Permit2SignatureLib.verify(signature, _hashTypedData(structHash), owner);

        IERC20(permit.permitted.token).safeTransferFrom(owner, transferDetails.to, requestedAmount);
    }

    function _transferBatch(
        PermitBatchTransferFrom memory permit,
        SignatureTransferDetails[] calldata transferDetails,
        address owner,
        bytes32 structHash,
        bytes calldata signature
    ) private {
        // forge-lint: disable-next-line(block-timestamp)
        if (block.timestamp > permit.deadline) revert SignatureExpired(permit.deadline);
        uint256 count = permit.permitted.length;
        if (count != transferDetails.length) revert LengthMismatch();

        _useUnorderedNonce(owner, permit.nonce);
        Permit2SignatureLib.verify(signature, _hashTypedData(structHash), owner);

        for (uint256 i; i < count; ++i) {
            TokenPermissions memory permitted = permit.permitted[i];
            uint256 requestedAmount = transferDetails[i].requestedAmount;
            if (requestedAmount > permitted.amount) revert InvalidAmount(permitted.amount);
            if (requestedAmount != 0) {
                IERC20(permitted.token).safeTransferFrom(owner, transferDetails[i].to, requestedAmount);
            }
        }
    }

    /// @dev Flips the nonce's bit; finding it already set means a replay or an invalidated nonce.
    function _useUnorderedNonce(address owner, uint256 nonce) private {
        uint256 wordPos = nonce >> 8;
        // forge-lint: disable-next-line(incorrect-shift)
        uint256 bit = 1 << (nonce & 0xff);
        uint256 flipped = nonceBitmap[owner][wordPos] ^= bit;
        if (flipped & bit == 0) revert InvalidNonce();
    }

    function _hashTypedData(bytes32 structHash) private view returns (bytes32) {
        return keccak256(abi.encodePacked("\x19\x01", DOMAIN_SEPARATOR(), structHash));
    }
}
