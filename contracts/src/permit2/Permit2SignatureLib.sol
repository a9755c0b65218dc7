// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {IERC1271} from "@openzeppelin/contracts/interfaces/IERC1271.sol";
import {ISignatureTransfer} from "./ISignatureTransfer.sol";

/// @title Permit2SignatureLib
/// @notice Signature check with Permit2's rules: EOAs sign with 65-byte or 64-byte (EIP-2098) signatures,
/// contracts answer ERC-1271; failures revert with Permit2's errors.
/// @dev High-s signatures are accepted as Permit2 does: replay protection comes from the nonce, not from
/// signature uniqueness.
library Permit2SignatureLib {
    bytes32 private constant S_MASK = 0x7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff;

    function verify(bytes calldata signature, bytes32 digest, address claimedSigner) internal view {
        if (claimedSigner.code.length != 0) {
            bytes4 magic = IERC1271(claimedSigner).isValidSignature(digest, signature);
            if (magic != IERC1271.isValidSignature.selector) revert ISignatureTransfer.InvalidContractSignature();
            return;
        }

        bytes32 r;
        bytes32 s;
        uint8 v;
        if (signature.length == 65) {
            r = bytes32(signature[0:32]);
            s = bytes32(signature[32:64]);
            v = uint8(signature[64]);
        } else if (signature.length == 64) {
            bytes32 vs = bytes32(signature[32:64]);
            r = bytes32(signature[0:32]);
            s = vs & S_MASK;
            v = uint8(uint256(vs >> 255)) + 27;
        } else {
            revert ISignatureTransfer.InvalidSignatureLength();
        }

        address signer = ecrecover(digest, v, r, s);
        if (signer == address(0)) revert ISignatureTransfer.InvalidSignature();
        if (signer != claimedSigner) revert ISignatureTransfer.InvalidSigner();
    }
}
