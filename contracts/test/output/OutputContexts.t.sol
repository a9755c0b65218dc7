// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {OutputSettler} from "../../src/output/OutputSettler.sol";
import {MandateOutput} from "../../src/types/StandardOrder.sol";
import {FillDescriptionLib} from "../../src/libraries/FillDescriptionLib.sol";
import {OutputSettlerTestBase} from "./OutputSettlerTestBase.sol";

/// @notice Output `context` kinds (Dutch auction 0x01, exclusive limit 0xe0, exclusive Dutch 0xe1), the
/// `getFillRecord(bytes32, MandateOutput)` form and the settler's own oracle face.
contract OutputContextsTest is OutputSettlerTestBase {
    uint32 internal constant START = 1000;
    uint32 internal constant STOP = 1100;
    uint256 internal constant SLOPE = 1e6;

    function _dutch() internal view returns (MandateOutput memory output) {
        output = _erc20Output();
        output.context = abi.encodePacked(bytes1(0x01), START, STOP, SLOPE);
    }

    function _exclusive(address winner, uint32 until) internal view returns (MandateOutput memory output) {
        output = _erc20Output();
        output.context = abi.encodePacked(bytes1(0xe0), bytes32(uint256(uint160(winner))), until);
    }

    function _fillPaid(address who, MandateOutput memory output) internal returns (uint256 paid) {
        uint256 before = token.balanceOf(recipient);
        _fillAs(who, output);
        paid = token.balanceOf(recipient) - before;
    }

    function test_dutch_beforeStart_paysTheFullSlope() public {
        vm.warp(START - 10);
        assertEq(_fillPaid(solver, _dutch()), AMOUNT + SLOPE * (STOP - START));
    }

    function test_dutch_midway_paysThePriceNow() public {
        vm.warp(START + 40);
        assertEq(_fillPaid(solver, _dutch()), AMOUNT + SLOPE * 60);
    }

    function test_dutch_afterStop_paysTheMinimum() public {
        vm.warp(STOP + 1);
        assertEq(_fillPaid(solver, _dutch()), AMOUNT);
    }

    function test_dutch_emitsTheFinalAmount() public {
        vm.warp(START + 50);
        MandateOutput memory output = _dutch();
        vm.expectEmit(address(settler));
        emit OutputSettler.OutputFilled(orderId, bytes32(uint256(uint160(solver))), START + 50, output, AMOUNT + SLOPE * 50);
        _fillAs(solver, output);
    }

    function test_exclusive_otherSolverBeforeDeadline_reverts() public {
        vm.warp(START);
        MandateOutput memory output = _exclusive(solver, START + 1);
        vm.prank(otherSolver);
        vm.expectRevert(abi.encodeWithSelector(OutputSettler.ExclusiveTo.selector, bytes32(uint256(uint160(solver)))));
        settler.fill(orderId, output, DEADLINE, _fillerData(otherSolver));
    }

    function test_exclusive_winnerBeforeDeadline_fills() public {
        vm.warp(START);
        assertEq(_fillPaid(solver, _exclusive(solver, START + 1)), AMOUNT);
    }

    function test_exclusive_anyoneAtTheDeadline_fills() public {
        vm.warp(START + 1);
        assertEq(_fillPaid(otherSolver, _exclusive(solver, START + 1)), AMOUNT);
    }

    function test_exclusiveDutch_checksExclusivityAndPrices() public {
        MandateOutput memory output = _erc20Output();
        output.context =
            abi.encodePacked(bytes1(0xe1), bytes32(uint256(uint160(solver))), START, STOP, SLOPE);
        vm.warp(START - 1);
        vm.prank(otherSolver);
        vm.expectRevert(abi.encodeWithSelector(OutputSettler.ExclusiveTo.selector, bytes32(uint256(uint160(solver)))));
        settler.fill(orderId, output, DEADLINE, _fillerData(otherSolver));
        vm.warp(START + 10);
        assertEq(_fillPaid(otherSolver, output), AMOUNT + SLOPE * 90);
    }

    function test_exclusive_wrongLength_reverts() public {
        MandateOutput memory output = _erc20Output();
        output.context = abi.encodePacked(bytes1(0xe0), bytes32(uint256(uint160(solver))));
        vm.prank(solver);
        vm.expectRevert(OutputSettler.InvalidContextDataLength.selector);
        settler.fill(orderId, output, DEADLINE, _fillerData(solver));
    }

    function test_getFillRecord_bothFormsAgree() public {
        MandateOutput memory output = _erc20Output();
        bytes32 record = _fillAs(solver, output);
        assertEq(settler.getFillRecord(orderId, output), record);
        assertEq(settler.getFillRecord(orderId, _outputHash(output)), record);
    }

    function test_setAttestation_provesASameChainFill() public {
        MandateOutput memory output = _erc20Output();
        output.oracle = bytes32(uint256(uint160(address(settler))));
        _fillAs(solver, output);
        bytes32 solverId = bytes32(uint256(uint160(solver)));
        uint32 ts = uint32(block.timestamp);
        settler.setAttestation(orderId, solverId, ts, output);
        bytes32 dataHash = keccak256(FillDescriptionLib.encodeFillDescription(solverId, orderId, ts, output));
        bytes32 self = bytes32(uint256(uint160(address(settler))));
        assertTrue(settler.isProven(block.chainid, self, self, dataHash));
        settler.efficientRequireProven(abi.encodePacked(block.chainid, self, self, dataHash));
    }

    function test_setAttestation_wrongRecord_reverts() public {
        MandateOutput memory output = _erc20Output();
        output.oracle = bytes32(uint256(uint160(address(settler))));
        bytes32 given = keccak256(abi.encodePacked(bytes32(uint256(1)), uint32(2)));
        vm.expectRevert(abi.encodeWithSelector(OutputSettler.InvalidAttestation.selector, bytes32(0), given));
        settler.setAttestation(orderId, bytes32(uint256(1)), 2, output);
    }

    function test_setAttestation_outputNamingAnotherOracle_reverts() public {
        MandateOutput memory output = _erc20Output();
        _fillAs(solver, output);
        bytes32 self = bytes32(uint256(uint160(address(settler))));
        vm.expectRevert(abi.encodeWithSelector(OutputSettler.WrongOutputOracle.selector, self, output.oracle));
        settler.setAttestation(orderId, bytes32(uint256(uint160(solver))), uint32(block.timestamp), output);
    }
}
