// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {IOutputCallback} from "../../src/output/IOutputCallback.sol";
import {OutputSettler} from "../../src/output/OutputSettler.sol";
import {MandateOutput} from "../../src/types/StandardOrder.sol";
import {FillDescriptionLib} from "../../src/libraries/FillDescriptionLib.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";

/// @notice Recipient that remembers its callback and what the settler had recorded when it ran.
contract RecordingRecipient is IOutputCallback {
    OutputSettler public immutable settler;
    uint256 public calls;
    bytes32 public lastToken;
    uint256 public lastAmount;
    bytes public lastCallbackData;
    uint256 public tokenBalanceSeen;
    uint256 public nativeBalanceSeen;
    bytes32 public recordSeen;

    bytes32 private _orderId;
    bytes32 private _outputHash;

    constructor(OutputSettler settler_) {
        settler = settler_;
    }

    /// @notice Which record to read during the callback.
    function watch(bytes32 orderId, bytes32 outputHash) external {
        _orderId = orderId;
        _outputHash = outputHash;
    }

    function outputFilled(bytes32 token, uint256 amount, bytes calldata callbackData) external {
        require(msg.sender == address(settler), "only settler");
        calls += 1;
        lastToken = token;
        lastAmount = amount;
        lastCallbackData = callbackData;
        nativeBalanceSeen = address(this).balance;
        if (token != bytes32(0)) tokenBalanceSeen = IERC20(address(uint160(uint256(token)))).balanceOf(address(this));
        recordSeen = settler.getFillRecord(_orderId, _outputHash);
    }

    receive() external payable {}
}

/// @notice Recipient whose callback always reverts: such an output cannot be filled.
contract RevertingRecipient is IOutputCallback {
    error Refused();

    function outputFilled(bytes32, uint256, bytes calldata) external pure {
        revert Refused();
    }

    receive() external payable {}
}

/// @notice Recipient that refuses the native coin.
contract NoReceiveRecipient {}

/// @notice Recipient that, when paid in native coin, tries to get the same output filled (and paid) again.
contract ReenteringRecipient {
    OutputSettler public immutable settler;
    bytes32 public orderId;
    MandateOutput private output;
    bool public reentered;
    bytes32 public reentryRecord;

    constructor(OutputSettler settler_) {
        settler = settler_;
    }

    function arm(bytes32 orderId_, MandateOutput calldata output_) external {
        orderId = orderId_;
        output = output_;
    }

    receive() external payable {
        if (reentered) return;
        reentered = true;
        MandateOutput memory o = output;
        // Pays with its own balance, as a second solver would; the settler must treat it as already filled.
        reentryRecord = settler.fill{value: o.amount}(orderId, o, type(uint48).max, abi.encode(bytes32(uint256(0xbad))));
    }
}

/// @notice Helpers shared by the output and oracle tests.
library OutputFixtures {
    function toId(address a) internal pure returns (bytes32) {
        return bytes32(uint256(uint160(a)));
    }

    function fillDescription(bytes32 solver, bytes32 orderId, uint32 timestamp, MandateOutput memory output)
        internal
        pure
        returns (bytes memory)
    {
        return FillDescriptionLib.encodeFillDescription(solver, orderId, timestamp, output);
    }
}
