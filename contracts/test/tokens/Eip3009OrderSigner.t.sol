// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {Eip3009Authorization, Eip3009Signer} from "./Eip3009Signer.sol";
import {OrderFixture} from "../permit2/OrderFixture.sol";
import {StandardOrder} from "../../src/types/StandardOrder.sol";
import {OrderHashLib} from "../../src/libraries/OrderHashLib.sol";
import {TestStablecoin} from "../../src/tokens/TestStablecoin.sol";
import {IERC3009} from "../../src/tokens/IERC3009.sol";

/// @notice The escrow's ERC-3009 pull, as Eip3009Signer prepares it: one ReceiveWithAuthorization per input,
/// from the sponsor to the escrow, validAfter 0, validBefore = fillDeadline, nonce = order id.
contract Eip3009OrderSignerTest is Eip3009Signer {
    uint256 internal constant SPONSOR_KEY = 0x5B0;

    TestStablecoin internal usdc;
    TestStablecoin internal eurc;
    address internal sponsor;
    address internal escrow = makeAddr("escrow");

    function setUp() public {
        vm.warp(1_700_000_000);
        sponsor = vm.addr(SPONSOR_KEY);
        usdc = new TestStablecoin("USD Coin", "USDC", 6, address(this));
        eurc = new TestStablecoin("Euro Coin", "EURC", 6, address(this));
        usdc.mint(sponsor, 1_000e6);
        eurc.mint(sponsor, 1_000e6);
    }

    function test_orderAuthorizations_pullEveryInput() public {
        StandardOrder memory order = _order();
        bytes[] memory signatures = signOrderReceiveAuthorizations(SPONSOR_KEY, order, escrow);
        assertEq(signatures.length, 2);

        _pull(order, signatures);
        assertEq(usdc.balanceOf(escrow), 100e6);
        assertEq(eurc.balanceOf(escrow), 50e6);
        bytes32 orderId = OrderHashLib.orderIdentifierMemory(order, escrow);
        assertTrue(usdc.authorizationState(sponsor, orderId));
        assertTrue(eurc.authorizationState(sponsor, orderId));
    }

    function test_orderAuthorizations_shapeMatchesSpec() public view {
        StandardOrder memory order = _order();
        (address token, Eip3009Authorization memory auth) = orderReceiveAuthorization(order, 1, sponsor, escrow);
        assertEq(token, address(eurc));
        assertEq(auth.from, sponsor);
        assertEq(auth.to, escrow);
        assertEq(auth.value, 50e6);
        assertEq(auth.validAfter, 0);
        assertEq(auth.validBefore, order.fillDeadline);
        assertEq(auth.nonce, OrderHashLib.orderIdentifierMemory(order, escrow));
    }

    /// validBefore = fillDeadline is exclusive: the pull works at fillDeadline - 1 only.
    function test_orderAuthorizations_fillDeadlineEdges() public {
        StandardOrder memory order = _order();
        bytes[] memory signatures = signOrderReceiveAuthorizations(SPONSOR_KEY, order, escrow);
        uint256 snapshot = vm.snapshotState();

        vm.warp(order.fillDeadline - 1);
        _pull(order, signatures);
        vm.revertToState(snapshot);

        vm.warp(order.fillDeadline);
        vm.expectRevert(abi.encodeWithSelector(IERC3009.AuthorizationExpired.selector, uint256(order.fillDeadline)));
        _pullInput(order, 0, signatures[0]);

        vm.warp(uint256(order.fillDeadline) + 1);
        vm.expectRevert(abi.encodeWithSelector(IERC3009.AuthorizationExpired.selector, uint256(order.fillDeadline)));
        _pullInput(order, 1, signatures[1]);
    }

    function test_orderAuthorizations_revertWhenReplayed() public {
        StandardOrder memory order = _order();
        bytes[] memory signatures = signOrderReceiveAuthorizations(SPONSOR_KEY, order, escrow);
        _pull(order, signatures);
        bytes32 orderId = OrderHashLib.orderIdentifierMemory(order, escrow);
        vm.expectRevert(abi.encodeWithSelector(IERC3009.AuthorizationAlreadyUsed.selector, sponsor, orderId));
        _pullInput(order, 1, signatures[1]);
    }

    function test_openForSignature_singleInputIsPrefixedSignature() public view {
        StandardOrder memory order = _order();
        order.inputs = new uint256[2][](1);
        order.inputs[0] = [uint256(uint160(address(usdc))), 1e6];
        bytes memory arg = eip3009OpenForSignature(SPONSOR_KEY, order, escrow);
        assertEq(arg.length, 66);
        assertEq(uint8(arg[0]), 1);
    }

    function test_openForSignature_severalInputsArePrefixedAbiEncodedArray() public view {
        StandardOrder memory order = _order();
        bytes memory arg = eip3009OpenForSignature(SPONSOR_KEY, order, escrow);
        assertEq(uint8(arg[0]), 1);
        bytes[] memory decoded = abi.decode(_tail(arg), (bytes[]));
        bytes[] memory expected = signOrderReceiveAuthorizations(SPONSOR_KEY, order, escrow);
        assertEq(decoded.length, 2);
        assertEq(decoded[0], expected[0]);
        assertEq(decoded[1], expected[1]);
    }

    function _order() private view returns (StandardOrder memory) {
        return OrderFixture.twoInputOrder(sponsor, address(usdc), address(eurc), uint32(block.timestamp + 1 hours));
    }

    function _pull(StandardOrder memory order, bytes[] memory signatures) private {
        for (uint256 i; i < order.inputs.length; ++i) {
            _pullInput(order, i, signatures[i]);
        }
    }

    /// The call an escrow makes for input `i`.
    function _pullInput(StandardOrder memory order, uint256 i, bytes memory signature) private {
        bytes32 orderId = OrderHashLib.orderIdentifierMemory(order, escrow);
        vm.prank(escrow);
        IERC3009(address(uint160(order.inputs[i][0]))).receiveWithAuthorization(
            sponsor, escrow, order.inputs[i][1], 0, order.fillDeadline, orderId, signature
        );
    }

    function _tail(bytes memory data) private pure returns (bytes memory rest) {
        rest = new bytes(data.length - 1);
        for (uint256 i; i < rest.length; ++i) {
            rest[i] = data[i + 1];
        }
    }
}
