// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {MandateOutput} from "../types/StandardOrder.sol";

/// @title IOutputSettler
/// @notice Destination-chain side of an order: solvers deliver outputs here; oracles read the records.
interface IOutputSettler {
    /// @notice Emitted once per (orderId, output): the first fill of that output.
    event OutputFilled(
        bytes32 indexed orderId, bytes32 solver, uint32 timestamp, MandateOutput output, uint256 finalAmount
    );

    /// @notice Delivers `output` for `orderId`. `fillerData`'s first word is the solver identifier (non-zero).
    /// A second fill of the same output is a no-op that transfers nothing and returns the existing record.
    /// @return fillRecordHash keccak256(abi.encodePacked(solver, timestamp)) of the (first) fill.
    /// Native outputs (token bytes32(0)) are paid from msg.value, hence payable.
    function fill(bytes32 orderId, MandateOutput calldata output, uint48 fillDeadline, bytes calldata fillerData)
        external
        payable
        returns (bytes32 fillRecordHash);

    /// @notice Fills every output of an order; the solver of output 0 owns the order on the origin chain.
    function fillOrderOutputs(
        bytes32 orderId,
        MandateOutput[] calldata outputs,
        uint48 fillDeadline,
        bytes calldata fillerData
    ) external payable;

    /// @notice The fill record hash of an output (bytes32(0) when not filled).
    /// @param outputHash keccak256 of FillDescriptionLib.encodeMandateOutput(output).
    function getFillRecord(bytes32 orderId, bytes32 outputHash) external view returns (bytes32);

    /// @notice True when every payload (a FillDescriptionLib fill description) matches a recorded fill.
    function hasAttested(bytes[] calldata payloads) external view returns (bool);
}
