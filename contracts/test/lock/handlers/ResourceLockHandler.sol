// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {Test} from "forge-std/Test.sol";

import {ResourceLock} from "../../../src/lock/ResourceLock.sol";
import {BatchClaim, BatchClaimComponent, Component} from "../../../src/lock/types/LockTypes.sol";
import {FeeOnTransferToken, MintableToken} from "../helpers/TestTokens.sol";

/// @notice Drives the lock through deposits, transfers, signed claims (as their arbiter), replays of paid
/// claims and forced withdrawals, and keeps the ghost figures the invariants check.
contract ResourceLockHandler is Test {
    bytes32 internal constant BATCH_COMPACT_TYPEHASH = keccak256(
        "BatchCompact(address arbiter,address sponsor,uint256 nonce,uint256 expires,Lock[] commitments)Lock(bytes12 lockTag,address token,uint256 amount)"
    );
    bytes32 internal constant LOCK_TYPEHASH = keccak256("Lock(bytes12 lockTag,address token,uint256 amount)");

    ResourceLock public immutable lock;
    address[] public tokens; // address(0) is the native coin
    bytes12[] public lockTags;
    address[] public actors;
    uint256[] internal _keys;

    /// @dev abi-encoded BatchClaim payloads (legacy codegen cannot copy nested structs to storage).
    bytes[] internal _paidClaims;
    uint256 public nextNonce = 1;
    uint256 public claimsPaid;
    uint256 public replaysPaid;
    mapping(uint256 nonce => uint256 count) public payoutsPerNonce;
    uint256 public maxPayoutsPerNonce;

    constructor(ResourceLock lock_, bytes12[] memory lockTags_) {
        lock = lock_;
        lockTags = lockTags_;
        tokens.push(address(new MintableToken("USDT")));
        tokens.push(address(new FeeOnTransferToken()));
        tokens.push(address(0));
        for (uint256 i; i < 3; ++i) {
            (address actor, uint256 key) = makeAddrAndKey(string.concat("actor", vm.toString(i)));
            actors.push(actor);
            _keys.push(key);
        }
    }

    // --- views for the invariants --- //

    function tokenCount() external view returns (uint256) {
        return tokens.length;
    }

    function lockTagCount() external view returns (uint256) {
        return lockTags.length;
    }

    function actorCount() external view returns (uint256) {
        return actors.length;
    }

    function idOf(uint256 tagIndex, uint256 tokenIndex) public view returns (uint256) {
        return uint256(bytes32(lockTags[tagIndex])) | uint160(tokens[tokenIndex]);
    }

    // --- actions --- //

    function deposit(uint256 actorSeed, uint256 tagSeed, uint256 tokenSeed, uint256 amount) external {
        address actor = actors[actorSeed % actors.length];
        bytes12 tag = lockTags[tagSeed % lockTags.length];
        address token = tokens[tokenSeed % tokens.length];
        amount = _bound(amount, 1, 1e24);
        if (token == address(0)) {
            vm.deal(actor, amount);
            vm.prank(actor);
            lock.depositNative{value: amount}(tag, actor);
            return;
        }
        MintableToken(token).mint(actor, amount);
        vm.startPrank(actor);
        MintableToken(token).approve(address(lock), amount);
        lock.depositERC20(token, tag, amount, actor);
        vm.stopPrank();
    }

    function transfer(uint256 fromSeed, uint256 toSeed, uint256 tagSeed, uint256 tokenSeed, uint256 amount) external {
        address from = actors[fromSeed % actors.length];
        address to = actors[toSeed % actors.length];
        uint256 id = idOf(tagSeed % lockTags.length, tokenSeed % tokens.length);
        amount = _bound(amount, 0, lock.balanceOf(from, id));
        vm.prank(from);
        lock.transfer(to, id, amount);
    }

    /// @notice A sponsor signs a compact naming this handler as arbiter; the handler claims it, either as a
    /// withdrawal to a fresh address or as an ERC-6909 transfer to another actor.
    function claim(uint256 sponsorSeed, uint256 tagSeed, uint256 tokenSeed, uint256 amount, bool withdraw) external {
        uint256 sponsorIndex = sponsorSeed % actors.length;
        uint256 id = idOf(tagSeed % lockTags.length, tokenSeed % tokens.length);
        amount = _bound(amount, 0, lock.balanceOf(actors[sponsorIndex], id));
        uint256 claimant = withdraw
            ? uint160(makeAddr("claim-recipient"))
            : (id & ~uint256(type(uint160).max)) | uint160(actors[(sponsorIndex + 1) % actors.length]);
        BatchClaim memory payload = _signedPayload(sponsorIndex, id, amount, claimant);

        lock.batchClaim(payload);
        _paidClaims.push(abi.encode(payload));
        ++claimsPaid;
        uint256 count = ++payoutsPerNonce[payload.nonce];
        if (count > maxPayoutsPerNonce) maxPayoutsPerNonce = count;
    }

    /// @notice Presents an already paid claim again; the lock must refuse it.
    function replay(uint256 claimSeed) external {
        if (_paidClaims.length == 0) return;
        BatchClaim memory payload = abi.decode(_paidClaims[claimSeed % _paidClaims.length], (BatchClaim));
        try lock.batchClaim(payload) {
            ++replaysPaid;
            uint256 count = ++payoutsPerNonce[payload.nonce];
            if (count > maxPayoutsPerNonce) maxPayoutsPerNonce = count;
        } catch {}
    }

    function forcedWithdrawal(uint256 actorSeed, uint256 tagSeed, uint256 tokenSeed, uint256 amount) external {
        address actor = actors[actorSeed % actors.length];
        uint256 id = idOf(tagSeed % lockTags.length, tokenSeed % tokens.length);
        amount = _bound(amount, 0, lock.balanceOf(actor, id));
        vm.startPrank(actor);
        uint256 withdrawableAt = lock.enableForcedWithdrawal(id);
        vm.warp(withdrawableAt);
        lock.forcedWithdrawal(id, makeAddr("withdrawal-recipient"), amount);
        vm.stopPrank();
    }

    function warp(uint256 seconds_) external {
        vm.warp(block.timestamp + _bound(seconds_, 0, 2 hours));
    }

    // --- helpers --- //

    function _signedPayload(uint256 sponsorIndex, uint256 id, uint256 amount, uint256 claimant)
        internal
        returns (BatchClaim memory payload)
    {
        Component[] memory portions = new Component[](1);
        portions[0] = Component({claimant: claimant, amount: amount});
        payload.sponsor = actors[sponsorIndex];
        payload.nonce = nextNonce++;
        payload.expires = block.timestamp + 1 hours;
        payload.claims = new BatchClaimComponent[](1);
        payload.claims[0] = BatchClaimComponent({id: id, allocatedAmount: amount, portions: portions});
        payload.sponsorSignature =
            _sign(_keys[sponsorIndex], _claimHash(payload.sponsor, id, amount, payload.nonce, payload.expires));
    }

    function _claimHash(address sponsor, uint256 id, uint256 amount, uint256 nonce, uint256 expires)
        internal
        view
        returns (bytes32)
    {
        bytes32 lockHash = keccak256(abi.encode(LOCK_TYPEHASH, bytes12(bytes32(id)), address(uint160(id)), amount));
        return keccak256(
            abi.encode(
                BATCH_COMPACT_TYPEHASH, address(this), sponsor, nonce, expires, keccak256(abi.encodePacked(lockHash))
            )
        );
    }

    function _sign(uint256 key, bytes32 claimHash) internal view returns (bytes memory) {
        bytes32 digest = keccak256(abi.encodePacked("\x19\x01", lock.DOMAIN_SEPARATOR(), claimHash));
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(key, digest);
        return abi.encodePacked(r, s, v);
    }
}
