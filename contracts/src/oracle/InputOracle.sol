// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {BaseInputOracle} from "./BaseInputOracle.sol";

/// @title InputOracle
/// @notice Origin-chain half of the oracle pair: stores fills attested on remote chains, as relayed by one
/// trusted relayer (the settlement service), and answers the input settlers' proof checks.
/// @dev Trust model: the relayer is trusted to carry only `OutputOracle.OutputAttested` events it observed on
/// the remote chain. Deployed through CREATE2 with the relayer as constructor argument, so one relayer gives
/// one address on every chain. Each new record emits OIF's `OutputProven(chainid, remoteIdentifier,
/// application, payloadHash)` and the project's `AttestationRecorded` (which also carries the order id).
contract InputOracle is BaseInputOracle {
    /// @notice The caller is not the relayer.
    error NotRelayer();
    /// @notice The relayer cannot be address(0).
    error ZeroRelayer();
    /// @notice `receiveAttestation` with no payloads.
    error NoPayloads();
    /// @notice Payload `index` is too short to carry an order id.
    error PayloadTooShort(uint256 index);

    /// @notice A remote fill was recorded for the first time (project event, emitted next to OIF's
    /// `OutputProven`, so watchers can filter by order id).
    /// @param orderId Bytes 32..64 of the payload (the fill description's order id), for watchers.
    /// @param dataHash keccak256(payload): the value the input settlers look up.
    event AttestationRecorded(
        uint256 indexed remoteChainId,
        bytes32 indexed application,
        bytes32 indexed orderId,
        bytes32 remoteOracle,
        bytes32 dataHash
    );
    event RelayerChanged(address indexed previousRelayer, address indexed newRelayer);

    address public relayer;

    modifier onlyRelayer() {
        if (msg.sender != relayer) revert NotRelayer();
        _;
    }

    constructor(address relayer_) {
        if (relayer_ == address(0)) revert ZeroRelayer();
        relayer = relayer_;
        emit RelayerChanged(address(0), relayer_);
    }

    /// @notice Records fills attested on `remoteChainId` by `remoteOracle` for `application`.
    /// @dev Takes the payloads, not their hashes, so the origin chain's logs carry the order id and the
    /// record is bound to bytes the relayer actually saw. Re-recording is a no-op without an event.
    /// @param remoteOracle The `OutputOracle` that emitted `OutputAttested` (the log's address), left-padded.
    /// @param application The output settler (`OutputAttested.application`).
    /// @param payloads The fill descriptions (`OutputAttested.payload`).
    function receiveAttestation(
        uint256 remoteChainId,
        bytes32 remoteOracle,
        bytes32 application,
        bytes[] calldata payloads
    ) external onlyRelayer {
        uint256 count = payloads.length;
        if (count == 0) revert NoPayloads();
        for (uint256 i; i < count; ++i) {
            bytes calldata payload = payloads[i];
            if (payload.length < 64) revert PayloadTooShort(i);
            bytes32 dataHash = keccak256(payload);
            if (_attestations[remoteChainId][remoteOracle][application][dataHash]) continue;
            _attestations[remoteChainId][remoteOracle][application][dataHash] = true;
            emit OutputProven(remoteChainId, remoteOracle, application, dataHash);
            emit AttestationRecorded(remoteChainId, application, bytes32(payload[32:64]), remoteOracle, dataHash);
        }
    }

    /// @notice Hands the relayer role to `newRelayer`; only the current relayer may.
    function setRelayer(address newRelayer) external onlyRelayer {
        if (newRelayer == address(0)) revert ZeroRelayer();
        emit RelayerChanged(relayer, newRelayer);
        relayer = newRelayer;
    }
}
