// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

/// @notice One output the solver must deliver on a destination chain (OIF `MandateOutput` layout).
/// @dev Field order is part of the EIP-712 type string and of the order id; never reorder.
struct MandateOutput {
    /// Destination-chain oracle that attests the fill.
    bytes32 oracle;
    /// Destination-chain output settler that records the fill.
    bytes32 settler;
    uint256 chainId;
    /// bytes32(0) means the native coin.
    bytes32 token;
    uint256 amount;
    bytes32 recipient;
    bytes callbackData;
    /// Empty or 0x00: limit order.
    bytes context;
}

/// @notice The order a taker signs, embedded in a lock-specific message (OIF `StandardOrder` layout).
struct StandardOrder {
    /// Owner of the inputs, refund recipient and Compact sponsor; never address(0).
    address user;
    uint256 nonce;
    /// Checked against block.chainid by the input settler; not part of the order id.
    uint256 originChainId;
    /// Escrow: refund allowed strictly after it. Compact: claims must happen strictly before it.
    uint32 expires;
    /// Outputs must be filled at or before it; opens must happen strictly before it.
    uint32 fillDeadline;
    address inputOracle;
    /// [tokenId, amount]; for escrows tokenId = uint256(uint160(token)) with clean upper bits.
    uint256[2][] inputs;
    MandateOutput[] outputs;
}

/// @notice What a solver presents per output when finalising: when it filled and who filled it.
struct SolveParams {
    uint32 timestamp;
    bytes32 solver;
}
