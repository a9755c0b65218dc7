// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {IERC20Errors} from "@openzeppelin/contracts/interfaces/draft-IERC6093.sol";
import {IERC6909} from "@openzeppelin/contracts/interfaces/draft-IERC6909.sol";

import {IResourceLock} from "../../src/lock/interfaces/IResourceLock.sol";
import {AlwaysOkAllocator} from "../../src/lock/AlwaysOkAllocator.sol";
import {LockIdLib} from "../../src/lock/libraries/LockIdLib.sol";
import {ResetPeriod, Scope} from "../../src/lock/types/LockTypes.sol";
import {LockTestBase} from "./LockTestBase.sol";
import {FeeOnTransferToken, NoopToken} from "./helpers/TestTokens.sol";
import {ScriptedAllocator} from "./helpers/TestAllocators.sol";

/// @notice Deposits, allocator registration and lock views.
contract ResourceLockDepositTest is LockTestBase {
    event AllocatorRegistered(uint96 allocatorId, address allocator);
    event Transfer(address caller, address indexed sender, address indexed receiver, uint256 indexed id, uint256 amount);

    // --- depositERC20 --- //

    function test_depositERC20_mintsLockBalance() public {
        token.mint(sponsor, 100e6);
        vm.startPrank(sponsor);
        token.approve(address(lock), 100e6);
        vm.expectEmit(address(lock));
        emit Transfer(sponsor, address(0), recipient, lockId, 60e6);
        uint256 id = lock.depositERC20(address(token), lockTag, 60e6, recipient);
        vm.stopPrank();

        assertEq(id, lockId);
        assertEq(lock.balanceOf(recipient, id), 60e6);
        assertEq(token.balanceOf(address(lock)), 60e6);
        assertEq(token.balanceOf(sponsor), 40e6);
    }

    function test_depositERC20_zeroRecipientCreditsCaller() public {
        token.mint(sponsor, 5);
        vm.startPrank(sponsor);
        token.approve(address(lock), 5);
        uint256 id = lock.depositERC20(address(token), lockTag, 5, address(0));
        vm.stopPrank();
        assertEq(lock.balanceOf(sponsor, id), 5);
    }

    function test_depositERC20_revertsOnNativeTokenAddress() public {
        vm.expectRevert(abi.encodeWithSelector(IResourceLock.InvalidToken.selector, address(0)));
        lock.depositERC20(address(0), lockTag, 1, sponsor);
    }

    function test_depositERC20_revertsOnUnregisteredAllocator() public {
        bytes12 unknownTag = LockIdLib.toLockTag(12345, Scope.Multichain, ResetPeriod.OneDay);
        token.mint(sponsor, 1);
        vm.startPrank(sponsor);
        token.approve(address(lock), 1);
        vm.expectRevert(abi.encodeWithSelector(IResourceLock.NoAllocatorRegistered.selector, uint96(12345)));
        lock.depositERC20(address(token), unknownTag, 1, sponsor);
        vm.stopPrank();
    }

    function test_depositERC20_revertsWithoutAllowance() public {
        token.mint(sponsor, 10);
        vm.prank(sponsor);
        vm.expectRevert(
            abi.encodeWithSelector(IERC20Errors.ERC20InsufficientAllowance.selector, address(lock), 0, 10)
        );
        lock.depositERC20(address(token), lockTag, 10, sponsor);
    }

    function test_depositERC20_mintsOnlyWhatArrives() public {
        FeeOnTransferToken fee = new FeeOnTransferToken();
        fee.mint(sponsor, 1000);
        vm.startPrank(sponsor);
        fee.approve(address(lock), 1000);
        uint256 id = lock.depositERC20(address(fee), lockTag, 1000, sponsor);
        vm.stopPrank();
        assertEq(lock.balanceOf(sponsor, id), 990);
        assertEq(fee.balanceOf(address(lock)), 990);
    }

    function test_depositERC20_revertsWhenNothingArrives() public {
        NoopToken noop = new NoopToken();
        vm.expectRevert(IResourceLock.InvalidDepositBalanceChange.selector);
        lock.depositERC20(address(noop), lockTag, 1000, sponsor);
    }

    // --- depositNative --- //

    function test_depositNative_mintsLockBalance() public {
        vm.deal(sponsor, 1 ether);
        vm.prank(sponsor);
        uint256 id = lock.depositNative{value: 0.4 ether}(lockTag, address(0));
        assertEq(id, uint256(bytes32(lockTag)));
        assertEq(lock.balanceOf(sponsor, id), 0.4 ether);
        assertEq(address(lock).balance, 0.4 ether);
    }

    function test_depositNative_revertsOnZeroValue() public {
        vm.expectRevert(IResourceLock.InvalidDepositBalanceChange.selector);
        lock.depositNative(lockTag, sponsor);
    }

    function test_depositNative_revertsOnUnregisteredAllocator() public {
        vm.deal(sponsor, 1);
        vm.prank(sponsor);
        vm.expectRevert(abi.encodeWithSelector(IResourceLock.NoAllocatorRegistered.selector, uint96(7)));
        lock.depositNative{value: 1}(LockIdLib.toLockTag(7, Scope.Multichain, ResetPeriod.OneDay), sponsor);
    }

    function test_lockRefusesStrayNativeCoin() public {
        vm.deal(sponsor, 1);
        vm.prank(sponsor);
        (bool ok,) = address(lock).call{value: 1}("");
        assertFalse(ok);
    }

    // --- __registerAllocator --- //

    function test_registerAllocator_selfRegistrationByAnAccount() public {
        address eoa = makeAddr("eoa-allocator");
        uint96 expectedId = LockIdLib.allocatorIdFor(eoa);
        vm.expectEmit(address(lock));
        emit AllocatorRegistered(expectedId, eoa);
        vm.prank(eoa);
        uint96 id = lock.__registerAllocator(eoa, "");
        assertEq(id, expectedId);
        (, address registered,,,) = lock.getLockDetails(LockIdLib.toId(LockIdLib.toLockTag(id, Scope.Multichain, ResetPeriod.OneSecond), address(token)));
        assertEq(registered, eoa);
    }

    function test_registerAllocator_anyoneMayRegisterAContract() public {
        ScriptedAllocator scripted = new ScriptedAllocator();
        vm.prank(makeAddr("stranger"));
        uint96 id = lock.__registerAllocator(address(scripted), "");
        assertEq(id, LockIdLib.allocatorIdFor(address(scripted)));
    }

    function test_registerAllocator_create2Proof() public {
        address factory = makeAddr("factory");
        bytes32 salt = keccak256("salt");
        bytes32 initCodeHash = keccak256("init code");
        bytes memory proof = abi.encodePacked(bytes1(0xff), factory, salt, initCodeHash);
        address predicted = address(uint160(uint256(keccak256(proof))));
        uint96 id = lock.__registerAllocator(predicted, proof);
        assertEq(id, LockIdLib.allocatorIdFor(predicted));
    }

    function test_registerAllocator_revertsWithoutAnyProof() public {
        address eoa = makeAddr("eoa-allocator");
        vm.expectRevert(abi.encodeWithSelector(IResourceLock.InvalidRegistrationProof.selector, eoa));
        lock.__registerAllocator(eoa, "");
    }

    function test_registerAllocator_revertsOnWrongCreate2Proof() public {
        bytes memory proof = abi.encodePacked(bytes1(0xff), makeAddr("factory"), bytes32(0), bytes32(0));
        address other = makeAddr("other");
        vm.expectRevert(abi.encodeWithSelector(IResourceLock.InvalidRegistrationProof.selector, other));
        lock.__registerAllocator(other, proof);
        // Right address but wrong prefix byte.
        bytes memory badPrefix = abi.encodePacked(bytes1(0xfe), makeAddr("factory"), bytes32(0), bytes32(0));
        address predicted = address(uint160(uint256(keccak256(badPrefix))));
        vm.expectRevert(abi.encodeWithSelector(IResourceLock.InvalidRegistrationProof.selector, predicted));
        lock.__registerAllocator(predicted, badPrefix);
    }

    function test_registerAllocator_revertsWhenAlreadyRegistered() public {
        uint96 id = allocator.ALLOCATOR_ID();
        vm.expectRevert(
            abi.encodeWithSelector(IResourceLock.AllocatorAlreadyRegistered.selector, id, address(allocator))
        );
        lock.__registerAllocator(address(allocator), "");
    }

    function test_alwaysOkAllocator_registersItselfAndBuildsTags() public {
        AlwaysOkAllocator second = new AlwaysOkAllocator(address(lock));
        assertEq(second.ALLOCATOR_ID(), LockIdLib.allocatorIdFor(address(second)));
        assertEq(address(second.LOCK()), address(lock));
        bytes12 tag = second.lockTag(Scope.ChainSpecific, ResetPeriod.OneDay);
        assertEq(tag, LockIdLib.toLockTag(second.ALLOCATOR_ID(), Scope.ChainSpecific, ResetPeriod.OneDay));
        uint256[2][] memory none;
        assertTrue(second.isClaimAuthorized(0, address(0), address(0), 0, 0, none, ""));
    }

    // --- views --- //

    function test_getLockDetails() public view {
        (address t, address a, ResetPeriod period, Scope scope, bytes12 tag) = lock.getLockDetails(lockId);
        assertEq(t, address(token));
        assertEq(a, address(allocator));
        assertEq(uint8(period), uint8(ResetPeriod.TenMinutes));
        assertEq(uint8(scope), uint8(Scope.Multichain));
        assertEq(tag, lockTag);
    }

    function test_getLockDetails_revertsForUnknownAllocator() public {
        vm.expectRevert(abi.encodeWithSelector(IResourceLock.NoAllocatorRegistered.selector, uint96(9)));
        lock.getLockDetails(LockIdLib.toId(LockIdLib.toLockTag(9, Scope.Multichain, ResetPeriod.OneDay), address(token)));
    }

    function test_domainSeparatorIsTheCompacts() public {
        assertEq(lock.DOMAIN_SEPARATOR(), _domainSeparator(address(lock)));
        (, string memory name, string memory version, uint256 chainId, address verifying,,) = lock.eip712Domain();
        assertEq(name, "The Compact");
        assertEq(version, "1");
        assertEq(chainId, block.chainid);
        assertEq(verifying, address(lock));
        // A fork to another chain id gets its own separator.
        vm.chainId(31_338);
        assertEq(lock.DOMAIN_SEPARATOR(), _domainSeparator(address(lock)));
    }

    function test_supportsErc6909AndErc165() public view {
        assertTrue(lock.supportsInterface(type(IERC6909).interfaceId));
        assertTrue(lock.supportsInterface(0x01ffc9a7));
        assertFalse(lock.supportsInterface(0xffffffff));
    }
}
