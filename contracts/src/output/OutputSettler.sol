// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Address} from "@openzeppelin/contracts/utils/Address.sol";

import {MandateOutput} from "../types/StandardOrder.sol";
import {FillDescriptionLib} from "../libraries/FillDescriptionLib.sol";
import {IOutputCallback} from "./IOutputCallback.sol";
import {BaseInputOracle} from "../oracle/BaseInputOracle.sol";

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
/// Output `context` kinds (OIF layout): empty or `0x00` limit order; `0x01 ‖ uint32 startTime ‖ uint32 stopTime
/// ‖ uint256 slope` Dutch auction; `0xe0 ‖ bytes32 exclusiveFor ‖ uint32 startTime` exclusive limit order;
/// `0xe1 ‖ bytes32 exclusiveFor ‖ uint32 startTime ‖ uint32 stopTime ‖ uint256 slope` exclusive Dutch auction.
/// A Dutch auction pays `amount + slope * (stopTime - max(now, startTime))` before `stopTime`, then `amount`.
/// An exclusive output can be filled only by `exclusiveFor` while `now < startTime` (`ExclusiveTo`).
///
/// The settler never holds ETH: native outputs are paid from `msg.value`, whatever is left (excess value,
/// value meant for outputs already filled) is returned to the caller at the end of the call, and there is no
/// receive or fallback.
///
/// As in OIF, the settler is also an input oracle for same-chain orders: `setAttestation` turns a recorded
/// fill of an output naming this contract as both settler and oracle into a proof that `isProven` and
/// `efficientRequireProven` answer.
contract OutputSettler is BaseInputOracle {
    using SafeERC20 for IERC20;

    /// @notice `output.chainId` is not this chain.
    error WrongChain(uint256 expected, uint256 actual);
    /// @notice `output.settler` is not this contract.
    error WrongOutputSettler(bytes32 addressThis, bytes32 expected);
    /// @notice `setAttestation` for an output whose oracle is not this contract.
    error WrongOutputOracle(bytes32 addressThis, bytes32 expected);
    /// @notice The fill happens after the fill deadline the solver supplied (the deadline itself is allowed).
    error FillDeadline();
    /// @notice `fillerData` is shorter than one word.
    error FillerDataTooShort();
    /// @notice The solver identifier (first word of `fillerData`) is zero.
    error ZeroValue();
    /// @notice The output's `context` has an order type this settler does not know.
    error NotImplemented();
    /// @notice The output's `context` has the wrong length for its order type.
    error InvalidContextDataLength();
    /// @notice An exclusive output filled by another solver than `solver` before the exclusivity ends.
    error ExclusiveTo(bytes32 solver);
    /// @notice A token or oracle identifier with non-zero upper 96 bits.
    error HasDirtyBits();
    /// @notice Project check (not in OIF): a recipient that is zero or has non-zero upper 96 bits.
    error InvalidRecipient(bytes32 recipient);
    /// @notice `fillOrderOutputs` found output 0 already filled: the order belongs to that fill's solver.
    error AlreadyFilled();
    /// @notice Project check (not in OIF): `fillOrderOutputs` with no outputs.
    error NoOutputs();
    /// @notice `setAttestation` names a fill that is not the one recorded.
    error InvalidAttestation(bytes32 storedFillRecordHash, bytes32 givenFillRecordHash);

    /// @notice Emitted once per (orderId, output): its first fill. `finalAmount` is what the recipient got
    /// (the Dutch-auction price, or `output.amount`).
    event OutputFilled(
        bytes32 indexed orderId, bytes32 solver, uint32 timestamp, MandateOutput output, uint256 finalAmount
    );

    bytes1 internal constant LIMIT_ORDER = 0x00;
    bytes1 internal constant DUTCH_AUCTION = 0x01;
    bytes1 internal constant EXCLUSIVE_LIMIT_ORDER = 0xe0;
    bytes1 internal constant EXCLUSIVE_DUTCH_AUCTION = 0xe1;

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
        (fillRecordHash,) = _fill(orderId, output, solver);
        _refundNativeExcess();
    }

    /// @notice Fills every output of an order, in order, for one solver.
    /// @dev The solver of output 0 owns the order: this reverts `AlreadyFilled` when output 0 was filled
    /// before, so a solver never pays later outputs of an order it cannot claim. Later outputs that are
    /// already filled are skipped. All or nothing. Unused `msg.value` is returned.
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

        (, bool firstFilledNow) = _fill(orderId, outputs[0], solver);
        if (!firstFilledNow) revert AlreadyFilled();
        for (uint256 i = 1; i < count; ++i) {
            _fill(orderId, outputs[i], solver);
        }
        _refundNativeExcess();
    }

    // ----------------------------------------------------------------------------------------------------
    // Reading records
    // ----------------------------------------------------------------------------------------------------

    /// @notice The fill record hash of an output (bytes32(0) when not filled).
    /// @param outputHash keccak256(FillDescriptionLib.encodeMandateOutput(output)).
    function getFillRecord(bytes32 orderId, bytes32 outputHash) external view returns (bytes32) {
        return _fillRecords[orderId][outputHash];
    }

    /// @notice The fill record hash of `output` (bytes32(0) when not filled).
    function getFillRecord(bytes32 orderId, MandateOutput calldata output) external view returns (bytes32) {
        return _fillRecords[orderId][FillDescriptionLib.outputHash(output)];
    }

    /// @notice True when every payload is the fill description of a fill recorded here for an output that
    /// names the caller as its oracle, this contract as its settler and this chain as its chain.
    /// @dev Meant to be called by the oracle (`OutputOracle.submit`): the caller is taken as the output's
    /// oracle. Called by anyone else it answers false for every real fill. A payload is
    /// `solver ‖ orderId ‖ uint32 timestamp ‖ common payload` (FillDescriptionLib); changing any byte of it
    /// changes either the record looked up or the record expected, so only the exact record matches.
    /// Payloads too short to be a fill description answer false (OIF reverts). An empty array answers true.
    function hasAttested(bytes[] calldata payloads) external view returns (bool) {
        uint256 count = payloads.length;
        for (uint256 i; i < count; ++i) {
            if (!_isRecordedFill(payloads[i])) return false;
        }
        return true;
    }

    // ----------------------------------------------------------------------------------------------------
    // Same-chain oracle
    // ----------------------------------------------------------------------------------------------------

    /// @notice Proves a recorded fill of `output` (which must name this contract as settler and oracle, on
    /// this chain) so that `isProven(chainId, this, this, keccak256(fillDescription))` answers true.
    function setAttestation(bytes32 orderId, bytes32 solver, uint32 timestamp, MandateOutput calldata output)
        external
    {
        bytes32 stored = _fillRecords[orderId][FillDescriptionLib.outputHash(output)];
        bytes32 given = keccak256(abi.encodePacked(solver, timestamp));
        if (stored != given) revert InvalidAttestation(stored, given);
        bytes32 self = bytes32(uint256(uint160(address(this))));
        if (output.settler != self) revert WrongOutputSettler(self, output.settler);
        if (output.oracle != self) revert WrongOutputOracle(self, output.oracle);
        if (output.chainId != block.chainid) revert WrongChain(output.chainId, block.chainid);
        bytes32 dataHash = keccak256(FillDescriptionLib.encodeFillDescription(solver, orderId, timestamp, output));
        _attestations[block.chainid][self][self][dataHash] = true;
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
        uint256 amount = _resolveAmount(output, solver);
        bytes32 outputHash = FillDescriptionLib.outputHash(output);
        fillRecordHash = _fillRecords[orderId][outputHash];
        if (fillRecordHash != bytes32(0)) return (fillRecordHash, false);

        uint32 timestamp = uint32(block.timestamp);
        fillRecordHash = keccak256(abi.encodePacked(solver, timestamp));
        // Written before paying: a re-entrant fill of this output sees it and does nothing.
        _fillRecords[orderId][outputHash] = fillRecordHash;

        address recipient = address(uint160(uint256(output.recipient)));
        if (output.token == bytes32(0)) {
            Address.sendValue(payable(recipient), amount);
        } else {
            IERC20(address(uint160(uint256(output.token)))).safeTransferFrom(msg.sender, recipient, amount);
        }
        // After the record and the payment, so the recipient sees a settled output when it runs.
        if (output.callbackData.length != 0) {
            IOutputCallback(recipient).outputFilled(output.token, amount, output.callbackData);
        }
        emit OutputFilled(orderId, solver, timestamp, output, amount);
        return (fillRecordHash, true);
    }

    /// @dev The amount the recipient gets under the output's order type; enforces exclusivity.
    function _resolveAmount(MandateOutput calldata output, bytes32 solver) private view returns (uint256) {
        bytes calldata context = output.context;
        uint256 length = context.length;
        if (length == 0) return output.amount;
        bytes1 orderType = context[0];
        if (orderType == LIMIT_ORDER) {
            if (length != 1) revert InvalidContextDataLength();
            return output.amount;
        }
        if (orderType == DUTCH_AUCTION) {
            if (length != 41) revert InvalidContextDataLength();
            return _dutchPrice(
                output.amount, uint32(bytes4(context[1:5])), uint32(bytes4(context[5:9])), uint256(bytes32(context[9:41]))
            );
        }
        if (orderType == EXCLUSIVE_LIMIT_ORDER) {
            if (length != 37) revert InvalidContextDataLength();
            _checkExclusive(bytes32(context[1:33]), uint32(bytes4(context[33:37])), solver);
            return output.amount;
        }
        if (orderType == EXCLUSIVE_DUTCH_AUCTION) {
            if (length != 73) revert InvalidContextDataLength();
            uint32 startTime = uint32(bytes4(context[33:37]));
            _checkExclusive(bytes32(context[1:33]), startTime, solver);
            return _dutchPrice(output.amount, startTime, uint32(bytes4(context[37:41])), uint256(bytes32(context[41:73])));
        }
        revert NotImplemented();
    }

    function _checkExclusive(bytes32 exclusiveFor, uint32 startTime, bytes32 solver) private view {
        if (startTime > block.timestamp && exclusiveFor != solver) revert ExclusiveTo(exclusiveFor);
    }

    /// @dev `minimum + slope * (stopTime - max(now, startTime))`, or `minimum` from `stopTime` on.
    function _dutchPrice(uint256 minimum, uint32 startTime, uint32 stopTime, uint256 slope)
        private
        view
        returns (uint256)
    {
        uint256 current = block.timestamp > startTime ? block.timestamp : startTime;
        if (stopTime < current) return minimum;
        return minimum + slope * (stopTime - current);
    }

    function _checkOutput(MandateOutput calldata output) private view {
        if (output.chainId != block.chainid) revert WrongChain(output.chainId, block.chainid);
        bytes32 self = bytes32(uint256(uint160(address(this))));
        if (output.settler != self) revert WrongOutputSettler(self, output.settler);
        if (uint256(output.oracle) >> 160 != 0 || uint256(output.token) >> 160 != 0) revert HasDirtyBits();
        if (output.recipient == bytes32(0) || uint256(output.recipient) >> 160 != 0) {
            revert InvalidRecipient(output.recipient);
        }
    }

    function _checkFillDeadline(uint48 fillDeadline) private view {
        if (block.timestamp > fillDeadline) revert FillDeadline();
    }

    function _solverOf(bytes calldata fillerData) private pure returns (bytes32 solver) {
        if (fillerData.length < 32) revert FillerDataTooShort();
        solver = bytes32(fillerData[0:32]);
        if (solver == bytes32(0)) revert ZeroValue();
    }

    /// @dev Returns whatever native value is left after paying the outputs; the settler keeps no ETH.
    function _refundNativeExcess() private {
        uint256 excess = address(this).balance;
        if (excess != 0) Address.sendValue(payable(msg.sender), excess);
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
