// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {Test} from "forge-std/Test.sol";

import {ResourceLock} from "../../src/lock/ResourceLock.sol";
import {AlwaysOkAllocator} from "../../src/lock/AlwaysOkAllocator.sol";
import {BatchClaim, BatchClaimComponent, Component, ResetPeriod, Scope} from "../../src/lock/types/LockTypes.sol";
import {MintableToken} from "./helpers/TestTokens.sol";

/// @notice Deployment and signing helpers shared by the lock and the compact settler tests.
/// @dev Hashes here are written out independently of the contracts' libraries so that tests can catch them.
abstract contract LockTestBase is Test {
    bytes32 internal constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    bytes32 internal constant TEST_MANDATE_TYPEHASH = keccak256("Mandate(uint256 value)");
    string internal constant TEST_WITNESS_TYPESTRING = "uint256 value";
    bytes32 internal constant TEST_BATCH_COMPACT_TYPEHASH = keccak256(
        "BatchCompact(address arbiter,address sponsor,uint256 nonce,uint256 expires,Lock[] commitments,Mandate mandate)Lock(bytes12 lockTag,address token,uint256 amount)Mandate(uint256 value)"
    );
    bytes32 internal constant LOCK_STRUCT_TYPEHASH = keccak256("Lock(bytes12 lockTag,address token,uint256 amount)");

    ResourceLock internal lock;
    AlwaysOkAllocator internal allocator;
    MintableToken internal token;

    uint256 internal sponsorKey;
    address internal sponsor;
    address internal arbiter;
    address internal recipient;

    bytes12 internal lockTag;
    uint256 internal lockId;

    function setUp() public virtual {
        vm.warp(1_700_000_000);
        lock = new ResourceLock();
        allocator = new AlwaysOkAllocator(address(lock));
        token = new MintableToken("USDT");
        (sponsor, sponsorKey) = makeAddrAndKey("sponsor");
        arbiter = makeAddr("arbiter");
        recipient = makeAddr("recipient");
        lockTag = allocator.lockTag(Scope.Multichain, ResetPeriod.TenMinutes);
        lockId = uint256(bytes32(lockTag)) | uint256(uint160(address(token)));
    }

    function _deposit(address owner, uint256 amount) internal returns (uint256 id) {
        token.mint(owner, amount);
        vm.startPrank(owner);
        token.approve(address(lock), amount);
        id = lock.depositERC20(address(token), lockTag, amount, owner);
        vm.stopPrank();
    }

    function _commitmentsHash(uint256[2][] memory idsAndAmounts) internal pure returns (bytes32) {
        bytes memory packed;
        for (uint256 i; i < idsAndAmounts.length; ++i) {
            uint256 id = idsAndAmounts[i][0];
            packed = abi.encodePacked(
                packed,
                keccak256(abi.encode(LOCK_STRUCT_TYPEHASH, bytes12(bytes32(id)), address(uint160(id)), idsAndAmounts[i][1]))
            );
        }
        return keccak256(packed);
    }

    /// @notice Claim hash of a BatchCompact with the test Mandate(uint256 value).
    function _claimHash(
        address arbiter_,
        address sponsor_,
        uint256 nonce,
        uint256 expires,
        uint256[2][] memory idsAndAmounts,
        uint256 mandateValue
    ) internal pure returns (bytes32) {
        return keccak256(
            abi.encode(
                TEST_BATCH_COMPACT_TYPEHASH,
                arbiter_,
                sponsor_,
                nonce,
                expires,
                _commitmentsHash(idsAndAmounts),
                _testWitness(mandateValue)
            )
        );
    }

    function _testWitness(uint256 mandateValue) internal pure returns (bytes32) {
        return keccak256(abi.encode(TEST_MANDATE_TYPEHASH, mandateValue));
    }

    function _domainSeparator(address verifyingContract) internal view returns (bytes32) {
        return keccak256(
            abi.encode(DOMAIN_TYPEHASH, keccak256("The Compact"), keccak256("1"), block.chainid, verifyingContract)
        );
    }

    function _sign(uint256 key, bytes32 claimHash) internal view returns (bytes memory) {
        bytes32 digest = keccak256(abi.encodePacked("\x19\x01", _domainSeparator(address(lock)), claimHash));
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(key, digest);
        return abi.encodePacked(r, s, v);
    }

    function _single(uint256 id, uint256 amount) internal pure returns (uint256[2][] memory idsAndAmounts) {
        idsAndAmounts = new uint256[2][](1);
        idsAndAmounts[0] = [id, amount];
    }

    /// @notice A claim paying every allocated amount to `claimant` (lockTag ‖ recipient encoding).
    function _batchClaim(
        bytes memory signature,
        uint256 nonce,
        uint256 expires,
        uint256[2][] memory idsAndAmounts,
        uint256 mandateValue,
        uint256 claimant
    ) internal pure returns (BatchClaim memory claim) {
        claim.sponsorSignature = signature;
        claim.nonce = nonce;
        claim.expires = expires;
        claim.witness = _testWitness(mandateValue);
        claim.witnessTypestring = TEST_WITNESS_TYPESTRING;
        claim.claims = new BatchClaimComponent[](idsAndAmounts.length);
        for (uint256 i; i < idsAndAmounts.length; ++i) {
            Component[] memory portions = new Component[](1);
            portions[0] = Component({claimant: claimant, amount: idsAndAmounts[i][1]});
            claim.claims[i] =
                BatchClaimComponent({id: idsAndAmounts[i][0], allocatedAmount: idsAndAmounts[i][1], portions: portions});
        }
    }

    /// @notice A signed claim of `amount` of the default lock for `sponsor`, withdrawn to `recipient`.
    function _signedClaim(uint256 nonce, uint256 expires, uint256 amount) internal view returns (BatchClaim memory claim) {
        uint256[2][] memory idsAndAmounts = _single(lockId, amount);
        bytes memory signature = _sign(sponsorKey, _claimHash(arbiter, sponsor, nonce, expires, idsAndAmounts, 7));
        claim = _batchClaim(signature, nonce, expires, idsAndAmounts, 7, uint256(uint160(recipient)));
        claim.sponsor = sponsor;
    }
}
