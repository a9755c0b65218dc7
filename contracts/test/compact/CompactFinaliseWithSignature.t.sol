// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {InputSettlerBase} from "../../src/input/InputSettlerBase.sol";
import {SolveParams, StandardOrder} from "../../src/types/StandardOrder.sol";
import {CompactTestBase} from "./CompactTestBase.sol";

/// @notice `InputSettlerCompact.finaliseWithSignature`: the order owner's AllowOpen signature (OIF type string,
/// domain "OIFCompact" version "1") lets anyone submit the claim to the destination the owner chose.
contract CompactFinaliseWithSignatureTest is CompactTestBase {
    function _allowOpen(uint256 key, bytes32 orderId, bytes32 to) internal view returns (bytes memory) {
        bytes32 domain = keccak256(
            abi.encode(
                keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"),
                keccak256("OIFCompact"),
                keccak256("1"),
                block.chainid,
                address(settler)
            )
        );
        bytes32 structHash = keccak256(
            abi.encode(keccak256("AllowOpen(bytes32 orderId,bytes32 destination,bytes call)"), orderId, to, keccak256(""))
        );
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(key, keccak256(abi.encodePacked(hex"1901", domain, structHash)));
        return abi.encodePacked(r, s, v);
    }

    function test_domainSeparator() public view {
        assertEq(
            settler.DOMAIN_SEPARATOR(),
            keccak256(
                abi.encode(
                    keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"),
                    keccak256("OIFCompact"),
                    keccak256("1"),
                    block.chainid,
                    address(settler)
                )
            )
        );
    }

    function test_finaliseWithSignature_strangerSubmitsTheOwnersClaim() public {
        (, uint256 solverKey) = makeAddrAndKey("solver");
        StandardOrder memory order = _order();
        bytes memory signatures = _signatures(order);
        SolveParams[] memory solveParams = _fillAll(order);
        bytes32 orderId = settler.orderIdentifier(order);

        vm.prank(makeAddr("stranger"));
        settler.finaliseWithSignature(
            order, signatures, solveParams, _id(destination), "", _allowOpen(solverKey, orderId, _id(destination))
        );
        assertEq(inputToken.balanceOf(destination), 100e6);
    }

    function test_finaliseWithSignature_wrongSigner_reverts() public {
        StandardOrder memory order = _order();
        bytes memory signatures = _signatures(order);
        SolveParams[] memory solveParams = _fillAll(order);
        bytes32 orderId = settler.orderIdentifier(order);

        vm.expectRevert(InputSettlerBase.InvalidSigner.selector);
        settler.finaliseWithSignature(
            order, signatures, solveParams, _id(destination), "", _allowOpen(userKey, orderId, _id(destination))
        );
    }
}
