// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";

import {MandateOutput} from "../types/StandardOrder.sol";
import {FillDescriptionLib} from "../libraries/FillDescriptionLib.sol";
import {IOutputCallback} from "./IOutputCallback.sol";

/// @title OutputSettler
/// @notice Destination-chain settler: solvers deliver an order's outputs here, and the oracle named in each
/// output reads the resulting fill records to attest them to the origin chain.
/// @dev ABI-compatible with `IOutputSettler` (same selectors, event and return values). It does not inherit
/// the interface only because `fill` and `fillOrderOutputs` are payable here (native outputs are paid from
/// `msg.value`, as in OIF) while the shared interface declares them non-payable, and Solidity forbids an
/// override from widening mutability. Calls through `IOutputSettler` work unchanged (they send no value).
///
/// Fill records are keyed by `(orderId, keccak256(FillDescriptionLib.encodeMandateOutput(output)))`, i.e. by
/// the whole output including its oracle. A fill description (the cross-chain payload) lacks oracle, settler
/// and chain id; `hasAttested` supplies them as `msg.sender`, `address(this)` and `block.chainid`. So only the
/// oracle an output names can get that output's fills attested, and only on the chain and settler that
/// recorded them.
///
/// Ownership of multi-output orders: the solver that fills output 0 owns the order on the origin chain (only
/// it can claim the inputs). Fillers of later outputs are paid only through their own arrangement with
/// that owner. `fillOrderOutputs` therefore refuses to start when output 0 is already filled.
///
/// Only limit orders are supported: an output's `context` must be empty or the single byte 0x00.
///
/// The settler never holds ETH: native outputs are forwarded from `msg.value`, the value of any output that
/// was already filled is returned to the caller in the same call, and there is no receive or fallback.
contract OutputSettler {
    using SafeERC20 for IERC20;

    /// @notice `output.chainId` is not this chain.
    error WrongChain(uint256 outputChainId, uint256 chainId);
    /// @notice `output.settler` is not this contract.
    error WrongSettler(bytes32 outputSettler);
    /// @notice The fill happens after the fill deadline the solver supplied (the deadline itself is allowed).
    error FillDeadlinePassed(uint48 fillDeadline, uint256 timestamp);
    /// @notice `fillerData` is shorter than one word or its first word (the solver identifier) is zero.
    error InvalidSolver();
    /// @notice The output's `context` names an order type other than a limit order.
    error UnsupportedOrderType();
    /// @notice A token identifier with non-zero upper 96 bits.
    error InvalidToken(bytes32 token);
    /// @notice A recipient that is zero or has non-zero upper 96 bits.
    error InvalidRecipient(bytes32 recipient);
    /// @notice `msg.value` differs from the sum of the native outputs of the call.
    error NativeValueMismatch(uint256 expected, uint256 sent);
    /// @notice Sending the native coin to `to` failed.
    error NativeTransferFailed(address to);
    /// @notice `fillOrderOutputs` found output 0 already filled: the order belongs to that fill's solver.
    error AlreadyFilled(bytes32 fillRecordHash);
    /// @notice `fillOrderOutputs` with no outputs.
    error NoOutputs();

    /// @notice Emitted once per (orderId, output): its first fill.
    event OutputFilled(
        bytes32 indexed orderId, bytes32 solver, uint32 timestamp, MandateOutput output, uint256 finalAmount
    );

    /// @dev Smallest fill description: solver, orderId, timestamp, token, amount, recipient, two empty length
    /// prefixes (32 + 32 + 4 + 32 + 32 + 32 + 2 + 2).
    uint256 private constant MIN_FILL_DESCRIPTION_LENGTH = 168;
    /// @dev Where the common payload starts inside a fill description (after solver, orderId, timestamp).
    uint256 private constant COMMON_PAYLOAD_OFFSET = 68;

    mapping(bytes32 orderId => mapping(bytes32 outputHash => bytes32 fillRecordHash)) private _fillRecords;

    // ----------------------------------------------------------------------------------------------------
    // Filling
    // ----------------------------------------------------------------------------------------------------

    /// @notice Delivers `output` of `orderId` to its recipient and records who filled it and when.
    /// @dev Idempotent: when the output is already filled, nothing is transferred, no event is emitted, any
    /// `msg.value` is returned to the caller, and the existing record is returned. The record is written
    /// before any transfer or callback, so re-entering for the same output is a no-op as well.
    /// `fillDeadline` is supplied by the solver and not verifiable here; the origin chain rejects fills whose
    /// recorded timestamp is after the order's real fill deadline.
    /// @param fillerData First word: the solver identifier (non-zero); it is the account that may claim on the
    /// origin chain (an address left-padded to bytes32). Further bytes are ignored.
    /// @return fillRecordHash keccak256(abi.encodePacked(solver, uint32 timestamp)) of the first fill.
    function fill(bytes32 orderId, MandateOutput calldata output, uint48 fillDeadline, bytes calldata fillerData)
        external
        payable
        returns (bytes32 fillRecordHash)
    {
        _checkFillDeadline(fillDeadline);
        bytes32 solver = _solverOf(fillerData);
        uint256 nativeDue = output.token == bytes32(0) ? output.amount : 0;
        if (msg.value != nativeDue) revert NativeValueMismatch(nativeDue, msg.value);

        bool filledNow;
        (fillRecordHash, filledNow) = _fill(orderId, output, solver);
        if (!filledNow && msg.value != 0) _sendNative(msg.sender, msg.value);
    }

    /// @notice Fills every output of an order, in order, for one solver.
    /// @dev The solver of output 0 owns the order: this reverts `AlreadyFilled` when output 0 was filled
    /// before, so a solver never pays later outputs of an order it cannot claim. Later outputs that are
    /// already filled are skipped, and their native value is returned to the caller. All or nothing.
    /// `msg.value` must equal the sum of the native outputs' amounts.
    function fillOrderOutputs(
        bytes32 orderId,
        MandateOutput[] calldata outputs,
        uint48 fillDeadline,
        bytes calldata fillerData
    ) external payable {
        uint256 count = outputs.length;
        if (count == 0) revert NoOutputs();
        _checkFillDeadline(fillDeadline);
        bytes32 solver = _solverOf(fillerData);

        uint256 nativeDue;
        for (uint256 i; i < count; ++i) {
            if (outputs[i].token == bytes32(0)) nativeDue += outputs[i].amount;
        }
        if (msg.value != nativeDue) revert NativeValueMismatch(nativeDue, msg.value);

        (bytes32 firstRecord, bool firstFilledNow) = _fill(orderId, outputs[0], solver);
        if (!firstFilledNow) revert AlreadyFilled(firstRecord);

        uint256 nativeUnused;
        for (uint256 i = 1; i < count; ++i) {
            (, bool filledNow) = _fill(orderId, outputs[i], solver);
            if (!filledNow && outputs[i].token == bytes32(0)) nativeUnused += outputs[i].amount;
        }
        if (nativeUnused != 0) _sendNative(msg.sender, nativeUnused);
    }

    // ----------------------------------------------------------------------------------------------------
    // Reading records
    // ----------------------------------------------------------------------------------------------------

    /// @notice The fill record hash of an output (bytes32(0) when not filled).
    /// @param outputHash keccak256(FillDescriptionLib.encodeMandateOutput(output)).
    function getFillRecord(bytes32 orderId, bytes32 outputHash) external view returns (bytes32) {
        return _fillRecords[orderId][outputHash];
    }

    /// @notice True when every payload is the fill description of a fill recorded here for an output that
    /// names the caller as its oracle, this contract as its settler and this chain as its chain.
    /// @dev Meant to be called by the oracle (`OutputOracle.submit`): the caller is taken as the output's
    /// oracle. Called by anyone else it answers false for every real fill. A payload is
    /// `solver ‖ orderId ‖ uint32 timestamp ‖ common payload` (FillDescriptionLib); changing any byte of it
    /// changes either the record looked up or the record expected, so only the exact record matches.
    /// Payloads too short to be a fill description answer false. An empty array answers true.
    function hasAttested(bytes[] calldata payloads) external view returns (bool) {
        uint256 count = payloads.length;
        for (uint256 i; i < count; ++i) {
            if (!_isRecordedFill(payloads[i])) return false;
        }
        return true;
    }

    // ----------------------------------------------------------------------------------------------------
    // Internals
    // ----------------------------------------------------------------------------------------------------

    /// @return fillRecordHash The record of the output's first fill.
    /// @return filledNow Whether this call made that first fill (false: it was already filled, nothing done).
    function _fill(bytes32 orderId, MandateOutput calldata output, bytes32 solver)
        private
        returns (bytes32 fillRecordHash, bool filledNow)
    {
        _checkOutput(output);
        bytes32 outputHash = FillDescriptionLib.outputHash(output);
        fillRecordHash = _fillRecords[orderId][outputHash];
        if (fillRecordHash != bytes32(0)) return (fillRecordHash, false);

        uint32 timestamp = uint32(block.timestamp);
        fillRecordHash = keccak256(abi.encodePacked(solver, timestamp));
        // Written before paying: a re-entrant fill of this output sees it and does nothing.
        _fillRecords[orderId][outputHash] = fillRecordHash;

        address recipient = address(uint160(uint256(output.recipient)));
        if (output.token == bytes32(0)) {
            _sendNative(recipient, output.amount);
        } else {
            IERC20(address(uint160(uint256(output.token)))).safeTransferFrom(msg.sender, recipient, output.amount);
        }
        // After the record and the payment, so the recipient sees a settled output when it runs.
        if (output.callbackData.length != 0) {
            IOutputCallback(recipient).outputFilled(output.token, output.amount, output.callbackData);
        }
        emit OutputFilled(orderId, solver, timestamp, output, output.amount);
        return (fillRecordHash, true);
    }

    function _checkOutput(MandateOutput calldata output) private view {
        if (output.chainId != block.chainid) revert WrongChain(output.chainId, block.chainid);
        if (output.settler != bytes32(uint256(uint160(address(this))))) revert WrongSettler(output.settler);
        bytes calldata context = output.context;
        if (context.length > 1 || (context.length == 1 && context[0] != 0x00)) revert UnsupportedOrderType();
        if (uint256(output.token) >> 160 != 0) revert InvalidToken(output.token);
        if (output.recipient == bytes32(0) || uint256(output.recipient) >> 160 != 0) {
            revert InvalidRecipient(output.recipient);
        }
    }

    function _checkFillDeadline(uint48 fillDeadline) private view {
        if (block.timestamp > fillDeadline) revert FillDeadlinePassed(fillDeadline, block.timestamp);
    }

    function _solverOf(bytes calldata fillerData) private pure returns (bytes32 solver) {
        if (fillerData.length < 32) revert InvalidSolver();
        solver = bytes32(fillerData[0:32]);
        if (solver == bytes32(0)) revert InvalidSolver();
    }

    function _sendNative(address to, uint256 amount) private {
        (bool ok,) = payable(to).call{value: amount}("");
        if (!ok) revert NativeTransferFailed(to);
    }

    function _isRecordedFill(bytes calldata payload) private view returns (bool) {
        if (payload.length < MIN_FILL_DESCRIPTION_LENGTH) return false;
        bytes32 solver = bytes32(payload[0:32]);
        bytes32 orderId = bytes32(payload[32:64]);
        uint32 timestamp = uint32(bytes4(payload[64:COMMON_PAYLOAD_OFFSET]));
        // Same bytes as FillDescriptionLib.encodeMandateOutput of the output the description was cut from,
        // provided that output named the caller as oracle, this settler, and this chain.
        bytes32 outputHash = keccak256(
            abi.encodePacked(
                bytes32(uint256(uint160(msg.sender))),
                bytes32(uint256(uint160(address(this)))),
                block.chainid,
                payload[COMMON_PAYLOAD_OFFSET:]
            )
        );
        bytes32 recorded = _fillRecords[orderId][outputHash];
        return recorded != bytes32(0) && recorded == keccak256(abi.encodePacked(solver, timestamp));
    }
}
