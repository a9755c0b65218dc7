// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {Test} from "forge-std/Test.sol";

import {MandateOutput, StandardOrder} from "../../src/types/StandardOrder.sol";
import {InputSettlerCompact} from "../../src/input/compact/InputSettlerCompact.sol";
import {ResourceLock} from "../../src/lock/ResourceLock.sol";

/// @notice A fixed BatchCompact whose struct hash and digest were computed with viem's `hashStruct` and
/// `hashTypedData` (domain {name: "The Compact", version: "1", chainId: 31337, verifyingContract: 0x44…44},
/// types BatchCompact, Lock, Mandate, MandateOutput). Keeps the TypeScript payload and the contracts in step.
contract BatchCompactTypedDataVectorTest is Test {
    bytes32 internal constant VIEM_STRUCT_HASH = 0x860371df5785fa18606d71e503e5c363ca2723efab40579715169d92734f8cbc;
    bytes32 internal constant VIEM_DIGEST = 0x4a68e61327d9402c9f9d6519758c3dc5965dab18cdaa1f82aea58ffa1d2ce88e;

    address internal constant LOCK = 0x4444444444444444444444444444444444444444;
    address internal constant SETTLER = 0x3333333333333333333333333333333333333333;

    function test_viemVector() public {
        vm.chainId(31_337);
        deployCodeTo("ResourceLock.sol:ResourceLock", LOCK);
        deployCodeTo("InputSettlerCompact.sol:InputSettlerCompact", abi.encode(LOCK), SETTLER);

        StandardOrder memory order;
        order.user = 0x1111111111111111111111111111111111111111;
        order.nonce = 5;
        order.originChainId = 31_337;
        order.expires = 2_000_000_000;
        order.fillDeadline = 1_999_999_000;
        order.inputOracle = 0x2222222222222222222222222222222222222222;
        order.inputs = new uint256[2][](1);
        order.inputs[0] = [uint256(0x00000000000000000000abcd5555555555555555555555555555555555555555), 100];
        order.outputs = new MandateOutput[](1);
        order.outputs[0] = MandateOutput({
            oracle: bytes32(0x6666666666666666666666666666666666666666666666666666666666666666),
            settler: bytes32(0x7777777777777777777777777777777777777777777777777777777777777777),
            chainId: 31_338,
            token: bytes32(uint256(uint160(0x8888888888888888888888888888888888888888))),
            amount: 99,
            recipient: bytes32(uint256(uint160(0x9999999999999999999999999999999999999999))),
            callbackData: "",
            context: hex"00"
        });

        bytes32 structHash = InputSettlerCompact(SETTLER).compactClaimHash(order);
        assertEq(structHash, VIEM_STRUCT_HASH);
        assertEq(keccak256(abi.encodePacked("\x19\x01", ResourceLock(LOCK).DOMAIN_SEPARATOR(), structHash)), VIEM_DIGEST);
    }
}
