// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {Test, Vm} from "forge-std/Test.sol";
import {OutputOracle} from "../../src/oracle/OutputOracle.sol";
import {OutputSettler} from "../../src/output/OutputSettler.sol";
import {MandateOutput} from "../../src/types/StandardOrder.sol";
import {FillDescriptionLib} from "../../src/libraries/FillDescriptionLib.sol";
import {OutputTestToken} from "../output/OutputTestToken.sol";

/// @notice Settler that vouches for anything: shows what a lying settler can and cannot do.
contract YesSettler {
    function hasAttested(bytes[] calldata) external pure returns (bool) {
        return true;
    }
}

contract OutputOracleTest is Test {
    uint48 internal constant DEADLINE = 2_000_000;

    OutputOracle internal outputOracle;
    OutputSettler internal settler;
    OutputTestToken internal token;
    address internal solver = makeAddr("solver");
    address internal recipient = makeAddr("recipient");
    bytes32 internal orderId = keccak256("order");

    function setUp() public {
        vm.chainId(8453);
        vm.warp(DEADLINE - 10);
        outputOracle = new OutputOracle();
        settler = new OutputSettler();
        token = new OutputTestToken();
        token.mint(solver, 1e24);
        vm.prank(solver);
        token.approve(address(settler), type(uint256).max);
    }

    function _output(address oracle_, uint256 amount) internal view returns (MandateOutput memory) {
        return MandateOutput({
            oracle: bytes32(uint256(uint160(oracle_))),
            settler: bytes32(uint256(uint160(address(settler)))),
            chainId: block.chainid,
            token: bytes32(uint256(uint160(address(token)))),
            amount: amount,
            recipient: bytes32(uint256(uint160(recipient))),
            callbackData: "",
            context: ""
        });
    }

    function _fill(MandateOutput memory output) internal returns (bytes memory payload) {
        vm.prank(solver);
        settler.fill(orderId, output, DEADLINE, abi.encode(bytes32(uint256(uint160(solver)))));
        payload = FillDescriptionLib.encodeFillDescription(
            bytes32(uint256(uint160(solver))), orderId, uint32(block.timestamp), output
        );
    }

    function test_submit_emitsOneOutputAttestedPerPayload() public {
        bytes[] memory payloads = new bytes[](2);
        payloads[0] = _fill(_output(address(outputOracle), 10e6));
        payloads[1] = _fill(_output(address(outputOracle), 20e6));
        bytes32 application = bytes32(uint256(uint160(address(settler))));

        for (uint256 i; i < 2; ++i) {
            vm.expectEmit(true, true, true, true, address(outputOracle));
            emit OutputOracle.OutputAttested(8453, application, orderId, keccak256(payloads[i]), payloads[i]);
        }
        outputOracle.submit(address(settler), payloads);
    }

    function test_submit_isPermissionless() public {
        bytes[] memory payloads = new bytes[](1);
        payloads[0] = _fill(_output(address(outputOracle), 10e6));
        vm.prank(makeAddr("anyone"));
        outputOracle.submit(address(settler), payloads);
    }

    function test_submit_unfilledPayload_reverts() public {
        bytes[] memory payloads = new bytes[](1);
        MandateOutput memory output = _output(address(outputOracle), 10e6);
        payloads[0] = FillDescriptionLib.encodeFillDescription(
            bytes32(uint256(uint160(solver))), orderId, uint32(block.timestamp), output
        );
        vm.expectRevert(OutputOracle.NotAttested.selector);
        outputOracle.submit(address(settler), payloads);
    }

    function test_submit_outputNamingAnotherOracle_reverts() public {
        bytes[] memory payloads = new bytes[](1);
        payloads[0] = _fill(_output(makeAddr("someOtherOracle"), 10e6));
        vm.expectRevert(OutputOracle.NotAttested.selector);
        outputOracle.submit(address(settler), payloads);
    }

    function test_submit_oneBadPayloadInBatch_reverts() public {
        bytes[] memory payloads = new bytes[](2);
        payloads[0] = _fill(_output(address(outputOracle), 10e6));
        payloads[1] = bytes.concat(payloads[0], hex"00");
        vm.expectRevert(OutputOracle.NotAttested.selector);
        outputOracle.submit(address(settler), payloads);
    }

    function test_submit_noPayloads_reverts() public {
        vm.expectRevert(OutputOracle.NoPayloads.selector);
        outputOracle.submit(address(settler), new bytes[](0));
    }

    function test_submit_settlerWithoutCode_reverts() public {
        bytes[] memory payloads = new bytes[](1);
        payloads[0] = _fill(_output(address(outputOracle), 10e6));
        vm.expectRevert();
        outputOracle.submit(makeAddr("eoa"), payloads);
    }

    function test_submit_lyingSettlerIsNamedAsApplication() public {
        // A settler that vouches for anything only produces proofs whose application is itself; origin
        // proofs use output.settler as application, so these never match an honest order's outputs.
        YesSettler liar = new YesSettler();
        bytes[] memory payloads = new bytes[](1);
        payloads[0] = FillDescriptionLib.encodeFillDescription(
            bytes32(uint256(1)), orderId, 1, _output(address(outputOracle), 10e6)
        );
        vm.recordLogs();
        outputOracle.submit(address(liar), payloads);
        Vm.Log[] memory logs = vm.getRecordedLogs();
        assertEq(logs.length, 1);
        assertEq(logs[0].topics[2], bytes32(uint256(uint160(address(liar)))));
    }

    function test_submit_lyingSettlerShortPayload_reverts() public {
        YesSettler liar = new YesSettler();
        bytes[] memory payloads = new bytes[](1);
        payloads[0] = new bytes(63);
        vm.expectRevert(abi.encodeWithSelector(OutputOracle.PayloadTooShort.selector, 0));
        outputOracle.submit(address(liar), payloads);
    }

    function test_submit_isPayableAndReturnsTheValue() public {
        bytes[] memory payloads = new bytes[](1);
        payloads[0] = _fill(_output(address(outputOracle), 10e6));
        address caller = makeAddr("payer");
        vm.deal(caller, 1 ether);
        vm.prank(caller);
        uint256 refund = outputOracle.submit{value: 0.25 ether}(address(settler), payloads);
        assertEq(refund, 0.25 ether);
        assertEq(caller.balance, 1 ether);
        assertEq(address(outputOracle).balance, 0);
    }
}
