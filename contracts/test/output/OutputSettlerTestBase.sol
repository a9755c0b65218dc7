// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {Test} from "forge-std/Test.sol";
import {OutputSettler} from "../../src/output/OutputSettler.sol";
import {MandateOutput} from "../../src/types/StandardOrder.sol";
import {FillDescriptionLib} from "../../src/libraries/FillDescriptionLib.sol";
import {OutputTestToken} from "./OutputTestToken.sol";
import {OutputFixtures} from "./OutputRecipients.sol";

/// @notice Deployed settler, a token, a funded solver and output builders.
abstract contract OutputSettlerTestBase is Test {
    using OutputFixtures for address;

    uint256 internal constant DEST_CHAIN = 31_338;
    uint48 internal constant DEADLINE = 1_000_000;
    uint256 internal constant AMOUNT = 250e6;

    OutputSettler internal settler;
    OutputTestToken internal token;

    address internal solver = makeAddr("solver");
    address internal otherSolver = makeAddr("otherSolver");
    address internal recipient = makeAddr("recipient");
    /// Stands in for the OutputOracle: hasAttested takes the caller as the output's oracle.
    address internal oracle = makeAddr("oracle");
    bytes32 internal orderId = keccak256("order-1");

    function setUp() public virtual {
        vm.chainId(DEST_CHAIN);
        vm.warp(DEADLINE - 100);
        settler = new OutputSettler();
        token = new OutputTestToken();
        _fund(solver);
        _fund(otherSolver);
    }

    function _fund(address who) internal {
        token.mint(who, 1_000_000e6);
        vm.prank(who);
        token.approve(address(settler), type(uint256).max);
        vm.deal(who, 1_000 ether);
    }

    function _erc20Output() internal view returns (MandateOutput memory) {
        return _output(address(token).toId(), AMOUNT, recipient.toId());
    }

    function _nativeOutput() internal view returns (MandateOutput memory) {
        return _output(bytes32(0), 1 ether, recipient.toId());
    }

    function _output(bytes32 tokenId, uint256 amount, bytes32 to) internal view returns (MandateOutput memory) {
        return MandateOutput({
            oracle: oracle.toId(),
            settler: address(settler).toId(),
            chainId: DEST_CHAIN,
            token: tokenId,
            amount: amount,
            recipient: to,
            callbackData: "",
            context: ""
        });
    }

    function _fillerData(address who) internal pure returns (bytes memory) {
        return abi.encode(bytes32(uint256(uint160(who))));
    }

    function _fillAs(address who, MandateOutput memory output) internal returns (bytes32) {
        uint256 value = output.token == bytes32(0) ? output.amount : 0;
        vm.prank(who);
        return settler.fill{value: value}(orderId, output, DEADLINE, _fillerData(who));
    }

    function _record(address who, uint32 timestamp) internal pure returns (bytes32) {
        return keccak256(abi.encodePacked(bytes32(uint256(uint160(who))), timestamp));
    }

    function _outputHash(MandateOutput memory output) internal pure returns (bytes32) {
        return FillDescriptionLib.outputHash(output);
    }

    function _payload(address who, uint32 timestamp, MandateOutput memory output)
        internal
        view
        returns (bytes memory)
    {
        return FillDescriptionLib.encodeFillDescription(who.toId(), orderId, timestamp, output);
    }

    function _one(bytes memory payload) internal pure returns (bytes[] memory payloads) {
        payloads = new bytes[](1);
        payloads[0] = payload;
    }

    function _attestedBy(address caller, bytes[] memory payloads) internal returns (bool) {
        vm.prank(caller);
        return settler.hasAttested(payloads);
    }
}
