// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {Test} from "forge-std/Test.sol";
import {OrderHashLib} from "../../src/libraries/OrderHashLib.sol";
import {Permit2WitnessLib} from "../../src/libraries/Permit2WitnessLib.sol";
import {CompactMandateLib} from "../../src/libraries/CompactMandateLib.sol";

/// @notice Pins the EIP-712 typehashes of onchain.md: a change here breaks every signer.
contract TypehashesTest is Test {
    function test_mandateOutputTypehash() public pure {
        assertEq(OrderHashLib.MANDATE_OUTPUT_TYPEHASH, 0xd83fab35b1a9ad089ade576779f12270534c95983ceba3a006ab4bbf9c1721c2);
    }

    function test_permit2WitnessTypehash() public pure {
        assertEq(
            Permit2WitnessLib.PERMIT2_WITNESS_TYPEHASH, 0xffa26bd09cd499b6cfe426fbb3a274c89c5a3566c5486476b9c0979ed1366aa0
        );
    }

    function test_fullPermit2PrimaryTypehash() public pure {
        bytes32 full = keccak256(
            abi.encodePacked(
                "PermitBatchWitnessTransferFrom(TokenPermissions[] permitted,address spender,uint256 nonce,uint256 deadline,",
                Permit2WitnessLib.PERMIT2_WITNESS_TYPE_STRING
            )
        );
        assertEq(full, 0x392238876bfda99ea4fa7856a798a813866bf086e76744d43bb3f51e54419167);
    }

    function test_mandateTypehash() public pure {
        assertEq(CompactMandateLib.MANDATE_TYPEHASH, 0x26de209d5b4baa7a4fd9cc0fbcb32c0c0621b7db34ab29288ae29ebd2c6ac11a);
    }

    function test_batchCompactTypehash() public pure {
        assertEq(
            CompactMandateLib.BATCH_COMPACT_TYPEHASH, 0x5f094e58b077a941d99d3449bd1be66fd3bc9d23ab9e4c06a8713cabc3e3b634
        );
    }

    function test_receiveWithAuthorizationTypehash() public pure {
        assertEq(
            keccak256(
                "ReceiveWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
            ),
            0xd099cc98ef71107a616c4f0f941f04c322d8e254fe26b3c6668db87aae413de8
        );
    }
}
