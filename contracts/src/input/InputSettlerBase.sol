// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {MandateOutput, SolveParams, StandardOrder} from "../types/StandardOrder.sol";
import {FillDescriptionLib} from "../libraries/FillDescriptionLib.sol";
import {IInputOracle} from "../interfaces/IInputOracle.sol";

/// @title InputSettlerBase
/// @notice Checks shared by every origin-chain input settler (escrow and resource lock): which chain an order
/// belongs to, who owns a filled order, and whether every output has been proven by the order's oracle.
/// @dev Internal API used by InputSettlerEscrow and InputSettlerCompact; keep signatures stable.
abstract contract InputSettlerBase {
    /// @notice The inputs of `orderId` were paid to `destination` on behalf of `solver`.
    event Finalised(bytes32 indexed orderId, bytes32 solver, bytes32 destination);

    /// @notice The order names another origin chain than this one.
    error WrongChain(uint256 expected, uint256 actual);
    /// @notice `finalise` was called by someone other than the solver of output 0.
    error NotOrderOwner();
    /// @notice Zero solve params, or not exactly one per output.
    error InvalidSolveParamsLength();
    /// @notice An output was filled after the order's fill deadline.
    error FilledTooLate(uint256 outputIndex, uint32 timestamp, uint32 fillDeadline);
    /// @notice The payout destination is zero or not a clean 20-byte address.
    error InvalidDestination();

    /// @notice Reverts unless the order was created for this chain.
    /// @dev `originChainId` is not part of the order id, so this check is what binds an order to one chain.
    function _validateInputChain(uint256 originChainId) internal view {
        if (originChainId != block.chainid) revert WrongChain(originChainId, block.chainid);
    }

    /// @notice Reverts unless the caller is the solver that filled output 0.
    /// @dev The filler of output 0 owns a multi-output order: whoever else filled later outputs is paid only
    /// through whatever arrangement they have with the owner. Solver ids are addresses left-padded to bytes32.
    function _orderOwnerIsCaller(SolveParams[] calldata solveParams) internal view {
        if (solveParams.length == 0) revert InvalidSolveParamsLength();
        if (solveParams[0].solver != bytes32(uint256(uint160(msg.sender)))) revert NotOrderOwner();
    }

    /// @notice Reverts unless every output of `order` was filled at or before `order.fillDeadline` and the
    /// order's input oracle holds a proof for each of those fills.
    /// @dev Each proof record is `chainId ‖ oracle ‖ settler ‖ keccak256(fillDescription)`, the 128-byte layout
    /// `IInputOracle.efficientRequireProven` walks. The fill description binds solver, order id and timestamp,
    /// so a proof for another order, solver or time cannot be reused.
    /// @param orderId Id of `order` as computed by the calling settler.
    /// @param solveParams One entry per output, in output order.
    function _validateFills(StandardOrder calldata order, bytes32 orderId, SolveParams[] calldata solveParams)
        internal
        view
    {
        uint256 count = order.outputs.length;
        if (count == 0 || solveParams.length != count) revert InvalidSolveParamsLength();
        uint32 fillDeadline = order.fillDeadline;
        bytes memory proofSeries = new bytes(0);
        for (uint256 i; i < count; ++i) {
            uint32 timestamp = solveParams[i].timestamp;
            if (timestamp > fillDeadline) revert FilledTooLate(i, timestamp, fillDeadline);
            MandateOutput calldata output = order.outputs[i];
            bytes32 fillHash =
                keccak256(FillDescriptionLib.encodeFillDescription(solveParams[i].solver, orderId, timestamp, output));
            proofSeries = abi.encodePacked(proofSeries, output.chainId, output.oracle, output.settler, fillHash);
        }
        IInputOracle(order.inputOracle).efficientRequireProven(proofSeries);
    }

    /// @notice Reverts unless `destination` is a non-zero address with clean upper 96 bits; returns it.
    /// @dev Dirty upper bits would let two different bytes32 values name one recipient in events and logs.
    function _validateDestination(bytes32 destination) internal pure returns (address) {
        if (destination == bytes32(0) || uint256(destination) >> 160 != 0) revert InvalidDestination();
        return address(uint160(uint256(destination)));
    }
}
