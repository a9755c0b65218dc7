// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {InputSettlerEscrow} from "../../src/input/escrow/InputSettlerEscrow.sol";
import {TestStablecoin} from "../../src/tokens/TestStablecoin.sol";
import {EscrowHandler} from "./EscrowHandler.sol";
import {EscrowTestBase} from "./EscrowTestBase.sol";

/// @notice Escrow invariants of onchain.md under random lifecycles driven by `EscrowHandler`: solvency per
/// token, one-way status, exclusive terminal states, at most one payout per order, and every outcome as the
/// rules predict. The handler catches every escrow call, so any revert that reaches the fuzzer is a handler
/// bug: fail on it rather than lose coverage silently.
/// forge-config: default.invariant.fail-on-revert = true
contract EscrowInvariantsTest is EscrowTestBase {
    EscrowHandler internal handler;

    function setUp() public override {
        super.setUp();
        handler = new EscrowHandler(escrow, outputOracle, outputSettler, usdc, eurc, destUsdc);
        for (uint256 i; i < 3; ++i) {
            _fundTaker(handler.takers(i));
            // Orders take up to 1e12 per input and stay open for a while: fund for the whole run.
            usdc.mint(handler.takers(i), 1e30);
            eurc.mint(handler.takers(i), 1e30);
            _fundSolver(handler.solvers(i));
            destUsdc.mint(handler.solvers(i), 1e30);
        }

        bytes4[] memory selectors = new bytes4[](7);
        selectors[0] = EscrowHandler.openSelf.selector;
        selectors[1] = EscrowHandler.openWithPermit2.selector;
        selectors[2] = EscrowHandler.openWithErc3009.selector;
        selectors[3] = EscrowHandler.fillAndFinalise.selector;
        selectors[4] = EscrowHandler.refund.selector;
        selectors[5] = EscrowHandler.misbehave.selector;
        selectors[6] = EscrowHandler.warp.selector;
        targetSelector(FuzzSelector({addr: address(handler), selectors: selectors}));
        targetContract(address(handler));
    }

    /// Escrow balance of each token equals the inputs of the orders it reports Deposited (nobody donates
    /// here, so the spec's `>=` holds with equality; a surplus would mean over-collection).
    function invariant_escrowIsSolventPerToken() public view {
        TestStablecoin[2] memory tokens = handler.tokens();
        for (uint256 i; i < tokens.length; ++i) {
            assertEq(tokens[i].balanceOf(address(escrow)), handler.depositedSum(address(tokens[i])));
        }
    }

    function invariant_statusOnlyMovesForward() public view {
        assertFalse(handler.statusRegressed());
    }

    function invariant_eachOrderPaysOutAtMostOnceAndTerminalStatesAreExclusive() public view {
        for (uint256 i; i < handler.orderCount(); ++i) {
            bytes32 orderId = handler.orderIds(i);
            uint256 claims = handler.claims(orderId);
            uint256 refunds = handler.refunds(orderId);
            assertLe(claims + refunds, 1, "paid out twice");
            InputSettlerEscrow.OrderStatus status = escrow.orderStatus(orderId);
            assertEq(claims == 1, status == InputSettlerEscrow.OrderStatus.Claimed, "claim without Claimed");
            assertEq(refunds == 1, status == InputSettlerEscrow.OrderStatus.Refunded, "refund without Refunded");
        }
    }

    function invariant_everyOutcomeFollowsTheRules() public view {
        assertFalse(handler.unexpectedOutcome(), handler.unexpectedReason());
    }

    /// Shows the run did reach every path (a handler that only reverts would pass the rest vacuously).
    function afterInvariant() external view {
        assertGt(handler.orderCount(), 0, "no order opened");
    }
}
