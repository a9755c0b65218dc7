// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {InputSettlerBase} from "../../src/input/InputSettlerBase.sol";
import {InputSettlerEscrow} from "../../src/input/escrow/InputSettlerEscrow.sol";
import {SolveParams, StandardOrder} from "../../src/types/StandardOrder.sol";
import {OrderPurchase} from "../../src/types/OrderPurchase.sol";
import {EscrowTestBase} from "./EscrowTestBase.sol";

/// @notice `finaliseWithSignature` (the owner's AllowOpen signature) and `purchaseOrder` (a third party buys a
/// filled order), with the EIP-712 messages built here from OIF's type strings, not from the contracts' code.
contract EscrowSignedClaimsTest is EscrowTestBase {
    bytes32 internal constant ALLOW_OPEN_TYPEHASH = keccak256("AllowOpen(bytes32 orderId,bytes32 destination,bytes call)");
    bytes32 internal constant ORDER_PURCHASE_TYPEHASH =
        keccak256("OrderPurchase(bytes32 orderId,address destination,bytes callData,uint64 discount,uint32 timeToBuy)");

    address internal signingSolver;
    uint256 internal signingSolverKey;
    address internal purchaser = makeAddr("purchaser");

    function setUp() public override {
        super.setUp();
        (signingSolver, signingSolverKey) = makeAddrAndKey("signingSolver");
        _fundSolver(signingSolver);
        usdc.mint(purchaser, 1_000_000e6);
        vm.prank(purchaser);
        usdc.approve(address(escrow), type(uint256).max);
    }

    function _domainSeparator() internal view returns (bytes32) {
        return keccak256(
            abi.encode(
                keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"),
                keccak256("OIFEscrow"),
                keccak256("1"),
                block.chainid,
                address(escrow)
            )
        );
    }

    function _sign(uint256 key, bytes32 structHash) internal view returns (bytes memory) {
        (uint8 v, bytes32 r, bytes32 s) =
            vm.sign(key, keccak256(abi.encodePacked(hex"1901", _domainSeparator(), structHash)));
        return abi.encodePacked(r, s, v);
    }

    function _allowOpen(uint256 key, bytes32 orderId, bytes32 destination, bytes memory call)
        internal
        view
        returns (bytes memory)
    {
        return _sign(key, keccak256(abi.encode(ALLOW_OPEN_TYPEHASH, orderId, destination, keccak256(call))));
    }

    function test_domainSeparator_isOifEscrowV1() public view {
        assertEq(escrow.DOMAIN_SEPARATOR(), _domainSeparator());
    }

    function test_finaliseWithSignature_anyoneSubmitsTheOwnersPayout() public {
        StandardOrder memory order = _order();
        bytes32 orderId = _openAsTaker(order);
        SolveParams[] memory params = _fillAll(order, signingSolver);
        address vault = makeAddr("vault");
        bytes memory signature = _allowOpen(signingSolverKey, orderId, _id(vault), "");

        vm.expectEmit(address(escrow));
        emit InputSettlerBase.Finalised(orderId, _id(signingSolver), _id(vault));
        vm.prank(stranger);
        escrow.finaliseWithSignature(order, params, _id(vault), "", signature);

        assertEq(usdc.balanceOf(vault), INPUT_AMOUNT);
        assertEq(uint8(escrow.orderStatus(orderId)), uint8(InputSettlerEscrow.OrderStatus.Claimed));
    }

    function test_finaliseWithSignature_otherDestinationThanSigned_reverts() public {
        StandardOrder memory order = _order();
        bytes32 orderId = _openAsTaker(order);
        SolveParams[] memory params = _fillAll(order, signingSolver);
        bytes memory signature = _allowOpen(signingSolverKey, orderId, _id(makeAddr("vault")), "");

        vm.prank(stranger);
        vm.expectRevert(InputSettlerBase.InvalidSigner.selector);
        escrow.finaliseWithSignature(order, params, _id(stranger), "", signature);
    }

    function test_finaliseWithSignature_signedByAnotherKey_reverts() public {
        StandardOrder memory order = _order();
        bytes32 orderId = _openAsTaker(order);
        SolveParams[] memory params = _fillAll(order, signingSolver);
        (, uint256 otherKey) = makeAddrAndKey("impostor");
        bytes memory signature = _allowOpen(otherKey, orderId, _id(stranger), "");

        vm.prank(stranger);
        vm.expectRevert(InputSettlerBase.InvalidSigner.selector);
        escrow.finaliseWithSignature(order, params, _id(stranger), "", signature);
    }

    function _purchase(bytes32 orderId, uint64 discount, uint32 timeToBuy)
        internal
        view
        returns (OrderPurchase memory purchase, bytes memory signature)
    {
        purchase = OrderPurchase({
            orderId: orderId, destination: signingSolver, callData: "", discount: discount, timeToBuy: timeToBuy
        });
        signature = _sign(
            signingSolverKey,
            keccak256(
                abi.encode(
                    ORDER_PURCHASE_TYPEHASH, orderId, signingSolver, keccak256(""), uint256(discount), uint256(timeToBuy)
                )
            )
        );
    }

    function test_purchaseOrder_paysTheSolverAndHandsOverOwnership() public {
        StandardOrder memory order = _order();
        bytes32 orderId = _openAsTaker(order);
        SolveParams[] memory params = _fillAll(order, signingSolver);
        (OrderPurchase memory purchase, bytes memory signature) = _purchase(orderId, 1e16, 1 hours);

        vm.expectEmit(address(escrow));
        emit InputSettlerBase.OrderPurchased(orderId, _id(signingSolver), _id(purchaser));
        vm.prank(purchaser);
        escrow.purchaseOrder(purchase, order, _id(signingSolver), _id(purchaser), block.timestamp, signature);
        assertEq(usdc.balanceOf(signingSolver), INPUT_AMOUNT * 99 / 100, "solver paid less the 1% discount");

        vm.prank(signingSolver);
        vm.expectRevert(InputSettlerBase.NotOrderOwner.selector);
        escrow.finalise(order, params, _id(signingSolver), "");

        uint256 before = usdc.balanceOf(purchaser);
        vm.prank(purchaser);
        escrow.finalise(order, params, _id(purchaser), "");
        assertEq(usdc.balanceOf(purchaser) - before, INPUT_AMOUNT);
    }

    function test_purchaseOrder_twice_reverts() public {
        StandardOrder memory order = _order();
        bytes32 orderId = _openAsTaker(order);
        _fillAll(order, signingSolver);
        (OrderPurchase memory purchase, bytes memory signature) = _purchase(orderId, 0, 1 hours);
        vm.prank(purchaser);
        escrow.purchaseOrder(purchase, order, _id(signingSolver), _id(purchaser), block.timestamp, signature);
        vm.prank(purchaser);
        vm.expectRevert(InputSettlerBase.AlreadyPurchased.selector);
        escrow.purchaseOrder(purchase, order, _id(signingSolver), _id(purchaser), block.timestamp, signature);
    }

    function test_purchaseOrder_wrongOrderId_reverts() public {
        StandardOrder memory order = _order();
        bytes32 orderId = _openAsTaker(order);
        (OrderPurchase memory purchase, bytes memory signature) = _purchase(bytes32(uint256(orderId) ^ 1), 0, 1);
        vm.prank(purchaser);
        vm.expectRevert(
            abi.encodeWithSelector(InputSettlerEscrow.OrderIdMismatch.selector, purchase.orderId, orderId)
        );
        escrow.purchaseOrder(purchase, order, _id(signingSolver), _id(purchaser), block.timestamp, signature);
    }

    function test_purchaseOrder_badSignature_reverts() public {
        StandardOrder memory order = _order();
        bytes32 orderId = _openAsTaker(order);
        (OrderPurchase memory purchase, bytes memory signature) = _purchase(orderId, 0, 1 hours);
        purchase.discount = 5e17; // not what the solver signed
        vm.prank(purchaser);
        vm.expectRevert(InputSettlerBase.InvalidSigner.selector);
        escrow.purchaseOrder(purchase, order, _id(signingSolver), _id(purchaser), block.timestamp, signature);
    }
}
