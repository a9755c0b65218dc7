// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";

import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";

import {SolveParams, StandardOrder} from "../../types/StandardOrder.sol";
import {OrderPurchase} from "../../types/OrderPurchase.sol";
import {OrderHashLib} from "../../libraries/OrderHashLib.sol";
import {Permit2WitnessLib} from "../../libraries/Permit2WitnessLib.sol";
import {ISignatureTransfer} from "../../permit2/ISignatureTransfer.sol";
import {IERC3009} from "../../tokens/IERC3009.sol";
import {InputSettlerBase} from "../InputSettlerBase.sol";
import {IInputCallback} from "./IInputCallback.sol";

/// @title InputSettlerEscrow
/// @notice Origin-chain escrow for StandardOrders (OIF-compatible ABI). A taker's inputs are pulled in at open
/// (directly, through a Permit2 batch witness signature or through ERC-3009 authorisations), paid to the solver
/// that filled output 0 once every output is proven by the order's input oracle, or returned to the order's
/// user after `expires`. Each order moves None → Deposited → Claimed | Refunded, once.
/// @dev Inputs are ERC-20 only: `tokenId = uint256(uint160(token))`. The escrow never holds ETH.
contract InputSettlerEscrow is InputSettlerBase, ReentrancyGuardTransient {
    using SafeERC20 for IERC20;

    enum OrderStatus {
        None,
        Deposited,
        Claimed,
        Refunded
    }

    /// @notice Canonical Permit2 address; the devnet places a compatible SignatureTransfer there.
    address public constant PERMIT2 = 0x000000000022D473030F116dDEE9F6B43aC78BA3;

    /// @dev First byte of `openFor`'s signature selects how the sponsor authorised the pull.
    bytes1 internal constant SIGNATURE_TYPE_PERMIT2 = 0x00;
    bytes1 internal constant SIGNATURE_TYPE_ERC3009 = 0x01;
    bytes1 internal constant SIGNATURE_TYPE_SELF = 0xff;

    /// @notice Lifecycle state of each order id.
    mapping(bytes32 orderId => OrderStatus) public orderStatus;

    /// @notice The inputs of `orderId` are held.
    event Open(bytes32 indexed orderId, StandardOrder order);
    /// @notice The inputs of `orderId` went back to the order's user.
    event Refunded(bytes32 indexed orderId);

    /// @notice The order is not in the state this step starts from.
    error InvalidOrderStatus();
    /// @notice `purchaseOrder` names another order than the one it passes.
    error OrderIdMismatch(bytes32 provided, bytes32 computed);
    /// @notice ERC-3009 opens need exactly one signature per input.
    error SignatureAndInputsNotEqual();
    /// @notice The order's status changed while its inputs were pulled.
    error ReentrancyDetected();
    /// @notice `openFor`'s signature type byte is unknown, or 0xff (self) was used by someone else than the sponsor.
    error SignatureNotSupported(bytes1 signatureType);
    /// @notice An address carried in a wider word has bits above its 20 bytes.
    error HasDirtyBits();
    /// @notice An input token names an account without code.
    error CodeSize0();
    /// @notice Project check (not in OIF): `user` receives refunds; address(0) would burn them.
    error ZeroUser();
    /// @notice Project check (not in OIF): an order without inputs locks nothing.
    error NoInputs();
    /// @notice Project check (not in OIF): the escrow received less than the inputs name (fee-on-transfer or
    /// no-op token).
    error InsufficientDeposit(address token, uint256 expected, uint256 received);

    constructor() EIP712("OIFEscrow", "1") {}

    // ---------------------------------------------------------------------------------------------------------
    // Open
    // ---------------------------------------------------------------------------------------------------------

    /// @notice Opens `order` with inputs pulled from the caller, who must have approved this escrow. Refunds
    /// still go to `order.user`.
    function open(StandardOrder calldata order) external nonReentrant {
        bytes32 orderId = _markDeposited(order);
        uint256[] memory balancesBefore = _balancesOf(order.inputs);
        _pullFrom(msg.sender, order.inputs);
        _confirmDeposit(order, orderId, balancesBefore);
    }

    /// @notice Opens `order` with inputs pulled from `sponsor` under the sponsor's authorisation.
    /// @param signature Type byte, then:
    ///  0x00 Permit2: the sponsor's signature over PermitBatchWitnessTransferFrom{permitted = inputs,
    ///       spender = this, nonce = order.nonce, deadline = order.fillDeadline, witness = Permit2Witness}.
    ///  0x01 ERC-3009: one ReceiveWithAuthorization signature per input (from = sponsor, to = this,
    ///       value = amount, validAfter = 0, validBefore = fillDeadline, nonce = orderId); a single input
    ///       carries the raw signature, several carry abi.encode(bytes[]).
    ///  0xff (or empty) self: no signature; the caller must be the sponsor, who approved this escrow.
    function openFor(StandardOrder calldata order, address sponsor, bytes calldata signature)
        external
        nonReentrant
    {
        // An empty signature means self, as in OIF: tools that send `0x` for a direct deposit keep working.
        bytes1 signatureType = signature.length == 0 ? SIGNATURE_TYPE_SELF : signature[0];

        bytes32 orderId = _markDeposited(order);
        uint256[] memory balancesBefore = _balancesOf(order.inputs);
        if (signatureType == SIGNATURE_TYPE_PERMIT2) {
            _pullWithPermit2(order, sponsor, signature[1:]);
        } else if (signatureType == SIGNATURE_TYPE_ERC3009) {
            _pullWithErc3009(order, orderId, sponsor, signature[1:]);
        } else if (signatureType == SIGNATURE_TYPE_SELF && msg.sender == sponsor) {
            _pullFrom(sponsor, order.inputs);
        } else {
            revert SignatureNotSupported(signatureType);
        }
        _confirmDeposit(order, orderId, balancesBefore);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Claim, purchase and refund
    // ---------------------------------------------------------------------------------------------------------

    /// @notice Pays the inputs of a Deposited order to `destination` once every output is proven filled at or
    /// before the fill deadline. Only the order's owner may call it: the solver of output 0, or whoever bought
    /// the order from that solver in time (`purchaseOrder`).
    /// @dev No upper time bound: after `expires` a late claim races `refund`, and whichever lands first wins.
    /// A non-empty `call` invokes `IInputCallback(destination).orderFinalised(inputs, call)` after the payout;
    /// it runs under the re-entrancy lock, so it cannot call back into this escrow, and its revert undoes the
    /// claim.
    /// @param solveParams One `(timestamp, solver)` per output, as recorded by the output settler.
    /// @param destination Payout address, left-padded to bytes32 with clean upper bits.
    function finalise(
        StandardOrder calldata order,
        SolveParams[] calldata solveParams,
        bytes32 destination,
        bytes calldata call
    ) external nonReentrant {
        _validateInputChain(order.originChainId);
        address payee = _validateDestination(destination);
        bytes32 orderId = OrderHashLib.orderIdentifier(order, address(this));
        _ownerIsCaller(_orderOwner(orderId, solveParams));
        _settle(order, orderId, solveParams, destination, payee, call);
    }

    /// @notice Like `finalise`, but anyone may submit it: the order's owner authorised the payout to
    /// `destination` (and the `call`) by signing AllowOpen{orderId, destination, call} in this escrow's
    /// EIP-712 domain (`DOMAIN_SEPARATOR()`; name "OIFEscrow", version "1"). ERC-1271 owners are supported.
    function finaliseWithSignature(
        StandardOrder calldata order,
        SolveParams[] calldata solveParams,
        bytes32 destination,
        bytes calldata call,
        bytes calldata orderOwnerSignature
    ) external nonReentrant {
        _validateInputChain(order.originChainId);
        address payee = _validateDestination(destination);
        bytes32 orderId = OrderHashLib.orderIdentifier(order, address(this));
        _allowExternalClaimant(orderId, _orderOwner(orderId, solveParams), destination, call, orderOwnerSignature);
        _settle(order, orderId, solveParams, destination, payee, call);
    }

    /// @notice Buys a filled, not yet claimed order from the solver that filled it: the caller pays the solver's
    /// `orderPurchase.destination` each input less `discount` (1e18 = 100%) now, and becomes the order's owner
    /// if the order's last fill is no older than `timeToBuy` seconds before this purchase.
    /// @param orderSolvedByIdentifier The solver of output 0 (the seller), who signed `orderPurchase` in this
    /// escrow's EIP-712 domain.
    /// @param purchaser The new owner (an address left-padded to bytes32).
    /// @param expiryTimestamp The purchase reverts `Expired` if mined after it.
    function purchaseOrder(
        OrderPurchase calldata orderPurchase,
        StandardOrder calldata order,
        bytes32 orderSolvedByIdentifier,
        bytes32 purchaser,
        uint256 expiryTimestamp,
        bytes calldata solverSignature
    ) external nonReentrant {
        _validateInputChain(order.originChainId);
        bytes32 orderId = OrderHashLib.orderIdentifier(order, address(this));
        if (orderId != orderPurchase.orderId) revert OrderIdMismatch(orderPurchase.orderId, orderId);
        if (orderStatus[orderId] != OrderStatus.Deposited) revert InvalidOrderStatus();

        _recordPurchase(orderPurchase, orderSolvedByIdentifier, purchaser, expiryTimestamp, solverSignature);
        address seller = orderPurchase.destination;
        uint256 keep = DISCOUNT_DENOM - orderPurchase.discount;
        for (uint256 i; i < order.inputs.length; ++i) {
            uint256 amount = (order.inputs[i][1] * keep) / DISCOUNT_DENOM;
            IERC20(_checkedToken(order.inputs[i][0])).safeTransferFrom(msg.sender, seller, amount);
        }
        emit OrderPurchased(orderId, orderSolvedByIdentifier, purchaser);
        if (orderPurchase.callData.length != 0) {
            IInputCallback(seller).orderFinalised(order.inputs, orderPurchase.callData);
        }
    }

    /// @notice Returns the inputs of a Deposited order to `order.user`; anyone may call it strictly after
    /// `expires`.
    function refund(StandardOrder calldata order) external nonReentrant {
        _validateInputChain(order.originChainId);
        _validateTimestampHasPassed(order.expires);
        bytes32 orderId = OrderHashLib.orderIdentifier(order, address(this));

        _transition(orderId, OrderStatus.Refunded);
        _payOut(order.inputs, order.user);
        emit Refunded(orderId);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Views
    // ---------------------------------------------------------------------------------------------------------

    /// @notice Order id of `order` on this escrow and chain.
    function orderIdentifier(StandardOrder calldata order) external view returns (bytes32) {
        return OrderHashLib.orderIdentifier(order, address(this));
    }

    /// @notice Order id of an ABI-encoded StandardOrder on this escrow and chain.
    function orderIdentifier(bytes calldata order) external view returns (bytes32) {
        return OrderHashLib.orderIdentifierMemory(abi.decode(order, (StandardOrder)), address(this));
    }

    // ---------------------------------------------------------------------------------------------------------
    // Internals
    // ---------------------------------------------------------------------------------------------------------

    /// @dev Pays a proven order out to `payee` and emits `Finalised`; then the optional callback.
    function _settle(
        StandardOrder calldata order,
        bytes32 orderId,
        SolveParams[] calldata solveParams,
        bytes32 destination,
        address payee,
        bytes calldata call
    ) private {
        _transition(orderId, OrderStatus.Claimed);
        _validateFills(order, orderId, solveParams);
        _payOut(order.inputs, payee);
        emit Finalised(orderId, solveParams[0].solver, destination);
        if (call.length != 0) IInputCallback(payee).orderFinalised(order.inputs, call);
    }

    /// @dev Runs every open check and marks the order Deposited before any token is touched, so a token that
    /// calls back cannot open the same order twice.
    function _markDeposited(StandardOrder calldata order) private returns (bytes32 orderId) {
        _validateInputChain(order.originChainId);
        _validateTimestampHasNotPassed(order.fillDeadline);
        _validateTimestampHasNotPassed(order.expires);
        if (order.fillDeadline > order.expires) revert FillDeadlineAfterExpiry(order.fillDeadline, order.expires);
        if (order.user == address(0)) revert ZeroUser();
        uint256 inputCount = order.inputs.length;
        if (inputCount == 0) revert NoInputs();
        for (uint256 i; i < inputCount; ++i) {
            _checkedToken(order.inputs[i][0]);
        }

        orderId = OrderHashLib.orderIdentifier(order, address(this));
        if (orderStatus[orderId] != OrderStatus.None) revert InvalidOrderStatus();
        orderStatus[orderId] = OrderStatus.Deposited;
    }

    /// @dev Refuses the order unless the escrow's balance of every token grew by at least the sum of that
    /// token's inputs (inputs may repeat a token), then re-reads the status the pulls could have touched.
    function _confirmDeposit(StandardOrder calldata order, bytes32 orderId, uint256[] memory balancesBefore)
        private
    {
        uint256[2][] calldata inputs = order.inputs;
        for (uint256 i; i < inputs.length; ++i) {
            address token = address(uint160(inputs[i][0]));
            uint256 expected;
            for (uint256 j; j < inputs.length; ++j) {
                if (inputs[j][0] == inputs[i][0]) expected += inputs[j][1];
            }
            uint256 balanceAfter = IERC20(token).balanceOf(address(this));
            uint256 received = balanceAfter > balancesBefore[i] ? balanceAfter - balancesBefore[i] : 0;
            if (received < expected) revert InsufficientDeposit(token, expected, received);
        }
        if (orderStatus[orderId] != OrderStatus.Deposited) revert ReentrancyDetected();
        emit Open(orderId, order);
    }

    function _balancesOf(uint256[2][] calldata inputs) private view returns (uint256[] memory balances) {
        balances = new uint256[](inputs.length);
        for (uint256 i; i < inputs.length; ++i) {
            balances[i] = IERC20(address(uint160(inputs[i][0]))).balanceOf(address(this));
        }
    }

    function _pullFrom(address from, uint256[2][] calldata inputs) private {
        for (uint256 i; i < inputs.length; ++i) {
            IERC20(address(uint160(inputs[i][0]))).safeTransferFrom(from, address(this), inputs[i][1]);
        }
    }

    /// @dev The witness binds user, expires, oracle and outputs; permitted, nonce and deadline bind the rest,
    /// so the signature covers every field of the order (the chain through Permit2's domain).
    function _pullWithPermit2(StandardOrder calldata order, address sponsor, bytes calldata signature) private {
        uint256 inputCount = order.inputs.length;
        ISignatureTransfer.TokenPermissions[] memory permitted =
            new ISignatureTransfer.TokenPermissions[](inputCount);
        ISignatureTransfer.SignatureTransferDetails[] memory transfers =
            new ISignatureTransfer.SignatureTransferDetails[](inputCount);
        for (uint256 i; i < inputCount; ++i) {
            uint256 amount = order.inputs[i][1];
            permitted[i] = ISignatureTransfer.TokenPermissions(address(uint160(order.inputs[i][0])), amount);
            transfers[i] = ISignatureTransfer.SignatureTransferDetails(address(this), amount);
        }
        ISignatureTransfer(PERMIT2).permitWitnessTransferFrom(
            ISignatureTransfer.PermitBatchTransferFrom(permitted, order.nonce, order.fillDeadline),
            transfers,
            sponsor,
            Permit2WitnessLib.witnessHash(order),
            Permit2WitnessLib.PERMIT2_WITNESS_TYPE_STRING,
            signature
        );
    }

    /// @dev The authorisation nonce is the order id, which commits to every order field but the origin chain
    /// (checked separately and bound by the token's domain): one signature, one order. An order that repeats a
    /// token cannot use this path, since the token refuses the second use of the nonce.
    function _pullWithErc3009(StandardOrder calldata order, bytes32 orderId, address sponsor, bytes calldata signatures)
        private
    {
        uint256 inputCount = order.inputs.length;
        if (inputCount == 1 && !_isSingleEntryBytesArray(signatures)) {
            _receiveWithAuthorization(order, 0, orderId, sponsor, signatures);
            return;
        }
        bytes[] memory perInput = abi.decode(signatures, (bytes[]));
        if (perInput.length != inputCount) revert SignatureAndInputsNotEqual();
        for (uint256 i; i < inputCount; ++i) {
            _receiveWithAuthorization(order, i, orderId, sponsor, perInput[i]);
        }
    }

    /// @dev OIF also accepts `abi.encode(bytes[])` for a single input. Its head is the offset 0x20 and the
    /// length 1, which no 64/65-byte ECDSA signature starts with; checked by shape, so the token's own error
    /// still surfaces when a raw signature is wrong.
    function _isSingleEntryBytesArray(bytes calldata data) private pure returns (bool) {
        return data.length >= 128 && uint256(bytes32(data[0:32])) == 0x20 && uint256(bytes32(data[32:64])) == 1;
    }

    function _receiveWithAuthorization(
        StandardOrder calldata order,
        uint256 index,
        bytes32 orderId,
        address sponsor,
        bytes memory signature
    ) private {
        IERC3009(address(uint160(order.inputs[index][0]))).receiveWithAuthorization(
            sponsor, address(this), order.inputs[index][1], 0, order.fillDeadline, orderId, signature
        );
    }

    /// @dev The only way out of Deposited; terminal states are exclusive because both start from Deposited.
    function _transition(bytes32 orderId, OrderStatus next) private {
        if (orderStatus[orderId] != OrderStatus.Deposited) revert InvalidOrderStatus();
        orderStatus[orderId] = next;
    }

    function _payOut(uint256[2][] calldata inputs, address to) private {
        for (uint256 i; i < inputs.length; ++i) {
            IERC20(address(uint160(inputs[i][0]))).safeTransfer(to, inputs[i][1]);
        }
    }

    function _checkedToken(uint256 tokenId) private view returns (address token) {
        if (tokenId >> 160 != 0) revert HasDirtyBits();
        token = address(uint160(tokenId));
        if (token.code.length == 0) revert CodeSize0();
    }
}
