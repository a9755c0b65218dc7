// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

/// @title IERC3009
/// @notice ERC-3009 transfers with authorization, as USDC exposes them: a holder signs one transfer and
/// anyone (transfer) or only the payee (receive) submits it. Each function comes with USDC's two
/// overloads: a packed `bytes signature` (EOA or ERC-1271 wallet) and split `v, r, s`.
interface IERC3009 {
    /// @notice `now <= validAfter`: the authorization is not valid yet.
    error AuthorizationNotYetValid(uint256 validAfter);
    /// @notice `now >= validBefore`: the authorization is no longer valid.
    error AuthorizationExpired(uint256 validBefore);
    /// @notice The nonce was already used or canceled by `authorizer`.
    error AuthorizationAlreadyUsed(address authorizer, bytes32 nonce);
    /// @notice `receiveWithAuthorization` submitted by someone other than the payee.
    error CallerNotPayee(address caller, address payee);
    /// @notice The signature is not `authorizer`'s (wrong key, tampered field, or a refusing ERC-1271 wallet).
    error InvalidAuthorizationSignature();

    event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce);
    event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce);

    function TRANSFER_WITH_AUTHORIZATION_TYPEHASH() external view returns (bytes32);
    function RECEIVE_WITH_AUTHORIZATION_TYPEHASH() external view returns (bytes32);
    function CANCEL_AUTHORIZATION_TYPEHASH() external view returns (bytes32);

    /// @notice True once `nonce` of `authorizer` was used or canceled.
    function authorizationState(address authorizer, bytes32 nonce) external view returns (bool);

    function transferWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes memory signature
    ) external;

    function transferWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external;

    /// @dev Only `to` may submit: a front-runner cannot consume the authorization outside the payee's call.
    function receiveWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes memory signature
    ) external;

    function receiveWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external;

    function cancelAuthorization(address authorizer, bytes32 nonce, bytes memory signature) external;

    function cancelAuthorization(address authorizer, bytes32 nonce, uint8 v, bytes32 r, bytes32 s) external;
}
