// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {IOutputSettler} from "../interfaces/IOutputSettler.sol";

/// @title OutputOracle
/// @notice Destination-chain half of the oracle pair: turns fills that an output settler attests into events
/// that the relayer carries to the origin chain's `InputOracle`.
/// @dev Permissionless: anyone may submit, since the settler decides what is attested. Outputs must name this
/// contract as their `oracle`: the settler checks payloads against outputs naming the caller. A settler that
/// lies only ever "proves" outputs that name it as their settler, which no honest order does.
/// Deployed through CREATE2 without constructor arguments, so it has one address on every chain; that address
/// is the `remoteOracle` of the origin-chain proofs.
contract OutputOracle {
    /// @notice `submit` with no payloads.
    error NoPayloads();
    /// @notice The settler did not attest every payload.
    error NotAttested();
    /// @notice Payload `index` is too short to carry an order id.
    error PayloadTooShort(uint256 index);
    /// @notice Returning `msg.value` to the caller failed.
    error RefundFailed();

    /// @notice One attested fill, ready to relay (project event; OIF's `OutputProven` is emitted on the origin
    /// chain by the `InputOracle` that records it). The origin-chain record is
    /// (`chainId`, this contract, `application`, `dataHash`).
    /// @param chainId This (the destination) chain: the origin's `remoteChainId`.
    /// @param application The output settler, left-padded: the origin's `application`.
    /// @param orderId The order id carried in the payload (bytes 32..64), for watchers.
    /// @param dataHash keccak256(payload).
    /// @param payload The fill description: solver ‖ orderId ‖ uint32 timestamp ‖ common payload.
    event OutputAttested(
        uint256 indexed chainId, bytes32 indexed application, bytes32 indexed orderId, bytes32 dataHash, bytes payload
    );

    /// @notice Emits `OutputAttested` for each payload, after `outputSettler` confirms it recorded each fill for
    /// an output naming this oracle. OIF's oracle shape: payable, returns the unused value. This oracle charges
    /// nothing, so the whole `msg.value` is sent back to the caller and returned as `refund`.
    /// @param payloads FillDescriptionLib fill descriptions.
    function submit(address outputSettler, bytes[] calldata payloads) external payable returns (uint256 refund) {
        uint256 count = payloads.length;
        if (count == 0) revert NoPayloads();
        if (!IOutputSettler(outputSettler).hasAttested(payloads)) revert NotAttested();

        bytes32 application = bytes32(uint256(uint160(outputSettler)));
        for (uint256 i; i < count; ++i) {
            bytes calldata payload = payloads[i];
            if (payload.length < 64) revert PayloadTooShort(i);
            emit OutputAttested(block.chainid, application, bytes32(payload[32:64]), keccak256(payload), payload);
        }
        refund = msg.value;
        if (refund != 0) {
            (bool ok,) = payable(msg.sender).call{value: refund}("");
            if (!ok) revert RefundFailed();
        }
    }
}
