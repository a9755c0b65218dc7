// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {ERC6909} from "@openzeppelin/contracts/token/ERC6909/draft-ERC6909.sol";

import {MandateOutput, SolveParams, StandardOrder} from "../../src/types/StandardOrder.sol";
import {CompactMandateLib} from "../../src/libraries/CompactMandateLib.sol";
import {OrderHashLib} from "../../src/libraries/OrderHashLib.sol";
import {IInputOracle} from "../../src/interfaces/IInputOracle.sol";
import {InputSettlerBase} from "../../src/input/InputSettlerBase.sol";
import {InputSettlerCompact} from "../../src/input/compact/InputSettlerCompact.sol";
import {IResourceLock} from "../../src/lock/interfaces/IResourceLock.sol";
import {BatchCompactHashLib} from "../../src/lock/libraries/BatchCompactHashLib.sol";
import {CompactTestBase} from "./CompactTestBase.sol";

/// @notice InputSettlerCompact.finalise: every check, in the order a solver meets them, against the real lock,
/// output settler and oracle pair.
contract InputSettlerCompactTest is CompactTestBase {
    event Finalised(bytes32 indexed orderId, bytes32 solver, bytes32 destination);

    // --- hashing agreements --- //

    function test_witnessTypestringRebuildsThePinnedBatchCompactTypehash() public view {
        assertEq(
            keccak256(
                abi.encodePacked(BatchCompactHashLib.WITNESS_TYPE_PREFIX, settler.MANDATE_WITNESS_TYPESTRING(), ")")
            ),
            CompactMandateLib.BATCH_COMPACT_TYPEHASH
        );
        assertEq(CompactMandateLib.BATCH_COMPACT_TYPEHASH, 0x5f094e58b077a941d99d3449bd1be66fd3bc9d23ab9e4c06a8713cabc3e3b634);
    }

    function test_compactClaimHashMatchesTheSignedStructHash() public view {
        StandardOrder memory order = _order();
        assertEq(settler.compactClaimHash(order), _batchCompactHash(order, address(settler)));
        assertEq(CompactMandateLib.mandateHashMemory(order), _mandateHash(order));
    }

    function test_orderIdentifier() public {
        StandardOrder memory order = _order();
        bytes32 orderId = settler.orderIdentifier(order);
        assertEq(orderId, OrderHashLib.orderIdentifierMemory(order, address(settler)));
        vm.chainId(DEST);
        assertTrue(settler.orderIdentifier(order) != orderId, "the chain id is part of the order id");
    }

    function test_constructorStoresTheLock() public view {
        assertEq(address(settler.COMPACT()), address(lock));
    }

    // --- success --- //

    function test_finalise_paysDestination() public {
        StandardOrder memory order = _order();
        bytes memory signatures = _signatures(order);
        SolveParams[] memory solveParams = _fillAll(order);
        bytes32 orderId = settler.orderIdentifier(order);

        vm.expectEmit(address(lock));
        emit IResourceLock.Claim(user, address(allocator), address(settler), settler.compactClaimHash(order), 1);
        vm.expectEmit(address(settler));
        emit Finalised(orderId, _id(solver), _id(destination));
        _finalise(order, signatures, solveParams);

        assertEq(inputToken.balanceOf(destination), 100e6);
        assertEq(lock.balanceOf(user, lockId), 0);
        assertEq(inputToken.balanceOf(address(lock)), 0);
        assertEq(outputToken.balanceOf(user), 99e6, "the taker got the output on the destination");
        assertTrue(lock.hasConsumedAllocatorNonce(order.nonce, address(allocator)));
    }

    // --- compact expiry: the claim needs now < expires --- //

    function _finaliseAt(uint256 time) internal {
        StandardOrder memory order = _order();
        bytes memory signatures = _signatures(order);
        SolveParams[] memory solveParams = _fillAll(order);
        vm.warp(time);
        if (time >= order.expires) {
            vm.expectRevert(abi.encodeWithSelector(IResourceLock.Expired.selector, uint256(order.expires)));
        }
        _finalise(order, signatures, solveParams);
    }

    function test_finalise_expiryEdge_oneSecondBefore() public {
        _finaliseAt(_order().expires - 1);
        assertEq(inputToken.balanceOf(destination), 100e6);
    }

    function test_finalise_expiryEdge_atExpiry() public {
        _finaliseAt(_order().expires);
        assertEq(inputToken.balanceOf(destination), 0);
    }

    function test_finalise_expiryEdge_oneSecondAfter() public {
        _finaliseAt(_order().expires + 1);
        assertEq(inputToken.balanceOf(destination), 0);
    }

    // --- fill deadline: the fill timestamp must be <= fillDeadline --- //

    /// @dev The solver tells the output settler a later deadline than the order's, which the destination
    /// cannot check; the origin rejects the recorded timestamp.
    function _finaliseWithFillAt(uint256 fillTime) internal {
        StandardOrder memory order = _order();
        bytes memory signatures = _signatures(order);
        vm.warp(fillTime);
        SolveParams[] memory solveParams = new SolveParams[](1);
        solveParams[0] = _fillAndRelay(order, 0, uint48(order.fillDeadline + 10));
        if (fillTime > order.fillDeadline) {
            vm.expectRevert(
                abi.encodeWithSelector(
                    InputSettlerBase.FilledTooLate.selector, order.fillDeadline, uint32(fillTime)
                )
            );
        }
        _finalise(order, signatures, solveParams);
    }

    function test_finalise_fillDeadlineEdge_oneSecondBefore() public {
        _finaliseWithFillAt(_order().fillDeadline - 1);
        assertEq(inputToken.balanceOf(destination), 100e6);
    }

    function test_finalise_fillDeadlineEdge_atDeadline() public {
        _finaliseWithFillAt(_order().fillDeadline);
        assertEq(inputToken.balanceOf(destination), 100e6);
    }

    function test_finalise_fillDeadlineEdge_oneSecondAfter() public {
        _finaliseWithFillAt(_order().fillDeadline + 1);
        assertEq(inputToken.balanceOf(destination), 0);
    }

    // --- replay --- //

    function test_finalise_replayReverts() public {
        StandardOrder memory order = _order();
        bytes memory signatures = _signatures(order);
        SolveParams[] memory solveParams = _fillAll(order);
        _finalise(order, signatures, solveParams);
        vm.expectRevert(abi.encodeWithSelector(IResourceLock.InvalidNonce.selector, address(allocator), order.nonce));
        _finalise(order, signatures, solveParams);
        assertEq(inputToken.balanceOf(destination), 100e6, "paid once");
    }

    // --- caller, chain, destination --- //

    function test_finalise_revertsForOtherCaller() public {
        StandardOrder memory order = _order();
        bytes memory signatures = _signatures(order);
        SolveParams[] memory solveParams = _fillAll(order);
        vm.prank(makeAddr("not-the-solver"));
        vm.expectRevert(InputSettlerBase.NotOrderOwner.selector);
        settler.finalise(order, signatures, solveParams, _id(destination), "");
    }

    function test_finalise_revertsOnWrongOriginChain() public {
        StandardOrder memory order = _order();
        order.originChainId = DEST;
        vm.prank(solver);
        vm.expectRevert(abi.encodeWithSelector(InputSettlerBase.WrongChain.selector, DEST, ORIGIN));
        settler.finalise(order, "", new SolveParams[](0), _id(destination), "");
    }

    function test_finalise_revertsOnZeroOrDirtyDestination() public {
        StandardOrder memory order = _order();
        vm.prank(solver);
        vm.expectRevert(InputSettlerBase.NoDestination.selector);
        settler.finalise(order, "", new SolveParams[](0), bytes32(0), "");
        vm.prank(solver);
        vm.expectRevert(InputSettlerBase.NoDestination.selector);
        settler.finalise(order, "", new SolveParams[](0), bytes32(uint256(1) << 160) | _id(destination), "");
    }

    function test_finalise_revertsWithoutSolveParams() public {
        StandardOrder memory order = _order();
        vm.prank(solver);
        vm.expectRevert(InputSettlerBase.InvalidTimestampLength.selector);
        settler.finalise(order, "", new SolveParams[](0), _id(destination), "");
    }

    function test_finalise_revertsWithSolveParamsPerOutputMismatch() public {
        StandardOrder memory order = _order();
        SolveParams[] memory solveParams = _fillAll(order);
        SolveParams[] memory tooMany = new SolveParams[](2);
        tooMany[0] = solveParams[0];
        tooMany[1] = solveParams[0];
        bytes memory signatures = _signatures(order);
        vm.prank(solver);
        vm.expectRevert(InputSettlerBase.InvalidTimestampLength.selector);
        settler.finalise(order, signatures, tooMany, _id(destination), "");
    }

    // --- fill proofs --- //

    function test_finalise_revertsWhenNotFilled() public {
        StandardOrder memory order = _order();
        SolveParams[] memory solveParams = new SolveParams[](1);
        solveParams[0] = SolveParams({timestamp: uint32(block.timestamp), solver: _id(solver)});
        bytes memory signatures = _signatures(order);
        vm.prank(solver);
        vm.expectRevert(IInputOracle.NotProven.selector);
        settler.finalise(order, signatures, solveParams, _id(destination), "");
    }

    function test_finalise_revertsWhenFilledButNotRelayed() public {
        StandardOrder memory order = _order();
        bytes32 orderId = settler.orderIdentifier(order);
        vm.chainId(DEST);
        vm.prank(solver);
        outputSettler.fill(orderId, order.outputs[0], order.fillDeadline, abi.encode(_id(solver)));
        vm.chainId(ORIGIN);
        SolveParams[] memory solveParams = new SolveParams[](1);
        solveParams[0] = SolveParams({timestamp: uint32(block.timestamp), solver: _id(solver)});
        bytes memory signatures = _signatures(order);
        vm.prank(solver);
        vm.expectRevert(IInputOracle.NotProven.selector);
        settler.finalise(order, signatures, solveParams, _id(destination), "");
    }

    function test_finalise_revertsOnWrongTimestamp() public {
        StandardOrder memory order = _order();
        SolveParams[] memory solveParams = _fillAll(order);
        solveParams[0].timestamp -= 1;
        bytes memory signatures = _signatures(order);
        vm.prank(solver);
        vm.expectRevert(IInputOracle.NotProven.selector);
        settler.finalise(order, signatures, solveParams, _id(destination), "");
    }

    function test_finalise_anotherSolverCannotClaimSomeoneElsesFill() public {
        StandardOrder memory order = _order();
        bytes memory signatures = _signatures(order);
        SolveParams[] memory solveParams = _fillAll(order);
        address thief = makeAddr("thief");
        solveParams[0].solver = _id(thief);
        vm.prank(thief);
        vm.expectRevert(IInputOracle.NotProven.selector);
        settler.finalise(order, signatures, solveParams, _id(thief), "");
    }

    // --- signatures --- //

    function test_finalise_revertsOnWrongKey() public {
        StandardOrder memory order = _order();
        (, uint256 otherKey) = makeAddrAndKey("mallory");
        bytes memory signatures = abi.encode(_signCompact(otherKey, order, address(settler)), bytes(""));
        SolveParams[] memory solveParams = _fillAll(order);
        vm.expectRevert(IResourceLock.InvalidSignature.selector);
        _finalise(order, signatures, solveParams);
    }

    function test_finalise_revertsOnTamperedSignature() public {
        StandardOrder memory order = _order();
        bytes memory sponsorSignature = _signCompact(userKey, order, address(settler));
        sponsorSignature[33] = bytes1(uint8(sponsorSignature[33]) ^ 0x80);
        SolveParams[] memory solveParams = _fillAll(order);
        vm.expectRevert(IResourceLock.InvalidSignature.selector);
        _finalise(order, abi.encode(sponsorSignature, bytes("")), solveParams);
    }

    function test_finalise_revertsOnMalformedSignatures() public {
        StandardOrder memory order = _order();
        SolveParams[] memory solveParams = _fillAll(order);
        vm.expectRevert();
        _finalise(order, hex"1234", solveParams);
    }

    /// @notice A compact names its arbiter: another settler on the same lock cannot claim it.
    function test_finalise_signatureForAnotherArbiterReverts() public {
        InputSettlerCompact other = new InputSettlerCompact(address(lock));
        StandardOrder memory order = _order();
        bytes memory signatures = abi.encode(_signCompact(userKey, order, address(other)), bytes(""));
        SolveParams[] memory solveParams = _fillAll(order);
        vm.expectRevert(IResourceLock.InvalidSignature.selector);
        _finalise(order, signatures, solveParams);
    }

    function test_finalise_revertsWhenUserIsTheSettler() public {
        StandardOrder memory order = _order();
        order.user = address(settler);
        SolveParams[] memory solveParams = _fillAll(order);
        vm.expectRevert(InputSettlerCompact.UserCannotBeSettler.selector);
        _finalise(order, abi.encode(bytes(""), bytes("")), solveParams);
    }

    function test_finalise_revertsWhenTakerWithdrewTheLock() public {
        StandardOrder memory order = _order();
        bytes memory signatures = _signatures(order);
        vm.startPrank(user);
        vm.warp(lock.enableForcedWithdrawal(lockId));
        lock.forcedWithdrawal(lockId, user, 1);
        vm.stopPrank();
        SolveParams[] memory solveParams = _fillAll(order);
        // The sandbox allocator guarantees nothing: the claim fails for lack of balance.
        vm.expectRevert(
            abi.encodeWithSelector(ERC6909.ERC6909InsufficientBalance.selector, user, 100e6 - 1, 100e6, lockId)
        );
        _finalise(order, signatures, solveParams);
    }
}
