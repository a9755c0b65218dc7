// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {ERC6909} from "@openzeppelin/contracts/token/ERC6909/draft-ERC6909.sol";

import {IResourceLock} from "../../src/lock/interfaces/IResourceLock.sol";
import {AlwaysOkAllocator} from "../../src/lock/AlwaysOkAllocator.sol";
import {LockIdLib} from "../../src/lock/libraries/LockIdLib.sol";
import {BatchClaim, BatchClaimComponent, Component, ResetPeriod, Scope} from "../../src/lock/types/LockTypes.sol";
import {LockTestBase} from "./LockTestBase.sol";
import {MintableToken} from "./helpers/TestTokens.sol";
import {ScriptedAllocator} from "./helpers/TestAllocators.sol";
import {NativeRefuser, OwnedSmartAccount} from "./helpers/TestAccounts.sol";

/// @notice `batchClaim`: signature binding, expiry edges, nonce replay, allocator hooks, claimant encodings.
contract ResourceLockClaimTest is LockTestBase {
    event Claim(
        address indexed sponsor, address indexed allocator, address indexed arbiter, bytes32 claimHash, uint256 nonce
    );

    uint256 internal constant NONCE = 42;
    uint256 internal expires;

    function setUp() public override {
        super.setUp();
        expires = block.timestamp + 1 hours;
        _deposit(sponsor, 100e6);
    }

    // --- success paths --- //

    function test_batchClaim_withdrawsToRecipient() public {
        BatchClaim memory claim = _signedClaim(NONCE, expires, 60e6);
        bytes32 expectedHash = _claimHash(arbiter, sponsor, NONCE, expires, _single(lockId, 60e6), 7);

        vm.expectEmit(address(lock));
        emit Claim(sponsor, address(allocator), arbiter, expectedHash, NONCE);
        vm.prank(arbiter);
        bytes32 claimHash = lock.batchClaim(claim);

        assertEq(claimHash, expectedHash);
        assertEq(token.balanceOf(recipient), 60e6);
        assertEq(lock.balanceOf(sponsor, lockId), 40e6);
        assertEq(token.balanceOf(address(lock)), 40e6);
        assertTrue(lock.hasConsumedAllocatorNonce(NONCE, address(allocator)));
        assertFalse(lock.hasConsumedAllocatorNonce(NONCE + 1, address(allocator)));
    }

    function test_batchClaim_transfersLockBalanceWhenClaimantCarriesTheLockTag() public {
        BatchClaim memory claim = _signedClaim(NONCE, expires, 60e6);
        claim.claims[0].portions[0].claimant = lockId & ~uint256(type(uint160).max) | uint160(recipient);
        vm.prank(arbiter);
        lock.batchClaim(claim);
        assertEq(lock.balanceOf(recipient, lockId), 60e6);
        assertEq(token.balanceOf(recipient), 0);
        assertEq(token.balanceOf(address(lock)), 100e6);
    }

    function test_batchClaim_convertsIntoAnotherRegisteredLock() public {
        bytes12 otherTag = allocator.lockTag(Scope.ChainSpecific, ResetPeriod.OneDay);
        BatchClaim memory claim = _signedClaim(NONCE, expires, 60e6);
        claim.claims[0].portions[0].claimant = uint256(bytes32(otherTag)) | uint160(recipient);
        vm.prank(arbiter);
        lock.batchClaim(claim);
        assertEq(lock.balanceOf(recipient, LockIdLib.toId(otherTag, address(token))), 60e6);
        assertEq(lock.balanceOf(sponsor, lockId), 40e6);
    }

    function test_batchClaim_revertsOnConversionIntoUnregisteredLock() public {
        bytes12 unknownTag = LockIdLib.toLockTag(77, Scope.Multichain, ResetPeriod.OneDay);
        BatchClaim memory claim = _signedClaim(NONCE, expires, 60e6);
        claim.claims[0].portions[0].claimant = uint256(bytes32(unknownTag)) | uint160(recipient);
        vm.prank(arbiter);
        vm.expectRevert(abi.encodeWithSelector(IResourceLock.NoAllocatorRegistered.selector, uint96(77)));
        lock.batchClaim(claim);
    }

    function test_batchClaim_splitsPortionsAndLeavesTheRest() public {
        BatchClaim memory claim = _signedClaim(NONCE, expires, 60e6);
        address second = makeAddr("second");
        Component[] memory portions = new Component[](2);
        portions[0] = Component({claimant: uint160(recipient), amount: 30e6});
        portions[1] = Component({claimant: uint160(second), amount: 20e6});
        claim.claims[0].portions = portions;
        vm.prank(arbiter);
        lock.batchClaim(claim);
        assertEq(token.balanceOf(recipient), 30e6);
        assertEq(token.balanceOf(second), 20e6);
        assertEq(lock.balanceOf(sponsor, lockId), 50e6, "unclaimed part of the allocation stays locked");
    }

    function test_batchClaim_severalLocksOfOneAllocator() public {
        MintableToken other = new MintableToken("DAI");
        other.mint(sponsor, 5e18);
        vm.startPrank(sponsor);
        other.approve(address(lock), 5e18);
        uint256 otherId = lock.depositERC20(address(other), lockTag, 5e18, sponsor);
        vm.stopPrank();

        uint256[2][] memory idsAndAmounts = new uint256[2][](2);
        idsAndAmounts[0] = [lockId, 10e6];
        idsAndAmounts[1] = [otherId, 5e18];
        bytes memory signature = _sign(sponsorKey, _claimHash(arbiter, sponsor, NONCE, expires, idsAndAmounts, 7));
        BatchClaim memory claim = _batchClaim(signature, NONCE, expires, idsAndAmounts, 7, uint160(recipient));
        claim.sponsor = sponsor;
        vm.prank(arbiter);
        lock.batchClaim(claim);
        assertEq(token.balanceOf(recipient), 10e6);
        assertEq(other.balanceOf(recipient), 5e18);
    }

    function test_batchClaim_withdrawsNativeCoin() public {
        vm.deal(sponsor, 1 ether);
        vm.prank(sponsor);
        uint256 nativeId = lock.depositNative{value: 1 ether}(lockTag, sponsor);
        uint256[2][] memory idsAndAmounts = _single(nativeId, 0.25 ether);
        bytes memory signature = _sign(sponsorKey, _claimHash(arbiter, sponsor, NONCE, expires, idsAndAmounts, 7));
        BatchClaim memory claim = _batchClaim(signature, NONCE, expires, idsAndAmounts, 7, uint160(recipient));
        claim.sponsor = sponsor;
        vm.prank(arbiter);
        lock.batchClaim(claim);
        assertEq(recipient.balance, 0.25 ether);
        assertEq(address(lock).balance, 0.75 ether);
    }

    function test_batchClaim_revertsWhenNativeRecipientRefuses() public {
        vm.deal(sponsor, 1 ether);
        vm.prank(sponsor);
        uint256 nativeId = lock.depositNative{value: 1 ether}(lockTag, sponsor);
        NativeRefuser refuser = new NativeRefuser();
        uint256[2][] memory idsAndAmounts = _single(nativeId, 1 ether);
        bytes memory signature = _sign(sponsorKey, _claimHash(arbiter, sponsor, NONCE, expires, idsAndAmounts, 7));
        BatchClaim memory claim = _batchClaim(signature, NONCE, expires, idsAndAmounts, 7, uint160(address(refuser)));
        claim.sponsor = sponsor;
        vm.prank(arbiter);
        vm.expectRevert(IResourceLock.NativeTransferFailed.selector);
        lock.batchClaim(claim);
        assertFalse(lock.hasConsumedAllocatorNonce(NONCE, address(allocator)), "a failed claim consumes nothing");
    }

    function test_batchClaim_withoutWitness() public {
        bytes32 typehash = keccak256(
            "BatchCompact(address arbiter,address sponsor,uint256 nonce,uint256 expires,Lock[] commitments)Lock(bytes12 lockTag,address token,uint256 amount)"
        );
        uint256[2][] memory idsAndAmounts = _single(lockId, 1e6);
        bytes32 claimHash =
            keccak256(abi.encode(typehash, arbiter, sponsor, NONCE, expires, _commitmentsHash(idsAndAmounts)));
        BatchClaim memory claim =
            _batchClaim(_sign(sponsorKey, claimHash), NONCE, expires, idsAndAmounts, 0, uint160(recipient));
        claim.sponsor = sponsor;
        claim.witness = bytes32(0);
        claim.witnessTypestring = "";
        vm.prank(arbiter);
        assertEq(lock.batchClaim(claim), claimHash);
    }

    function test_batchClaim_acceptsEip2098CompactSignature() public {
        uint256[2][] memory idsAndAmounts = _single(lockId, 1e6);
        bytes32 claimHash = _claimHash(arbiter, sponsor, NONCE, expires, idsAndAmounts, 7);
        bytes32 digest = keccak256(abi.encodePacked("\x19\x01", lock.DOMAIN_SEPARATOR(), claimHash));
        (bytes32 r, bytes32 vs) = vm.signCompact(sponsorKey, digest);
        BatchClaim memory claim =
            _batchClaim(abi.encodePacked(r, vs), NONCE, expires, idsAndAmounts, 7, uint160(recipient));
        claim.sponsor = sponsor;
        vm.prank(arbiter);
        lock.batchClaim(claim);
        assertEq(token.balanceOf(recipient), 1e6);
    }

    function test_batchClaim_smartAccountSponsorViaErc1271() public {
        (address owner, uint256 ownerKey) = makeAddrAndKey("account-owner");
        OwnedSmartAccount account = new OwnedSmartAccount(owner);
        _deposit(address(account), 10e6);
        uint256[2][] memory idsAndAmounts = _single(lockId, 10e6);
        bytes32 claimHash = _claimHash(arbiter, address(account), NONCE, expires, idsAndAmounts, 7);
        BatchClaim memory claim =
            _batchClaim(_sign(ownerKey, claimHash), NONCE, expires, idsAndAmounts, 7, uint160(recipient));
        claim.sponsor = address(account);
        vm.prank(arbiter);
        lock.batchClaim(claim);
        assertEq(token.balanceOf(recipient), 10e6);

        // A signature by anyone else is refused by the account.
        claim.nonce = NONCE + 1;
        claim.sponsorSignature =
            _sign(sponsorKey, _claimHash(arbiter, address(account), NONCE + 1, expires, idsAndAmounts, 7));
        vm.prank(arbiter);
        vm.expectRevert(IResourceLock.InvalidSignature.selector);
        lock.batchClaim(claim);
    }

    function test_batchClaim_sponsorActingAsArbiterNeedsNoSignature() public {
        BatchClaim memory claim = _signedClaim(NONCE, expires, 5e6);
        claim.sponsorSignature = "";
        vm.prank(sponsor);
        lock.batchClaim(claim);
        assertEq(token.balanceOf(recipient), 5e6);
    }

    function test_batchClaim_passesClaimToAllocator() public {
        ScriptedAllocator scripted = new ScriptedAllocator();
        uint96 scriptedId = lock.__registerAllocator(address(scripted), "");
        bytes12 tag = LockIdLib.toLockTag(scriptedId, Scope.Multichain, ResetPeriod.OneMinute);
        token.mint(sponsor, 9);
        vm.startPrank(sponsor);
        token.approve(address(lock), 9);
        uint256 id = lock.depositERC20(address(token), tag, 9, sponsor);
        vm.stopPrank();

        uint256[2][] memory idsAndAmounts = _single(id, 9);
        bytes32 claimHash = _claimHash(arbiter, sponsor, NONCE, expires, idsAndAmounts, 7);
        BatchClaim memory claim =
            _batchClaim(_sign(sponsorKey, claimHash), NONCE, expires, idsAndAmounts, 7, uint160(recipient));
        claim.sponsor = sponsor;
        claim.allocatorData = hex"c0ffee";
        vm.prank(arbiter);
        lock.batchClaim(claim);

        assertEq(scripted.lastClaimHash(), claimHash);
        assertEq(scripted.lastArbiter(), arbiter);
        assertEq(scripted.lastSponsor(), sponsor);
        assertEq(scripted.lastNonce(), NONCE);
        assertEq(scripted.lastExpires(), expires);
        assertEq(scripted.lastAllocatorData(), hex"c0ffee");
        uint256[2][] memory seen = scripted.lastIdsAndAmounts();
        assertEq(seen.length, 1);
        assertEq(seen[0][0], id);
        assertEq(seen[0][1], 9);
        assertTrue(lock.hasConsumedAllocatorNonce(NONCE, address(scripted)));
        assertFalse(lock.hasConsumedAllocatorNonce(NONCE, address(allocator)), "nonces are per allocator");
    }

    // --- expiry: a claim needs now < expires --- //

    function test_batchClaim_expiryEdge_oneSecondBefore() public {
        BatchClaim memory claim = _signedClaim(NONCE, expires, 1e6);
        vm.warp(expires - 1);
        vm.prank(arbiter);
        lock.batchClaim(claim);
        assertEq(token.balanceOf(recipient), 1e6);
    }

    function test_batchClaim_expiryEdge_atExpiry() public {
        BatchClaim memory claim = _signedClaim(NONCE, expires, 1e6);
        vm.warp(expires);
        vm.prank(arbiter);
        vm.expectRevert(abi.encodeWithSelector(IResourceLock.Expired.selector, expires));
        lock.batchClaim(claim);
    }

    function test_batchClaim_expiryEdge_oneSecondAfter() public {
        BatchClaim memory claim = _signedClaim(NONCE, expires, 1e6);
        vm.warp(expires + 1);
        vm.prank(arbiter);
        vm.expectRevert(abi.encodeWithSelector(IResourceLock.Expired.selector, expires));
        lock.batchClaim(claim);
    }

    // --- replay and cancellation --- //

    function test_batchClaim_replayReverts() public {
        BatchClaim memory claim = _signedClaim(NONCE, expires, 10e6);
        vm.prank(arbiter);
        lock.batchClaim(claim);
        vm.prank(arbiter);
        vm.expectRevert(abi.encodeWithSelector(IResourceLock.InvalidNonce.selector, address(allocator), NONCE));
        lock.batchClaim(claim);
        assertEq(token.balanceOf(recipient), 10e6, "paid once");
    }

    function test_batchClaim_sameNonceWithOtherAmountReverts() public {
        vm.prank(arbiter);
        lock.batchClaim(_signedClaim(NONCE, expires, 10e6));
        BatchClaim memory second = _signedClaim(NONCE, expires, 20e6);
        vm.prank(arbiter);
        vm.expectRevert(abi.encodeWithSelector(IResourceLock.InvalidNonce.selector, address(allocator), NONCE));
        lock.batchClaim(second);
    }

    function test_consume_cancelsCompact() public {
        uint256[] memory nonces = new uint256[](1);
        nonces[0] = NONCE;
        vm.expectEmit(address(lock));
        emit IResourceLock.NonceConsumedDirectly(address(allocator), NONCE);
        vm.prank(address(allocator));
        assertTrue(lock.consume(nonces));
        assertTrue(lock.hasConsumedAllocatorNonce(NONCE, address(allocator)));

        BatchClaim memory claim = _signedClaim(NONCE, expires, 10e6);
        vm.prank(arbiter);
        vm.expectRevert(abi.encodeWithSelector(IResourceLock.InvalidNonce.selector, address(allocator), NONCE));
        lock.batchClaim(claim);
    }

    function test_consume_revertsOnConsumedNonce() public {
        uint256[] memory nonces = new uint256[](2);
        nonces[0] = 1;
        nonces[1] = 1;
        vm.expectRevert(abi.encodeWithSelector(IResourceLock.InvalidNonce.selector, address(this), 1));
        lock.consume(nonces);
    }

    // --- signature binding --- //

    function test_batchClaim_otherArbiterReverts() public {
        BatchClaim memory claim = _signedClaim(NONCE, expires, 10e6);
        vm.prank(makeAddr("impostor"));
        vm.expectRevert(IResourceLock.InvalidSignature.selector);
        lock.batchClaim(claim);
    }

    function test_batchClaim_wrongKeyReverts() public {
        BatchClaim memory claim = _signedClaim(NONCE, expires, 10e6);
        (, uint256 otherKey) = makeAddrAndKey("mallory");
        claim.sponsorSignature = _sign(otherKey, _claimHash(arbiter, sponsor, NONCE, expires, _single(lockId, 10e6), 7));
        vm.prank(arbiter);
        vm.expectRevert(IResourceLock.InvalidSignature.selector);
        lock.batchClaim(claim);
    }

    function test_batchClaim_tamperedSignatureReverts() public {
        BatchClaim memory claim = _signedClaim(NONCE, expires, 10e6);
        claim.sponsorSignature[10] = bytes1(uint8(claim.sponsorSignature[10]) ^ 0x01);
        vm.prank(arbiter);
        vm.expectRevert(IResourceLock.InvalidSignature.selector);
        lock.batchClaim(claim);
    }

    function test_batchClaim_emptyOrShortSignatureReverts() public {
        BatchClaim memory claim = _signedClaim(NONCE, expires, 10e6);
        claim.sponsorSignature = "";
        vm.prank(arbiter);
        vm.expectRevert(IResourceLock.InvalidSignature.selector);
        lock.batchClaim(claim);
        claim.sponsorSignature = new bytes(30);
        vm.prank(arbiter);
        vm.expectRevert(IResourceLock.InvalidSignature.selector);
        lock.batchClaim(claim);
    }

    function test_batchClaim_signatureFromAnotherChainReverts() public {
        BatchClaim memory claim = _signedClaim(NONCE, expires, 10e6);
        vm.chainId(31_338);
        vm.prank(arbiter);
        vm.expectRevert(IResourceLock.InvalidSignature.selector);
        lock.batchClaim(claim);
    }

    /// @notice Any change of a signed field (amount, nonce, expires, witness, typestring, id, sponsor) breaks it.
    function testFuzz_batchClaim_signatureBindsEveryField(uint8 field, uint256 delta) public {
        BatchClaim memory claim = _signedClaim(NONCE, expires, 10e6);
        delta = bound(delta, 1, 1e6);
        field = uint8(bound(field, 0, 6));
        if (field == 0) claim.claims[0].allocatedAmount += delta;
        else if (field == 1) claim.nonce += delta;
        else if (field == 2) claim.expires += delta;
        else if (field == 3) claim.witness = bytes32(uint256(claim.witness) ^ delta);
        else if (field == 4) claim.witnessTypestring = "uint256 valuf";
        else if (field == 5) claim.claims[0].id ^= 1 << 252; // other reset period, same allocator
        else claim.sponsor = makeAddr("someone-else");
        vm.prank(arbiter);
        vm.expectRevert(IResourceLock.InvalidSignature.selector);
        lock.batchClaim(claim);
        assertEq(token.balanceOf(recipient), 0);
    }

    // --- structural reverts --- //

    function test_batchClaim_emptyClaimsRevert() public {
        BatchClaim memory claim = _signedClaim(NONCE, expires, 10e6);
        claim.claims = new BatchClaimComponent[](0);
        vm.prank(arbiter);
        vm.expectRevert(IResourceLock.InvalidBatchAllocation.selector);
        lock.batchClaim(claim);
    }

    function test_batchClaim_mixedAllocatorsRevert() public {
        AlwaysOkAllocator other = new AlwaysOkAllocator(address(lock));
        uint256[2][] memory idsAndAmounts = new uint256[2][](2);
        idsAndAmounts[0] = [lockId, 1];
        idsAndAmounts[1] = [LockIdLib.toId(other.lockTag(Scope.Multichain, ResetPeriod.OneDay), address(token)), 1];
        bytes memory signature = _sign(sponsorKey, _claimHash(arbiter, sponsor, NONCE, expires, idsAndAmounts, 7));
        BatchClaim memory claim = _batchClaim(signature, NONCE, expires, idsAndAmounts, 7, uint160(recipient));
        claim.sponsor = sponsor;
        vm.prank(arbiter);
        vm.expectRevert(IResourceLock.InconsistentAllocators.selector);
        lock.batchClaim(claim);
    }

    function test_batchClaim_unregisteredAllocatorReverts() public {
        uint256 id = LockIdLib.toId(LockIdLib.toLockTag(5, Scope.Multichain, ResetPeriod.OneDay), address(token));
        uint256[2][] memory idsAndAmounts = _single(id, 1);
        bytes memory signature = _sign(sponsorKey, _claimHash(arbiter, sponsor, NONCE, expires, idsAndAmounts, 7));
        BatchClaim memory claim = _batchClaim(signature, NONCE, expires, idsAndAmounts, 7, uint160(recipient));
        claim.sponsor = sponsor;
        vm.prank(arbiter);
        vm.expectRevert(abi.encodeWithSelector(IResourceLock.NoAllocatorRegistered.selector, uint96(5)));
        lock.batchClaim(claim);
    }

    function test_batchClaim_portionsAboveAllocationRevert() public {
        BatchClaim memory claim = _signedClaim(NONCE, expires, 10e6);
        claim.claims[0].portions[0].amount = 10e6 + 1;
        vm.prank(arbiter);
        vm.expectRevert(abi.encodeWithSelector(IResourceLock.AllocatedAmountExceeded.selector, 10e6, 10e6 + 1));
        lock.batchClaim(claim);
    }

    function test_batchClaim_allocatorRefusalReverts() public {
        ScriptedAllocator scripted = new ScriptedAllocator();
        uint96 scriptedId = lock.__registerAllocator(address(scripted), "");
        scripted.setRefusals(true, false);
        uint256 id = LockIdLib.toId(LockIdLib.toLockTag(scriptedId, Scope.Multichain, ResetPeriod.OneDay), address(token));
        uint256[2][] memory idsAndAmounts = _single(id, 1);
        bytes memory signature = _sign(sponsorKey, _claimHash(arbiter, sponsor, NONCE, expires, idsAndAmounts, 7));
        BatchClaim memory claim = _batchClaim(signature, NONCE, expires, idsAndAmounts, 7, uint160(recipient));
        claim.sponsor = sponsor;
        vm.prank(arbiter);
        vm.expectRevert(abi.encodeWithSelector(IResourceLock.InvalidAllocation.selector, address(scripted)));
        lock.batchClaim(claim);
    }

    function test_batchClaim_moreThanTheSponsorHoldsReverts() public {
        BatchClaim memory claim = _signedClaim(NONCE, expires, 100e6 + 1);
        vm.prank(arbiter);
        vm.expectRevert(
            abi.encodeWithSelector(ERC6909.ERC6909InsufficientBalance.selector, sponsor, 100e6, 100e6 + 1, lockId)
        );
        lock.batchClaim(claim);
    }
}
