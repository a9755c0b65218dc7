// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {IInputCallback} from "../../src/input/escrow/IInputCallback.sol";
import {InputSettlerEscrow} from "../../src/input/escrow/InputSettlerEscrow.sol";
import {StandardOrder} from "../../src/types/StandardOrder.sol";

/// @notice A solver's payout contract that remembers what `finalise` told it.
contract RecordingPayoutReceiver is IInputCallback {
    uint256[2][] public receivedInputs;
    bytes public receivedCall;
    uint256 public calls;

    function orderFinalised(uint256[2][] calldata inputs, bytes calldata callData) external {
        for (uint256 i; i < inputs.length; ++i) {
            receivedInputs.push(inputs[i]);
        }
        receivedCall = callData;
        ++calls;
    }

    function receivedInputCount() external view returns (uint256) {
        return receivedInputs.length;
    }
}

/// @notice A payout contract that refuses the callback.
contract RevertingPayoutReceiver is IInputCallback {
    error NotNow();

    function orderFinalised(uint256[2][] calldata, bytes calldata) external pure {
        revert NotNow();
    }
}

/// @notice A payout contract that tries to refund the order it is being paid for, from inside the callback.
contract ReenteringPayoutReceiver is IInputCallback {
    InputSettlerEscrow private immutable _escrow;
    bytes private _order;

    constructor(InputSettlerEscrow escrow_) {
        _escrow = escrow_;
    }

    function arm(StandardOrder calldata order) external {
        _order = abi.encode(order);
    }

    function orderFinalised(uint256[2][] calldata, bytes calldata) external {
        _escrow.refund(abi.decode(_order, (StandardOrder)));
    }
}
