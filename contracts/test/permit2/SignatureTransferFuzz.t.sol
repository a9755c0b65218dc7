// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {Permit2TestBase} from "./Permit2TestBase.sol";
import {OrderFixture} from "./OrderFixture.sol";
import {StandardOrder} from "../../src/types/StandardOrder.sol";
import {ISignatureTransfer} from "../../src/permit2/ISignatureTransfer.sol";
import {Permit2WitnessLib} from "../../src/libraries/Permit2WitnessLib.sol";

/// @notice Property tests: nonces never replay, deadlines are inclusive, and a signature binds every field.
contract SignatureTransferFuzzTest is Permit2TestBase {
    address internal escrow = makeAddr("escrow");

    function testFuzz_replayedNonceReverts(uint256 nonce, uint256 amount) public {
        amount = bound(amount, 0, START_BALANCE);
        ISignatureTransfer.PermitTransferFrom memory permit = singlePermit(address(usdc), amount, nonce, DEADLINE);
        bytes memory sig = signDigest(OWNER_KEY, singleDigest(permit, spender));

        vm.startPrank(spender);
        permit2.permitTransferFrom(permit, details(recipient, amount), owner, sig);
        assertEq(permit2.nonceBitmap(owner, nonce >> 8), 2 ** (nonce & 0xff));

        vm.expectRevert(ISignatureTransfer.InvalidNonce.selector);
        permit2.permitTransferFrom(permit, details(recipient, amount), owner, sig);
        vm.stopPrank();
        assertEq(usdc.balanceOf(recipient), amount, "paid once");
    }

    /// Single and batch permits share one nonce space per owner.
    function testFuzz_nonceUsedByBatchBlocksSingle(uint256 nonce) public {
        ISignatureTransfer.PermitBatchTransferFrom memory batch = batchPermit(1, 1, nonce, DEADLINE);
        vm.prank(spender);
        permit2.permitTransferFrom(
            batch, batchDetails(recipient, 1, 1), owner, signDigest(OWNER_KEY, batchDigest(batch, spender))
        );

        ISignatureTransfer.PermitTransferFrom memory single = singlePermit(address(usdc), 1, nonce, DEADLINE);
        bytes memory sig = signDigest(OWNER_KEY, singleDigest(single, spender));
        vm.prank(spender);
        vm.expectRevert(ISignatureTransfer.InvalidNonce.selector);
        permit2.permitTransferFrom(single, details(recipient, 1), owner, sig);
    }

    function testFuzz_invalidatedNonceReverts(uint248 wordPos, uint8 bitPos) public {
        uint256 nonce = (uint256(wordPos) << 8) | bitPos;
        vm.prank(owner);
        permit2.invalidateUnorderedNonces(wordPos, 2 ** uint256(bitPos));

        ISignatureTransfer.PermitTransferFrom memory permit = singlePermit(address(usdc), 1, nonce, DEADLINE);
        bytes memory sig = signDigest(OWNER_KEY, singleDigest(permit, spender));
        vm.prank(spender);
        vm.expectRevert(ISignatureTransfer.InvalidNonce.selector);
        permit2.permitTransferFrom(permit, details(recipient, 1), owner, sig);
    }

    function testFuzz_deadlineIsInclusive(uint256 deadline, uint256 timestamp) public {
        deadline = bound(deadline, block.timestamp, type(uint64).max);
        timestamp = bound(timestamp, block.timestamp, type(uint64).max);
        ISignatureTransfer.PermitTransferFrom memory permit = singlePermit(address(usdc), 1, 0, deadline);
        bytes memory sig = signDigest(OWNER_KEY, singleDigest(permit, spender));

        vm.warp(timestamp);
        vm.prank(spender);
        if (timestamp > deadline) {
            vm.expectRevert(abi.encodeWithSelector(ISignatureTransfer.SignatureExpired.selector, deadline));
        }
        permit2.permitTransferFrom(permit, details(recipient, 1), owner, sig);
    }

    function testFuzz_wrongKeyReverts(uint256 key) public {
        key = bound(key, 1, SECP256K1_ORDER - 1);
        vm.assume(key != OWNER_KEY);
        ISignatureTransfer.PermitTransferFrom memory permit = singlePermit(address(usdc), 1, 0, DEADLINE);
        bytes memory sig = signDigest(key, singleDigest(permit, spender));

        vm.prank(spender);
        vm.expectRevert(ISignatureTransfer.InvalidSigner.selector);
        permit2.permitTransferFrom(permit, details(recipient, 1), owner, sig);
    }

    function testFuzz_tamperedSignatureReverts(uint8 index, uint8 flip) public {
        vm.assume(flip != 0);
        ISignatureTransfer.PermitTransferFrom memory permit = singlePermit(address(usdc), 1, 0, DEADLINE);
        bytes memory sig = signDigest(OWNER_KEY, singleDigest(permit, spender));
        sig[index % 65] ^= bytes1(flip);

        vm.prank(spender);
        vm.expectRevert();
        permit2.permitTransferFrom(permit, details(recipient, 1), owner, sig);
        assertEq(usdc.balanceOf(recipient), 0);
    }

    function testFuzz_compactAndFullSignaturesAgree(uint256 key, uint256 nonce) public {
        key = bound(key, 1, SECP256K1_ORDER - 1);
        address signer = vm.addr(key);
        usdc.mint(signer, 2);
        vm.prank(signer);
        usdc.approve(PERMIT2, 2);

        ISignatureTransfer.PermitTransferFrom memory first = singlePermit(address(usdc), 1, nonce, DEADLINE);
        ISignatureTransfer.PermitTransferFrom memory second =
            singlePermit(address(usdc), 1, nonce ^ 1, DEADLINE);
        vm.startPrank(spender);
        permit2.permitTransferFrom(first, details(recipient, 1), signer, signDigest(key, singleDigest(first, spender)));
        permit2.permitTransferFrom(
            second, details(recipient, 1), signer, signDigestCompact(key, singleDigest(second, spender))
        );
        vm.stopPrank();
        assertEq(usdc.balanceOf(recipient), 2);
    }

    /// Changing any signed field of a single permit (token, amount, nonce, deadline, spender, owner)
    /// makes the signature invalid.
    function testFuzz_changedPermitFieldReverts(uint8 field, uint256 salt) public {
        salt = bound(salt, 1, type(uint32).max);
        ISignatureTransfer.PermitTransferFrom memory permit = singlePermit(address(usdc), 100, 0, DEADLINE);
        bytes memory sig = signDigest(OWNER_KEY, singleDigest(permit, spender));
        address caller = spender;
        address from = owner;

        field = field % 6;
        // salt is bounded to uint32, so the narrowing casts below keep it whole.
        // forge-lint: disable-start(unsafe-typecast)
        if (field == 0) permit.permitted.token = address(eurc);
        else if (field == 1) permit.permitted.amount += salt;
        else if (field == 2) permit.nonce ^= salt;
        else if (field == 3) permit.deadline += salt;
        else if (field == 4) caller = address(uint160(spender) ^ uint160(salt));
        else from = address(uint160(owner) ^ uint160(salt));
        // forge-lint: disable-end(unsafe-typecast)

        vm.prank(caller);
        vm.expectRevert(ISignatureTransfer.InvalidSigner.selector);
        permit2.permitTransferFrom(permit, details(recipient, 1), from, sig);
    }

    /// Changing any field of a signed order, other than originChainId (checked by the escrow against
    /// block.chainid, and bound by the Permit2 domain), makes the escrow's pull revert.
    function testFuzz_changedOrderFieldReverts(uint8 field, uint256 salt) public {
        salt = bound(salt, 1, type(uint32).max);
        StandardOrder memory order =
            OrderFixture.twoInputOrder(owner, address(usdc), address(eurc), uint32(block.timestamp + 1 hours));
        bytes memory sig = signPermit2Order(OWNER_KEY, order, escrow);

        field = field % 15;
        // salt is bounded to uint32, so the narrowing casts below keep it whole.
        // forge-lint: disable-start(unsafe-typecast)
        if (field == 0) order.user = address(uint160(order.user) ^ uint160(salt));
        else if (field == 1) order.nonce ^= salt;
        else if (field == 2) order.expires ^= uint32(salt);
        else if (field == 3) order.fillDeadline += uint32(salt % 1 days) + 1;
        else if (field == 4) order.inputOracle = address(uint160(order.inputOracle) ^ uint160(salt));
        else if (field == 5) order.inputs[salt % 2][0] ^= uint256(uint160(address(usdc)) ^ uint160(address(eurc))); // swaps the tokens
        else if (field == 6) order.inputs[salt % 2][1] += salt;
        else if (field == 7) order.outputs[0].oracle ^= bytes32(salt);
        else if (field == 8) order.outputs[0].settler ^= bytes32(salt);
        else if (field == 9) order.outputs[0].chainId ^= salt;
        else if (field == 10) order.outputs[0].token ^= bytes32(salt);
        else if (field == 11) order.outputs[0].amount ^= salt;
        else if (field == 12) order.outputs[0].recipient ^= bytes32(salt);
        else if (field == 13) order.outputs[0].callbackData = abi.encodePacked(salt);
        else order.outputs[0].context = abi.encodePacked(bytes1(0x01), salt);
        // forge-lint: disable-end(unsafe-typecast)

        vm.prank(escrow);
        vm.expectRevert(ISignatureTransfer.InvalidSigner.selector);
        permit2.permitWitnessTransferFrom(
            orderPermit(order),
            OrderFixture.pullAll(order, escrow),
            owner,
            Permit2WitnessLib.witnessHashMemory(order),
            Permit2WitnessLib.PERMIT2_WITNESS_TYPE_STRING,
            sig
        );
    }
}
