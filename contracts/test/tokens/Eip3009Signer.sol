// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {Test} from "forge-std/Test.sol";
import {StandardOrder} from "../../src/types/StandardOrder.sol";
import {OrderHashLib} from "../../src/libraries/OrderHashLib.sol";

/// @notice The fields of an ERC-3009 authorization, as signed.
struct Eip3009Authorization {
    address from;
    address to;
    uint256 value;
    uint256 validAfter;
    uint256 validBefore;
    bytes32 nonce;
}

/// @title Eip3009Signer
/// @notice Test helper: signs ERC-3009 authorizations (and EIP-2612 permits) in a token's own EIP-712
/// domain, read from the token's `DOMAIN_SEPARATOR()`; and the per-input ReceiveWithAuthorization an
/// escrow order needs (onchain.md, EIP3009Escrow).
/// @dev Typehashes are literal here, independent of the token's constants, so tests catch a drift.
abstract contract Eip3009Signer is Test {
    bytes32 internal constant TRANSFER_WITH_AUTHORIZATION_TYPEHASH =
        0x7c7c6cdb67a18743f49ec6fa9b35f50d52ed05cbed4cc592e13b44501c1a2267;
    bytes32 internal constant RECEIVE_WITH_AUTHORIZATION_TYPEHASH =
        0xd099cc98ef71107a616c4f0f941f04c322d8e254fe26b3c6668db87aae413de8;
    bytes32 internal constant CANCEL_AUTHORIZATION_TYPEHASH =
        0x158b0a9edf7a828aad02f63cd515c68ef2f50ba807396f6d12842833a1597429;
    bytes32 internal constant EIP2612_PERMIT_TYPEHASH =
        0x6e71edae12b1b97f4d1f60370fef10105fa2faae0126114a169c64845d6126c9;

    /// @notice 65-byte (r ‖ s ‖ v) ReceiveWithAuthorization signature, for the `bytes signature` overload.
    function signReceiveWithAuthorization(uint256 privateKey, address token, Eip3009Authorization memory auth)
        internal
        view
        returns (bytes memory)
    {
        return _sign(privateKey, eip3009Digest(token, RECEIVE_WITH_AUTHORIZATION_TYPEHASH, auth));
    }

    /// @notice 65-byte TransferWithAuthorization signature.
    function signTransferWithAuthorization(uint256 privateKey, address token, Eip3009Authorization memory auth)
        internal
        view
        returns (bytes memory)
    {
        return _sign(privateKey, eip3009Digest(token, TRANSFER_WITH_AUTHORIZATION_TYPEHASH, auth));
    }

    /// @notice 65-byte CancelAuthorization signature.
    function signCancelAuthorization(uint256 privateKey, address token, address authorizer, bytes32 nonce)
        internal
        view
        returns (bytes memory)
    {
        bytes32 structHash = keccak256(abi.encode(CANCEL_AUTHORIZATION_TYPEHASH, authorizer, nonce));
        return _sign(privateKey, _tokenDigest(token, structHash));
    }

    /// @notice EIP-2612 permit signature split as `permit` takes it.
    function signPermit(
        uint256 privateKey,
        address token,
        address owner,
        address spender,
        uint256 value,
        uint256 nonce,
        uint256 deadline
    ) internal view returns (uint8 v, bytes32 r, bytes32 s) {
        bytes32 structHash = keccak256(abi.encode(EIP2612_PERMIT_TYPEHASH, owner, spender, value, nonce, deadline));
        return vm.sign(privateKey, _tokenDigest(token, structHash));
    }

    /// @notice Digest of a Transfer- or ReceiveWithAuthorization (`typehash` picks which) in `token`'s domain.
    function eip3009Digest(address token, bytes32 typehash, Eip3009Authorization memory auth)
        internal
        view
        returns (bytes32)
    {
        bytes32 structHash = keccak256(
            abi.encode(typehash, auth.from, auth.to, auth.value, auth.validAfter, auth.validBefore, auth.nonce)
        );
        return _tokenDigest(token, structHash);
    }

    /// @notice The authorization an escrow pulls input `index` of `order` with: from the sponsor to the
    /// escrow, validAfter 0, validBefore = fillDeadline, nonce = the order id on this chain.
    function orderReceiveAuthorization(StandardOrder memory order, uint256 index, address sponsor, address escrow)
        internal
        view
        returns (address token, Eip3009Authorization memory auth)
    {
        token = address(uint160(order.inputs[index][0]));
        auth = Eip3009Authorization({
            from: sponsor,
            to: escrow,
            value: order.inputs[index][1],
            validAfter: 0,
            validBefore: order.fillDeadline,
            nonce: OrderHashLib.orderIdentifierMemory(order, escrow)
        });
    }

    /// @notice One ReceiveWithAuthorization signature per input of `order`, signed by `privateKey` as sponsor.
    function signOrderReceiveAuthorizations(uint256 privateKey, StandardOrder memory order, address escrow)
        internal
        view
        returns (bytes[] memory signatures)
    {
        address sponsor = vm.addr(privateKey);
        signatures = new bytes[](order.inputs.length);
        for (uint256 i; i < order.inputs.length; ++i) {
            (address token, Eip3009Authorization memory auth) = orderReceiveAuthorization(order, i, sponsor, escrow);
            signatures[i] = signReceiveWithAuthorization(privateKey, token, auth);
        }
    }

    /// @notice `openFor` signature argument for the ERC-3009 lock: 0x01 ‖ signature for one input,
    /// 0x01 ‖ abi.encode(bytes[]) for several.
    function eip3009OpenForSignature(uint256 privateKey, StandardOrder memory order, address escrow)
        internal
        view
        returns (bytes memory)
    {
        bytes[] memory signatures = signOrderReceiveAuthorizations(privateKey, order, escrow);
        if (signatures.length == 1) return bytes.concat(bytes1(0x01), signatures[0]);
        return bytes.concat(bytes1(0x01), abi.encode(signatures));
    }

    function _tokenDigest(address token, bytes32 structHash) private view returns (bytes32) {
        bytes32 domainSeparator = ITokenDomain(token).DOMAIN_SEPARATOR();
        return keccak256(abi.encodePacked("\x19\x01", domainSeparator, structHash));
    }

    function _sign(uint256 privateKey, bytes32 digest) private pure returns (bytes memory) {
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(privateKey, digest);
        return abi.encodePacked(r, s, v);
    }
}

interface ITokenDomain {
    function DOMAIN_SEPARATOR() external view returns (bytes32);
}
