// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

/// @title ISignatureTransfer
/// @notice ABI of Permit2's SignatureTransfer half (Uniswap Permit2): tools and solvers written for the
/// canonical deployment call ours unchanged, so every selector, struct layout, event and error must match.
interface ISignatureTransfer {
    /// @notice The spender asked for more than the owner signed for.
    error InvalidAmount(uint256 maxAmount);
    /// @notice A batch permit and its transfer details differ in length.
    error LengthMismatch();
    /// @notice `block.timestamp` is past the signed deadline (the deadline itself is still valid).
    error SignatureExpired(uint256 signatureDeadline);
    /// @notice The unordered nonce was already used or invalidated.
    error InvalidNonce();
    /// @notice An EOA signature that is neither 65 bytes nor 64 bytes (EIP-2098).
    error InvalidSignatureLength();
    /// @notice ecrecover returned address(0).
    error InvalidSignature();
    /// @notice The signature recovers to someone other than the owner.
    error InvalidSigner();
    /// @notice The owner is a contract and its ERC-1271 `isValidSignature` did not return the magic value.
    error InvalidContractSignature();

    /// @notice The owner set the bits of `mask` in its nonce bitmap word `word`.
    event UnorderedNonceInvalidation(address indexed owner, uint256 word, uint256 mask);

    struct TokenPermissions {
        address token;
        /// Most the spender may take.
        uint256 amount;
    }

    struct PermitTransferFrom {
        TokenPermissions permitted;
        /// Unordered nonce: bits 8..255 pick the bitmap word, bits 0..7 the bit.
        uint256 nonce;
        uint256 deadline;
    }

    /// @dev The spender is not part of the struct: it is always msg.sender, yet the owner signs over it.
    struct PermitBatchTransferFrom {
        TokenPermissions[] permitted;
        uint256 nonce;
        uint256 deadline;
    }

    struct SignatureTransferDetails {
        address to;
        uint256 requestedAmount;
    }

    /// @notice EIP-712 domain separator `{name: "Permit2", chainId, verifyingContract}` for the current chain.
    function DOMAIN_SEPARATOR() external view returns (bytes32);

    /// @notice Bitmap word `wordPos` of `owner`'s used or invalidated nonces.
    function nonceBitmap(address owner, uint256 wordPos) external view returns (uint256);

    function permitTransferFrom(
        PermitTransferFrom memory permit,
        SignatureTransferDetails calldata transferDetails,
        address owner,
        bytes calldata signature
    ) external;

    /// @param witnessTypeString Tail of the type string after `...,uint256 deadline,`, starting with
    /// `<WitnessType> witness)` and listing every referenced type, TokenPermissions included, sorted by name.
    function permitWitnessTransferFrom(
        PermitTransferFrom memory permit,
        SignatureTransferDetails calldata transferDetails,
        address owner,
        bytes32 witness,
        string calldata witnessTypeString,
        bytes calldata signature
    ) external;

    /// @dev A zero `requestedAmount` skips that token, so a spender may take a subset of the permitted tokens.
    function permitTransferFrom(
        PermitBatchTransferFrom memory permit,
        SignatureTransferDetails[] calldata transferDetails,
        address owner,
        bytes calldata signature
    ) external;

    function permitWitnessTransferFrom(
        PermitBatchTransferFrom memory permit,
        SignatureTransferDetails[] calldata transferDetails,
        address owner,
        bytes32 witness,
        string calldata witnessTypeString,
        bytes calldata signature
    ) external;

    /// @notice Burns the nonces whose bits are set in `mask`, at word `wordPos`, for msg.sender.
    function invalidateUnorderedNonces(uint256 wordPos, uint256 mask) external;
}
