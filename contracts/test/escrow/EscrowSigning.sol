// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {Vm} from "forge-std/Vm.sol";
import {StandardOrder} from "../../src/types/StandardOrder.sol";
import {Permit2WitnessLib} from "../../src/libraries/Permit2WitnessLib.sol";

/// @title EscrowSigning
/// @notice What a taker's wallet signs for an escrow order, built from the pinned typehashes of onchain.md
/// rather than from the contracts' own hashing code, so a drift on either side shows up as a failed open.
library EscrowSigning {
    Vm private constant VM = Vm(address(uint160(uint256(keccak256("hevm cheat code")))));

    address internal constant PERMIT2 = 0x000000000022D473030F116dDEE9F6B43aC78BA3;

    /// @dev keccak256 of the full PermitBatchWitnessTransferFrom type string with Permit2Witness (onchain.md).
    bytes32 internal constant PERMIT_BATCH_WITNESS_TYPEHASH =
        0x392238876bfda99ea4fa7856a798a813866bf086e76744d43bb3f51e54419167;
    bytes32 internal constant TOKEN_PERMISSIONS_TYPEHASH = keccak256("TokenPermissions(address token,uint256 amount)");
    /// @dev keccak256 of ReceiveWithAuthorization(...) (onchain.md).
    bytes32 internal constant RECEIVE_WITH_AUTHORIZATION_TYPEHASH =
        0xd099cc98ef71107a616c4f0f941f04c322d8e254fe26b3c6668db87aae413de8;

    /// @notice Permit2's domain: no version member.
    function permit2DomainSeparator() internal view returns (bytes32) {
        return keccak256(
            abi.encode(
                keccak256("EIP712Domain(string name,uint256 chainId,address verifyingContract)"),
                keccak256("Permit2"),
                block.chainid,
                PERMIT2
            )
        );
    }

    /// @notice USDC-style token domain: version "2".
    function tokenDomainSeparator(string memory name, address token) internal view returns (bytes32) {
        return keccak256(
            abi.encode(
                keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"),
                keccak256(bytes(name)),
                keccak256("2"),
                block.chainid,
                token
            )
        );
    }

    /// @notice The escrow's Permit2 message for `order`, hashed as EIP-712 struct.
    function permit2StructHash(StandardOrder memory order, address spender) internal pure returns (bytes32) {
        bytes32[] memory permissions = new bytes32[](order.inputs.length);
        for (uint256 i; i < order.inputs.length; ++i) {
            permissions[i] = keccak256(
                abi.encode(TOKEN_PERMISSIONS_TYPEHASH, address(uint160(order.inputs[i][0])), order.inputs[i][1])
            );
        }
        return keccak256(
            abi.encode(
                PERMIT_BATCH_WITNESS_TYPEHASH,
                keccak256(abi.encodePacked(permissions)),
                spender,
                order.nonce,
                uint256(order.fillDeadline),
                Permit2WitnessLib.witnessHashMemory(order)
            )
        );
    }

    /// @notice `openFor` signature bytes for the Permit2 path: 0x00 ‖ r ‖ s ‖ v.
    function signPermit2(uint256 key, StandardOrder memory order, address spender) internal view returns (bytes memory) {
        bytes32 digest =
            keccak256(abi.encodePacked("\x19\x01", permit2DomainSeparator(), permit2StructHash(order, spender)));
        (uint8 v, bytes32 r, bytes32 s) = VM.sign(key, digest);
        return abi.encodePacked(bytes1(0x00), r, s, v);
    }

    /// @notice One ReceiveWithAuthorization signature (r ‖ s ‖ v) as the escrow presents it.
    function signReceive(
        uint256 key,
        string memory tokenName,
        address token,
        address from,
        address to,
        uint256 value,
        uint256 validBefore,
        bytes32 nonce
    ) internal view returns (bytes memory) {
        bytes32 structHash =
            keccak256(abi.encode(RECEIVE_WITH_AUTHORIZATION_TYPEHASH, from, to, value, uint256(0), validBefore, nonce));
        bytes32 digest =
            keccak256(abi.encodePacked("\x19\x01", tokenDomainSeparator(tokenName, token), structHash));
        (uint8 v, bytes32 r, bytes32 s) = VM.sign(key, digest);
        return abi.encodePacked(r, s, v);
    }
}
