// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

/// @notice A solver's offer to sell a filled order it owns (EIP-712 signed by the solver; OIF layout).
struct OrderPurchase {
    bytes32 orderId;
    /// The address that receives the purchase price (an account, not an identifier).
    address destination;
    /// When non-empty, `IInputCallback(destination).orderFinalised(inputs, callData)` runs after payment.
    bytes callData;
    /// Share of each input the purchaser keeps, in units of 1e18.
    uint64 discount;
    /// Seconds before the purchase in which the order's last fill must fall for the purchase to count.
    uint32 timeToBuy;
}

/// @title SignedMessagesLib
/// @notice EIP-712 struct hashes of the messages the input settlers verify: AllowOpen (the order owner lets
/// someone else claim to a destination of the owner's choosing) and OrderPurchase. Type strings as in OIF.
library SignedMessagesLib {
    bytes32 internal constant ALLOW_OPEN_TYPEHASH = keccak256("AllowOpen(bytes32 orderId,bytes32 destination,bytes call)");
    bytes32 internal constant ORDER_PURCHASE_TYPEHASH =
        keccak256("OrderPurchase(bytes32 orderId,address destination,bytes callData,uint64 discount,uint32 timeToBuy)");

    function allowOpenHash(bytes32 orderId, bytes32 destination, bytes calldata call) internal pure returns (bytes32) {
        return keccak256(abi.encode(ALLOW_OPEN_TYPEHASH, orderId, destination, keccak256(call)));
    }

    function orderPurchaseHash(OrderPurchase calldata purchase) internal pure returns (bytes32) {
        return keccak256(
            abi.encode(
                ORDER_PURCHASE_TYPEHASH,
                purchase.orderId,
                purchase.destination,
                keccak256(purchase.callData),
                purchase.discount,
                purchase.timeToBuy
            )
        );
    }
}
