// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {MandateOutput, StandardOrder} from "../../src/types/StandardOrder.sol";
import {ISignatureTransfer} from "../../src/permit2/ISignatureTransfer.sol";

/// @notice A two-input, one-output escrow order and the transfer details an escrow presents for it.
library OrderFixture {
    function twoInputOrder(address user, address tokenA, address tokenB, uint32 fillDeadline)
        internal
        view
        returns (StandardOrder memory order)
    {
        order.user = user;
        order.nonce = 0xC0FFEE;
        order.originChainId = block.chainid;
        order.fillDeadline = fillDeadline;
        order.expires = fillDeadline + 1 hours;
        order.inputOracle = address(0x0A11);
        order.inputs = new uint256[2][](2);
        order.inputs[0] = [uint256(uint160(tokenA)), 100e6];
        order.inputs[1] = [uint256(uint160(tokenB)), 50e6];
        order.outputs = new MandateOutput[](1);
        order.outputs[0] = MandateOutput({
            oracle: bytes32(uint256(0x0B22)),
            settler: bytes32(uint256(0x5E77)),
            chainId: 8453,
            token: bytes32(uint256(0x70CE)),
            amount: 149e6,
            recipient: bytes32(uint256(uint160(user))),
            callbackData: hex"",
            context: hex"00"
        });
    }

    /// @notice Everything to `to`, the full amount of each input.
    function pullAll(StandardOrder memory order, address to)
        internal
        pure
        returns (ISignatureTransfer.SignatureTransferDetails[] memory list)
    {
        list = new ISignatureTransfer.SignatureTransferDetails[](order.inputs.length);
        for (uint256 i; i < list.length; ++i) {
            list[i] = ISignatureTransfer.SignatureTransferDetails({to: to, requestedAmount: order.inputs[i][1]});
        }
    }
}
