// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";

import {MandateOutput, SolveParams, StandardOrder} from "../types/StandardOrder.sol";
import {OrderPurchase, SignedMessagesLib} from "../types/OrderPurchase.sol";
import {FillDescriptionLib} from "../libraries/FillDescriptionLib.sol";
import {IInputOracle} from "../interfaces/IInputOracle.sol";

/// @title InputSettlerBase
/// @notice Checks shared by every origin-chain input settler (escrow and resource lock): which chain an order
/// belongs to, who owns a filled order (its solver, or whoever bought it), the owner's signed permission for
/// someone else to claim, and whether every output has been proven by the order's oracle.
/// @dev Error names and argument lists follow OIF's InputSettlerBase / InputSettlerPurchase. Each concrete
/// settler gives its own EIP-712 domain (name, version "1").
abstract contract InputSettlerBase is EIP712 {
    /// @notice The inputs of `orderId` were paid to `destination` on behalf of `solver`.
    event Finalised(bytes32 indexed orderId, bytes32 solver, bytes32 destination);
    /// @notice `purchaser` bought the order `orderId` that `solver` filled.
    event OrderPurchased(bytes32 indexed orderId, bytes32 solver, bytes32 purchaser);

    /// @notice A timestamp that must still be in the future is not (`now >= timestamp`).
    error TimestampPassed();
    /// @notice A timestamp that must be in the past is not (`now <= timestamp`).
    error TimestampNotPassed();
    /// @notice The order names another origin chain than this one.
    error WrongChain(uint256 expected, uint256 actual);
    /// @notice A signature (AllowOpen or OrderPurchase) does not come from the account it must come from.
    error InvalidSigner();
    /// @notice An output was filled after the order's fill deadline.
    error FilledTooLate(uint32 expected, uint32 actual);
    /// @notice Zero solve params, or not exactly one per output.
    error InvalidTimestampLength();
    /// @notice The payout destination is zero, or (stricter than OIF) not a clean 20-byte address.
    error NoDestination();
    /// @notice A fill deadline after the refund time would let a refund race a legitimate fill.
    error FillDeadlineAfterExpiry(uint32 fillDeadline, uint32 expires);
    /// @notice `finalise` was called by someone other than the order's owner.
    error NotOrderOwner();
    /// @notice This order was already bought from this solver.
    error AlreadyPurchased();
    /// @notice The purchase's own expiry passed before it was mined.
    error Expired();
    /// @notice A purchase for the zero purchaser.
    error InvalidPurchaser();

    struct Purchased {
        uint32 lastOrderTimestamp;
        bytes32 purchaser;
    }

    uint256 internal constant DISCOUNT_DENOM = 1e18;

    /// @notice Purchases recorded per (solver, order): the purchaser owns the order if its fills are recent
    /// enough (the last fill at or after `lastOrderTimestamp`).
    mapping(bytes32 solver => mapping(bytes32 orderId => Purchased)) public purchasedOrders;

    /// @notice The EIP-712 domain separator of this settler (AllowOpen and OrderPurchase signatures).
    function DOMAIN_SEPARATOR() external view returns (bytes32) {
        return _domainSeparatorV4();
    }

    /// @notice Reverts unless the order was created for this chain.
    /// @dev `originChainId` is not part of the order id, so this check is what binds an order to one chain.
    function _validateInputChain(uint256 originChainId) internal view {
        if (originChainId != block.chainid) revert WrongChain(originChainId, block.chainid);
    }

    function _validateTimestampHasNotPassed(uint32 timestamp) internal view {
        if (block.timestamp >= timestamp) revert TimestampPassed();
    }

    function _validateTimestampHasPassed(uint32 timestamp) internal view {
        if (block.timestamp <= timestamp) revert TimestampNotPassed();
    }

    /// @notice The owner of a filled order: the solver of output 0, unless the order was bought from that
    /// solver in time (its last fill at or after the purchase's `lastOrderTimestamp`), then the purchaser.
    /// @dev Consumes the purchase record, as OIF does; callers revert as a whole when they do not pay out.
    function _orderOwner(bytes32 orderId, SolveParams[] calldata solveParams) internal returns (bytes32 owner) {
        if (solveParams.length == 0) revert InvalidTimestampLength();
        bytes32 solver = solveParams[0].solver;
        Purchased storage purchase = purchasedOrders[solver][orderId];
        bytes32 purchaser = purchase.purchaser;
        if (purchaser != bytes32(0)) {
            uint32 lastOrderTimestamp = purchase.lastOrderTimestamp;
            delete purchasedOrders[solver][orderId];
            if (lastOrderTimestamp <= _maxTimestamp(solveParams)) return purchaser;
        }
        return solver;
    }

    /// @notice Reverts unless the caller is `owner` (an address left-padded to bytes32, clean upper bits).
    /// @dev The owner of a multi-output order is the solver of output 0 (or its purchaser): whoever else filled
    /// later outputs is paid only through whatever arrangement they have with the owner.
    function _ownerIsCaller(bytes32 owner) internal view {
        if (owner != bytes32(uint256(uint160(msg.sender)))) revert NotOrderOwner();
    }

    /// @notice Reverts `InvalidSigner` unless `owner` signed AllowOpen{orderId, destination, call} in this
    /// settler's domain (EOA or ERC-1271).
    function _allowExternalClaimant(
        bytes32 orderId,
        bytes32 owner,
        bytes32 destination,
        bytes calldata call,
        bytes calldata ownerSignature
    ) internal view {
        bytes32 digest = _hashTypedDataV4(SignedMessagesLib.allowOpenHash(orderId, destination, call));
        address signer = address(uint160(uint256(owner)));
        if (!SignatureChecker.isValidSignatureNow(signer, digest, ownerSignature)) revert InvalidSigner();
    }

    /// @notice Reverts unless every output of `order` was filled at or before `order.fillDeadline` and the
    /// order's input oracle holds a proof for each of those fills.
    /// @dev Each proof record is `chainId ‖ oracle ‖ settler ‖ keccak256(fillDescription)`, the 128-byte layout
    /// `IInputOracle.efficientRequireProven` walks. The fill description binds solver, order id and timestamp,
    /// so a proof for another order, solver or time cannot be reused.
    function _validateFills(StandardOrder calldata order, bytes32 orderId, SolveParams[] calldata solveParams)
        internal
        view
    {
        uint256 count = order.outputs.length;
        if (count == 0 || solveParams.length != count) revert InvalidTimestampLength();
        uint32 fillDeadline = order.fillDeadline;
        bytes memory proofSeries = new bytes(0);
        for (uint256 i; i < count; ++i) {
            uint32 timestamp = solveParams[i].timestamp;
            if (timestamp > fillDeadline) revert FilledTooLate(fillDeadline, timestamp);
            MandateOutput calldata output = order.outputs[i];
            bytes32 fillHash =
                keccak256(FillDescriptionLib.encodeFillDescription(solveParams[i].solver, orderId, timestamp, output));
            proofSeries = abi.encodePacked(proofSeries, output.chainId, output.oracle, output.settler, fillHash);
        }
        IInputOracle(order.inputOracle).efficientRequireProven(proofSeries);
    }

    /// @notice Reverts unless `destination` is a non-zero address with clean upper 96 bits; returns it.
    /// @dev Stricter than OIF (which only requires the low 20 bytes to be non-zero): dirty upper bits would let
    /// two different bytes32 values name one recipient in events and logs.
    function _validateDestination(bytes32 destination) internal pure returns (address) {
        if (destination == bytes32(0) || uint256(destination) >> 160 != 0) revert NoDestination();
        return address(uint160(uint256(destination)));
    }

    /// @notice Records `purchaser` as the new owner of `orderPurchase.orderId` (as filled by `solver`) and
    /// checks the solver's signed offer; the caller then pays the discounted inputs.
    function _recordPurchase(
        OrderPurchase calldata orderPurchase,
        bytes32 solver,
        bytes32 purchaser,
        uint256 expiryTimestamp,
        bytes calldata solverSignature
    ) internal {
        if (purchaser == bytes32(0)) revert InvalidPurchaser();
        if (expiryTimestamp < block.timestamp) revert Expired();
        Purchased storage purchase = purchasedOrders[solver][orderPurchase.orderId];
        if (purchase.purchaser != bytes32(0)) revert AlreadyPurchased();
        uint32 timeToBuy = orderPurchase.timeToBuy;
        uint32 nowTs = uint32(block.timestamp);
        purchase.lastOrderTimestamp = timeToBuy < nowTs ? nowTs - timeToBuy : 0;
        purchase.purchaser = purchaser;

        bytes32 digest = _hashTypedDataV4(SignedMessagesLib.orderPurchaseHash(orderPurchase));
        address signer = address(uint160(uint256(solver)));
        if (!SignatureChecker.isValidSignatureNow(signer, digest, solverSignature)) revert InvalidSigner();
    }

    function _maxTimestamp(SolveParams[] calldata solveParams) internal pure returns (uint32 timestamp) {
        timestamp = solveParams[0].timestamp;
        for (uint256 i = 1; i < solveParams.length; ++i) {
            if (solveParams[i].timestamp > timestamp) timestamp = solveParams[i].timestamp;
        }
    }
}
