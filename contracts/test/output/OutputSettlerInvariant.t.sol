// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {Test} from "forge-std/Test.sol";
import {OutputSettler} from "../../src/output/OutputSettler.sol";
import {MandateOutput} from "../../src/types/StandardOrder.sol";
import {FillDescriptionLib} from "../../src/libraries/FillDescriptionLib.sol";
import {OutputTestToken} from "./OutputTestToken.sol";

/// @notice Drives competing solvers at a fixed set of outputs with single and batch fills over time.
contract OutputSettlerHandler is Test {
    uint256 public constant ORDERS = 2;
    uint256 public constant OUTPUTS = 3;
    uint48 public constant DEADLINE = 1_000_500;

    OutputSettler public immutable settler;
    OutputTestToken public immutable token;
    address[3] internal solvers;

    bytes32[ORDERS] internal orderIds;
    MandateOutput[OUTPUTS][ORDERS] internal outputs;

    /// First record seen per output, and how many times its recipient's balance went up.
    bytes32[OUTPUTS][ORDERS] public firstRecord;
    uint256[OUTPUTS][ORDERS] public timesPaid;
    uint256 public successfulCalls;
    uint256 public tokensSpentBySolvers;
    uint256 public etherSpentBySolvers;

    constructor(OutputSettler settler_, OutputTestToken token_) {
        settler = settler_;
        token = token_;
        for (uint256 s; s < solvers.length; ++s) {
            solvers[s] = makeAddr(string.concat("solver", vm.toString(s)));
            token.mint(solvers[s], 1e30);
            vm.deal(solvers[s], 1e30);
            vm.prank(solvers[s]);
            token.approve(address(settler), type(uint256).max);
        }
        for (uint256 o; o < ORDERS; ++o) {
            orderIds[o] = keccak256(abi.encode("order", o));
            for (uint256 i; i < OUTPUTS; ++i) {
                address to = makeAddr(string.concat("recipient", vm.toString(o), "-", vm.toString(i)));
                // Output 1 of every order is native; the others are the test token.
                bytes32 tokenId = i == 1 ? bytes32(0) : bytes32(uint256(uint160(address(token))));
                outputs[o][i] = MandateOutput({
                    oracle: bytes32(uint256(0x0a)),
                    settler: bytes32(uint256(uint160(address(settler)))),
                    chainId: block.chainid,
                    token: tokenId,
                    amount: (o + 1) * 1e6 + i,
                    recipient: bytes32(uint256(uint160(to))),
                    callbackData: "",
                    context: i == 2 ? bytes(hex"00") : bytes("")
                });
            }
        }
    }

    function fill(uint256 orderSeed, uint256 outputSeed, uint256 solverSeed, uint256 wait) external {
        uint256 o = orderSeed % ORDERS;
        uint256 i = outputSeed % OUTPUTS;
        address solver = solvers[solverSeed % solvers.length];
        vm.warp(block.timestamp + (wait % 16));
        MandateOutput memory output = outputs[o][i];
        uint256 value = output.token == bytes32(0) ? output.amount : 0;

        (uint256 tokensBefore, uint256 etherBefore) = (token.balanceOf(solver), solver.balance);
        uint256[OUTPUTS][ORDERS] memory before = _recipientBalances();
        vm.prank(solver);
        settler.fill{value: value}(orderIds[o], output, DEADLINE, abi.encode(bytes32(uint256(uint160(solver)))));
        _afterFill(before);
        tokensSpentBySolvers += tokensBefore - token.balanceOf(solver);
        etherSpentBySolvers += etherBefore - solver.balance;
    }

    function fillOrder(uint256 orderSeed, uint256 solverSeed, uint256 wait) external {
        uint256 o = orderSeed % ORDERS;
        address solver = solvers[solverSeed % solvers.length];
        vm.warp(block.timestamp + (wait % 16));
        MandateOutput[] memory batch = new MandateOutput[](OUTPUTS);
        uint256 value;
        for (uint256 i; i < OUTPUTS; ++i) {
            batch[i] = outputs[o][i];
            if (batch[i].token == bytes32(0)) value += batch[i].amount;
        }

        (uint256 tokensBefore, uint256 etherBefore) = (token.balanceOf(solver), solver.balance);
        uint256[OUTPUTS][ORDERS] memory before = _recipientBalances();
        vm.prank(solver);
        settler.fillOrderOutputs{value: value}(
            orderIds[o], batch, DEADLINE, abi.encode(bytes32(uint256(uint160(solver))))
        );
        _afterFill(before);
        tokensSpentBySolvers += tokensBefore - token.balanceOf(solver);
        etherSpentBySolvers += etherBefore - solver.balance;
    }

    function _afterFill(uint256[OUTPUTS][ORDERS] memory before) private {
        successfulCalls += 1;
        uint256[OUTPUTS][ORDERS] memory afterwards = _recipientBalances();
        for (uint256 o; o < ORDERS; ++o) {
            for (uint256 i; i < OUTPUTS; ++i) {
                if (afterwards[o][i] != before[o][i]) timesPaid[o][i] += 1;
                bytes32 record = recordOf(o, i);
                if (firstRecord[o][i] == bytes32(0)) firstRecord[o][i] = record;
            }
        }
    }

    function _recipientBalances() private view returns (uint256[OUTPUTS][ORDERS] memory balances) {
        for (uint256 o; o < ORDERS; ++o) {
            for (uint256 i; i < OUTPUTS; ++i) {
                balances[o][i] = paidTo(o, i);
            }
        }
    }

    function recordOf(uint256 o, uint256 i) public view returns (bytes32) {
        return settler.getFillRecord(orderIds[o], FillDescriptionLib.outputHash(outputs[o][i]));
    }

    function paidTo(uint256 o, uint256 i) public view returns (uint256) {
        MandateOutput storage output = outputs[o][i];
        address to = address(uint160(uint256(output.recipient)));
        return output.token == bytes32(0) ? to.balance : token.balanceOf(to);
    }

    function amountOf(uint256 o, uint256 i) external view returns (uint256) {
        return outputs[o][i].amount;
    }

    function isNative(uint256 o, uint256 i) external view returns (bool) {
        return outputs[o][i].token == bytes32(0);
    }
}

contract OutputSettlerInvariantTest is Test {
    OutputSettler internal settler;
    OutputTestToken internal token;
    OutputSettlerHandler internal handler;

    function setUp() public {
        vm.warp(1_000_000);
        settler = new OutputSettler();
        token = new OutputTestToken();
        handler = new OutputSettlerHandler(settler, token);
        targetContract(address(handler));
    }

    /// Each output is paid to its recipient at most once, and exactly its amount when recorded.
    function invariant_recipientPaidOncePerRecordedOutput() public view {
        for (uint256 o; o < handler.ORDERS(); ++o) {
            for (uint256 i; i < handler.OUTPUTS(); ++i) {
                assertLe(handler.timesPaid(o, i), 1, "paid more than once");
                uint256 expected = handler.recordOf(o, i) == bytes32(0) ? 0 : handler.amountOf(o, i);
                assertEq(handler.paidTo(o, i), expected, "paid amount matches record");
            }
        }
    }

    /// A fill record, once written, never changes.
    function invariant_fillRecordWrittenOnce() public view {
        for (uint256 o; o < handler.ORDERS(); ++o) {
            for (uint256 i; i < handler.OUTPUTS(); ++i) {
                assertEq(handler.recordOf(o, i), handler.firstRecord(o, i));
            }
        }
    }

    /// The settler is a pass-through: it never keeps tokens or ETH.
    function invariant_settlerHoldsNothing() public view {
        assertEq(address(settler).balance, 0);
        assertEq(token.balanceOf(address(settler)), 0);
    }

    /// What solvers spent is exactly what recipients received.
    function invariant_solverSpendEqualsRecipientReceipts() public view {
        uint256 tokens;
        uint256 ether_;
        for (uint256 o; o < handler.ORDERS(); ++o) {
            for (uint256 i; i < handler.OUTPUTS(); ++i) {
                if (handler.isNative(o, i)) ether_ += handler.paidTo(o, i);
                else tokens += handler.paidTo(o, i);
            }
        }
        assertEq(handler.tokensSpentBySolvers(), tokens);
        assertEq(handler.etherSpentBySolvers(), ether_);
    }

    function afterInvariant() external view {
        // Guards against a handler that only ever reverts, which would make the invariants vacuous.
        assertGt(handler.successfulCalls(), 0, "handler never filled anything");
    }
}
