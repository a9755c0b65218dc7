// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {DeferredVault} from "../../src/deferred/DeferredVault.sol";
import {TestStablecoin} from "../../src/tokens/TestStablecoin.sol";
import {DeferredVaultHandler} from "./DeferredVaultHandler.sol";
import {DeferredVaultTestBase} from "./DeferredVaultTestBase.sol";

/// @notice The vault's books under random service traffic: the balance on chain equals the sum of credits plus the
/// pending (held) claims, plus only what strangers sent it directly; the vault's own totals match ghost books kept
/// by the handler; every payout left the vault. Every handler call is valid by construction, so a revert that
/// reaches the fuzzer is a vault bug.
/// forge-config: default.invariant.fail-on-revert = true
contract DeferredVaultInvariantTest is DeferredVaultTestBase {
    DeferredVaultHandler internal handler;

    function setUp() public override {
        super.setUp();
        handler = new DeferredVaultHandler(vault, operator, usdc, usdt);
        usdc.transferOwnership(address(handler));
        usdt.transferOwnership(address(handler));
        bytes4[] memory selectors = new bytes4[](6);
        selectors[0] = DeferredVaultHandler.deposit.selector;
        selectors[1] = DeferredVaultHandler.hold.selector;
        selectors[2] = DeferredVaultHandler.release.selector;
        selectors[3] = DeferredVaultHandler.payout.selector;
        selectors[4] = DeferredVaultHandler.withdraw.selector;
        selectors[5] = DeferredVaultHandler.donate.selector;
        targetSelector(FuzzSelector({addr: address(handler), selectors: selectors}));
        targetContract(address(handler));
    }

    function invariant_balanceIsCreditsPlusPendingClaims() public view {
        TestStablecoin[2] memory tokens = handler.tokens();
        for (uint256 i; i < tokens.length; ++i) {
            address token = address(tokens[i]);
            assertEq(
                tokens[i].balanceOf(address(vault)),
                vault.totalCredit(token) + vault.totalHeld(token) + handler.donated(token),
                "balance on chain != credits + pending claims"
            );
        }
    }

    function invariant_totalsMatchTheGhostBooks() public view {
        TestStablecoin[2] memory tokens = handler.tokens();
        for (uint256 i; i < tokens.length; ++i) {
            address token = address(tokens[i]);
            assertEq(vault.totalCredit(token), handler.ghostCredit(token), "credits");
            assertEq(vault.totalHeld(token), handler.ghostHeld(token), "held");
        }
    }

    function invariant_totalCreditIsTheSumOfAccounts() public view {
        TestStablecoin[2] memory tokens = handler.tokens();
        for (uint256 i; i < tokens.length; ++i) {
            address token = address(tokens[i]);
            uint256 sum;
            for (uint256 a; a < 3; ++a) sum += vault.credit(handler.accounts(a), token);
            assertEq(sum, vault.totalCredit(token));
        }
    }

    function invariant_payoutsReachedTheSolvers() public view {
        TestStablecoin[2] memory tokens = handler.tokens();
        for (uint256 i; i < tokens.length; ++i) {
            assertEq(
                tokens[i].balanceOf(handler.solvers(0)) + tokens[i].balanceOf(handler.solvers(1)),
                handler.paidOut(address(tokens[i]))
            );
        }
    }
}
