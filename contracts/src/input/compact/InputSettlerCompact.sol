// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";

import {SolveParams, StandardOrder} from "../../types/StandardOrder.sol";
import {CompactMandateLib} from "../../libraries/CompactMandateLib.sol";
import {OrderHashLib} from "../../libraries/OrderHashLib.sol";
import {InputSettlerBase} from "../InputSettlerBase.sol";
import {IInputCallback} from "../escrow/IInputCallback.sol";
import {IResourceLock} from "../../lock/interfaces/IResourceLock.sol";
import {BatchClaim, BatchClaimComponent, Component} from "../../lock/types/LockTypes.sol";

/// @title InputSettlerCompact
/// @notice Origin-chain settler for resource-lock orders (OIF-compatible ABI). The taker deposits into the
/// resource lock and signs a BatchCompact naming this settler as arbiter, with the order's Mandate as witness.
/// Nothing is opened on chain: once every output is proven, the solver of output 0 calls `finalise`, and this
/// settler, as arbiter, claims the order's inputs from the lock for the solver's destination.
/// @dev Order inputs are `[lockId, amount]` with lockId = lockTag << 160 | token. The lock enforces
/// `now < expires` and consumes `order.nonce` in the allocator's namespace, so an order pays out at most once;
/// this contract keeps no order state. Unclaimed orders need no refund: after `expires` the compact is dead and
/// the taker's balance is free (forced withdrawal, or a new compact).
contract InputSettlerCompact is InputSettlerBase {
    /// @notice The order's user is this settler: the lock would waive the sponsor signature for its arbiter.
    error UserCannotBeSettler();

    /// @notice The Mandate part of the BatchCompact typestring, as the lock expects it: the inside of
    /// `Mandate(...)` and the nested MandateOutput type, without the closing parenthesis.
    string public constant MANDATE_WITNESS_TYPESTRING =
        "uint32 fillDeadline,address inputOracle,MandateOutput[] outputs)MandateOutput(bytes32 oracle,bytes32 settler,uint256 chainId,bytes32 token,uint256 amount,bytes32 recipient,bytes callbackData,bytes context";

    /// @notice The resource lock (The Compact subset) that holds the inputs.
    IResourceLock public immutable COMPACT;

    constructor(address compact) EIP712("OIFCompact", "1") {
        COMPACT = IResourceLock(compact);
    }

    /// @notice Order id of `order` as this settler computes it on this chain.
    function orderIdentifier(StandardOrder calldata order) external view returns (bytes32) {
        return OrderHashLib.orderIdentifier(order, address(this));
    }

    /// @notice EIP-712 struct hash of the BatchCompact the taker signs for `order` (arbiter: this settler).
    /// @dev The signed digest is keccak256(0x1901 ‖ COMPACT.DOMAIN_SEPARATOR() ‖ compactClaimHash(order)).
    function compactClaimHash(StandardOrder calldata order) external view returns (bytes32) {
        return CompactMandateLib.batchCompactHash(order, address(this));
    }

    /// @notice Pays the inputs of a filled and proven order to `destination`.
    /// @dev Only the solver of output 0 may call it. Every output must have been filled at or before
    /// `fillDeadline` and proven on `order.inputOracle`. The claim must land strictly before `order.expires`.
    /// A non-empty `call` invokes `IInputCallback(destination).orderFinalised(inputs, call)` after the payout;
    /// its revert undoes the claim.
    /// @param signatures abi.encode(bytes sponsorSignature, bytes allocatorData).
    /// @param solveParams One `(timestamp, solver)` per output, as recorded by the output settler.
    /// @param destination Payout address, left-padded to bytes32 with clean upper bits.
    function finalise(
        StandardOrder calldata order,
        bytes calldata signatures,
        SolveParams[] calldata solveParams,
        bytes32 destination,
        bytes calldata call
    ) external {
        address payee = _validateDestination(destination);
        _validateInputChain(order.originChainId);
        bytes32 orderId = OrderHashLib.orderIdentifier(order, address(this));
        _ownerIsCaller(_orderOwner(orderId, solveParams));
        _settle(order, signatures, orderId, solveParams, destination, payee, call);
    }

    /// @notice Like `finalise`, but anyone may submit it: the order's owner (the solver of output 0) authorised
    /// the payout to `destination` and the `call` by signing AllowOpen{orderId, destination, call} in this
    /// settler's EIP-712 domain (`DOMAIN_SEPARATOR()`; name "OIFCompact", version "1").
    function finaliseWithSignature(
        StandardOrder calldata order,
        bytes calldata signatures,
        SolveParams[] calldata solveParams,
        bytes32 destination,
        bytes calldata call,
        bytes calldata orderOwnerSignature
    ) external {
        address payee = _validateDestination(destination);
        _validateInputChain(order.originChainId);
        bytes32 orderId = OrderHashLib.orderIdentifier(order, address(this));
        _allowExternalClaimant(orderId, _orderOwner(orderId, solveParams), destination, call, orderOwnerSignature);
        _settle(order, signatures, orderId, solveParams, destination, payee, call);
    }

    function _settle(
        StandardOrder calldata order,
        bytes calldata signatures,
        bytes32 orderId,
        SolveParams[] calldata solveParams,
        bytes32 destination,
        address payee,
        bytes calldata call
    ) private {
        _validateFills(order, orderId, solveParams);
        _claim(order, signatures, destination);
        emit Finalised(orderId, solveParams[0].solver, destination);
        if (call.length != 0) IInputCallback(payee).orderFinalised(order.inputs, call);
    }

    /// @dev Claims every input in full for `destination`; a claimant with a zero lock tag makes the lock
    /// withdraw the underlying tokens rather than move ERC-6909 balances.
    function _claim(StandardOrder calldata order, bytes calldata signatures, bytes32 destination) private {
        if (order.user == address(this)) revert UserCannotBeSettler();
        (bytes memory sponsorSignature, bytes memory allocatorData) = abi.decode(signatures, (bytes, bytes));

        uint256 count = order.inputs.length;
        BatchClaimComponent[] memory claims = new BatchClaimComponent[](count);
        for (uint256 i; i < count; ++i) {
            Component[] memory portions = new Component[](1);
            portions[0] = Component({claimant: uint256(destination), amount: order.inputs[i][1]});
            claims[i] =
                BatchClaimComponent({id: order.inputs[i][0], allocatedAmount: order.inputs[i][1], portions: portions});
        }

        COMPACT.batchClaim(
            BatchClaim({
                allocatorData: allocatorData,
                sponsorSignature: sponsorSignature,
                sponsor: order.user,
                nonce: order.nonce,
                expires: order.expires,
                witness: CompactMandateLib.mandateHash(order),
                witnessTypestring: MANDATE_WITNESS_TYPESTRING,
                claims: claims
            })
        );
    }
}
