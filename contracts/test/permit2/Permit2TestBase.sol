// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {Permit2Signer} from "./Permit2Signer.sol";
import {ISignatureTransfer} from "../../src/permit2/ISignatureTransfer.sol";
import {TestStablecoin} from "../../src/tokens/TestStablecoin.sol";

/// @notice Shared fixture: Permit2 etched at the canonical address, two funded stablecoins approved to it,
/// and signers for the non-witness messages built from literal type strings.
abstract contract Permit2TestBase is Permit2Signer {
    bytes32 internal constant PERMIT_TRANSFER_FROM_TYPEHASH = keccak256(
        "PermitTransferFrom(TokenPermissions permitted,address spender,uint256 nonce,uint256 deadline)TokenPermissions(address token,uint256 amount)"
    );
    bytes32 internal constant PERMIT_BATCH_TRANSFER_FROM_TYPEHASH = keccak256(
        "PermitBatchTransferFrom(TokenPermissions[] permitted,address spender,uint256 nonce,uint256 deadline)TokenPermissions(address token,uint256 amount)"
    );
    string internal constant SINGLE_WITNESS_STUB =
        "PermitWitnessTransferFrom(TokenPermissions permitted,address spender,uint256 nonce,uint256 deadline,";
    /// A small witness used where the order witness is not the point.
    string internal constant MOCK_WITNESS_TYPE_STRING =
        "MockWitness witness)MockWitness(uint256 value)TokenPermissions(address token,uint256 amount)";

    uint256 internal constant OWNER_KEY = 0xA11CE;
    uint256 internal constant OTHER_KEY = 0xB0B;
    uint256 internal constant START_BALANCE = 1_000_000e6;
    uint256 internal constant DEADLINE = 1_800_000_000;

    ISignatureTransfer internal permit2;
    TestStablecoin internal usdc;
    TestStablecoin internal eurc;
    address internal owner;
    address internal spender = makeAddr("spender");
    address internal recipient = makeAddr("recipient");

    function setUp() public virtual {
        vm.warp(1_700_000_000);
        permit2 = etchPermit2();
        owner = vm.addr(OWNER_KEY);
        usdc = new TestStablecoin("USD Coin", "USDC", 6, address(this));
        eurc = new TestStablecoin("Euro Coin", "EURC", 6, address(this));
        usdc.mint(owner, START_BALANCE);
        eurc.mint(owner, START_BALANCE);
        vm.startPrank(owner);
        usdc.approve(PERMIT2, type(uint256).max);
        eurc.approve(PERMIT2, type(uint256).max);
        vm.stopPrank();
    }

    function singlePermit(address token, uint256 amount, uint256 nonce, uint256 deadline)
        internal
        pure
        returns (ISignatureTransfer.PermitTransferFrom memory)
    {
        return ISignatureTransfer.PermitTransferFrom({
            permitted: ISignatureTransfer.TokenPermissions({token: token, amount: amount}),
            nonce: nonce,
            deadline: deadline
        });
    }

    function batchPermit(uint256 usdcAmount, uint256 eurcAmount, uint256 nonce, uint256 deadline)
        internal
        view
        returns (ISignatureTransfer.PermitBatchTransferFrom memory permit)
    {
        permit.permitted = new ISignatureTransfer.TokenPermissions[](2);
        permit.permitted[0] = ISignatureTransfer.TokenPermissions({token: address(usdc), amount: usdcAmount});
        permit.permitted[1] = ISignatureTransfer.TokenPermissions({token: address(eurc), amount: eurcAmount});
        permit.nonce = nonce;
        permit.deadline = deadline;
    }

    function details(address to, uint256 amount)
        internal
        pure
        returns (ISignatureTransfer.SignatureTransferDetails memory)
    {
        return ISignatureTransfer.SignatureTransferDetails({to: to, requestedAmount: amount});
    }

    function batchDetails(address to, uint256 first, uint256 second)
        internal
        pure
        returns (ISignatureTransfer.SignatureTransferDetails[] memory list)
    {
        list = new ISignatureTransfer.SignatureTransferDetails[](2);
        list[0] = details(to, first);
        list[1] = details(to, second);
    }

    function singleDigest(ISignatureTransfer.PermitTransferFrom memory permit, address spender_)
        internal
        view
        returns (bytes32)
    {
        bytes32 structHash = keccak256(
            abi.encode(
                PERMIT_TRANSFER_FROM_TYPEHASH, _hashPermission(permit.permitted), spender_, permit.nonce, permit.deadline
            )
        );
        return keccak256(abi.encodePacked("\x19\x01", permit2DomainSeparator(PERMIT2), structHash));
    }

    function singleWitnessDigest(
        ISignatureTransfer.PermitTransferFrom memory permit,
        address spender_,
        bytes32 witness,
        string memory witnessTypeString
    ) internal view returns (bytes32) {
        bytes32 typeHash = keccak256(abi.encodePacked(SINGLE_WITNESS_STUB, witnessTypeString));
        bytes32 structHash = keccak256(
            abi.encode(typeHash, _hashPermission(permit.permitted), spender_, permit.nonce, permit.deadline, witness)
        );
        return keccak256(abi.encodePacked("\x19\x01", permit2DomainSeparator(PERMIT2), structHash));
    }

    function batchDigest(ISignatureTransfer.PermitBatchTransferFrom memory permit, address spender_)
        internal
        view
        returns (bytes32)
    {
        bytes32[] memory hashes = new bytes32[](permit.permitted.length);
        for (uint256 i; i < hashes.length; ++i) {
            hashes[i] = _hashPermission(permit.permitted[i]);
        }
        bytes32 structHash = keccak256(
            abi.encode(
                PERMIT_BATCH_TRANSFER_FROM_TYPEHASH,
                keccak256(abi.encodePacked(hashes)),
                spender_,
                permit.nonce,
                permit.deadline
            )
        );
        return keccak256(abi.encodePacked("\x19\x01", permit2DomainSeparator(PERMIT2), structHash));
    }

    function mockWitness(uint256 value) internal pure returns (bytes32) {
        return keccak256(abi.encode(keccak256("MockWitness(uint256 value)"), value));
    }

    function _hashPermission(ISignatureTransfer.TokenPermissions memory permitted) private pure returns (bytes32) {
        return keccak256(abi.encode(TOKEN_PERMISSIONS_TYPEHASH, permitted.token, permitted.amount));
    }
}
