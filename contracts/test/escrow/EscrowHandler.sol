// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {CommonBase} from "forge-std/Base.sol";
import {StdCheats} from "forge-std/StdCheats.sol";
import {StdUtils} from "forge-std/StdUtils.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";

import {InputSettlerEscrow} from "../../src/input/escrow/InputSettlerEscrow.sol";
import {InputOracle} from "../../src/oracle/InputOracle.sol";
import {OutputOracle} from "../../src/oracle/OutputOracle.sol";
import {OutputSettler} from "../../src/output/OutputSettler.sol";
import {TestStablecoin} from "../../src/tokens/TestStablecoin.sol";
import {MandateOutput, SolveParams, StandardOrder} from "../../src/types/StandardOrder.sol";
import {FillDescriptionLib} from "../../src/libraries/FillDescriptionLib.sol";
import {OrderHashLib} from "../../src/libraries/OrderHashLib.sol";
import {EscrowSigning} from "./EscrowSigning.sol";

/// @notice Drives the escrow through random lifecycles: opens by each path, real fills and attestations,
/// claims, refunds, time, and attempts that must fail. It predicts every outcome from the rules of
/// onchain.md and raises a flag when the escrow disagrees; the invariant test reads the flags and the books.
contract EscrowHandler is CommonBase, StdCheats, StdUtils {
    uint256 internal constant MAX_ORDERS = 40;
    uint256 internal constant ACTOR_COUNT = 3;
    address internal constant PERMIT2 = 0x000000000022D473030F116dDEE9F6B43aC78BA3;

    InputSettlerEscrow public immutable escrow;
    InputOracle public immutable inputOracle;
    OutputOracle public immutable outputOracle;
    OutputSettler public immutable outputSettler;
    TestStablecoin public immutable destToken;
    TestStablecoin[2] internal _tokens;

    address[ACTOR_COUNT] public takers;
    uint256[ACTOR_COUNT] internal _takerKeys;
    address[ACTOR_COUNT] public solvers;
    address public relayer = makeAddr("escrow-relayer");
    address public stranger = makeAddr("escrow-stranger");

    bytes32[] public orderIds;
    mapping(bytes32 orderId => bytes encodedOrder) internal _orders;
    /// Each order's input amount of `_tokens[0]` and `_tokens[1]`, summed once when it opens: the solvency books
    /// read two words per order instead of decoding the whole order at every check of every call.
    mapping(bytes32 orderId => uint256[2] amounts) internal _inputAmounts;
    mapping(bytes32 orderId => InputSettlerEscrow.OrderStatus) public lastSeenStatus;
    mapping(bytes32 orderId => bool) internal _filled;
    mapping(bytes32 orderId => SolveParams) internal _fill;
    mapping(bytes32 orderId => uint256) public claims;
    mapping(bytes32 orderId => uint256) public refunds;

    /// Raised when the escrow's state moved backwards or between terminal states.
    bool public statusRegressed;
    /// Raised when a call succeeded or failed against the rules, or paid the wrong amount or party.
    bool public unexpectedOutcome;
    string public unexpectedReason;

    uint256 private _nonce = 1;
    mapping(bytes4 action => uint256) public successes;

    constructor(
        InputSettlerEscrow escrow_,
        OutputOracle outputOracle_,
        OutputSettler outputSettler_,
        TestStablecoin tokenA,
        TestStablecoin tokenB,
        TestStablecoin destToken_
    ) {
        escrow = escrow_;
        inputOracle = new InputOracle(address(this));
        outputOracle = outputOracle_;
        outputSettler = outputSettler_;
        _tokens = [tokenA, tokenB];
        destToken = destToken_;
        for (uint256 i; i < ACTOR_COUNT; ++i) {
            (takers[i], _takerKeys[i]) = makeAddrAndKey(string.concat("escrow-taker-", vm.toString(i)));
            solvers[i] = makeAddr(string.concat("escrow-solver-", vm.toString(i)));
        }
    }

    // ------------------------------------------------------------------------------------------------------
    // Actions
    // ------------------------------------------------------------------------------------------------------

    function openSelf(uint256 takerSeed, uint256 shapeSeed, uint256 timing) external {
        if (orderIds.length >= MAX_ORDERS) return;
        (StandardOrder memory order, uint256 t) = _newOrder(takerSeed, shapeSeed, timing, true);
        vm.prank(takers[t]);
        try escrow.open(order) {
            _opened(order, this.openSelf.selector);
        } catch {
            _flag("open refused a valid order");
        }
    }

    function openWithPermit2(uint256 takerSeed, uint256 shapeSeed, uint256 timing) external {
        if (orderIds.length >= MAX_ORDERS) return;
        (StandardOrder memory order, uint256 t) = _newOrder(takerSeed, shapeSeed, timing, true);
        bytes memory signature = EscrowSigning.signPermit2(_takerKeys[t], order, address(escrow));
        vm.prank(relayer);
        try escrow.openFor(order, takers[t], signature) {
            _opened(order, this.openWithPermit2.selector);
        } catch {
            _flag("Permit2 openFor refused a valid order");
        }
    }

    function openWithErc3009(uint256 takerSeed, uint256 shapeSeed, uint256 timing) external {
        if (orderIds.length >= MAX_ORDERS) return;
        (StandardOrder memory order, uint256 t) = _newOrder(takerSeed, shapeSeed, timing, false);
        bytes memory signature = _erc3009Signature(order, t);
        vm.prank(relayer);
        try escrow.openFor(order, takers[t], signature) {
            _opened(order, this.openWithErc3009.selector);
        } catch {
            _flag("ERC-3009 openFor refused a valid order");
        }
    }

    /// Fills every output (once per order, at the current time) through the real settler and oracles, then
    /// claims as the solver of output 0.
    function fillAndFinalise(uint256 orderSeed, uint256 solverSeed) external {
        if (orderIds.length == 0) return;
        bytes32 orderId = orderIds[orderSeed % orderIds.length];
        StandardOrder memory order = _order(orderId);
        if (!_filled[orderId]) _fillAndAttest(order, orderId, solvers[solverSeed % ACTOR_COUNT]);
        SolveParams memory params = _fill[orderId];
        address owner = address(uint160(uint256(params.solver)));

        bool allowed = escrow.orderStatus(orderId) == InputSettlerEscrow.OrderStatus.Deposited
            && params.timestamp <= order.fillDeadline;
        address payee = makeAddr(string.concat("payee-", vm.toString(owner)));
        uint256[] memory before = _balances(order, payee);

        vm.prank(owner);
        try escrow.finalise(order, _params(order, params), bytes32(uint256(uint160(payee))), "") {
            if (!allowed) return _flag("finalise paid against the rules");
            ++claims[orderId];
            ++successes[this.fillAndFinalise.selector];
            _expectPaid(order, payee, before, "finalise paid the wrong amount");
        } catch {
            if (allowed) _flag("finalise refused a proven, deposited order");
        }
        _observe();
    }

    function refund(uint256 orderSeed) external {
        if (orderIds.length == 0) return;
        bytes32 orderId = orderIds[orderSeed % orderIds.length];
        StandardOrder memory order = _order(orderId);
        bool allowed = escrow.orderStatus(orderId) == InputSettlerEscrow.OrderStatus.Deposited
            && block.timestamp > order.expires;
        uint256[] memory before = _balances(order, order.user);

        vm.prank(stranger);
        try escrow.refund(order) {
            if (!allowed) return _flag("refund paid against the rules");
            ++refunds[orderId];
            ++successes[this.refund.selector];
            _expectPaid(order, order.user, before, "refund paid the wrong amount");
        } catch {
            if (allowed) _flag("refund refused an expired, deposited order");
        }
        _observe();
    }

    /// Attempts that must always fail: a stranger claiming a proven order, and reopening a known order id.
    function misbehave(uint256 orderSeed, bool reopen) external {
        if (orderIds.length == 0) return;
        bytes32 orderId = orderIds[orderSeed % orderIds.length];
        StandardOrder memory order = _order(orderId);
        if (reopen) {
            vm.prank(order.user);
            try escrow.open(order) {
                _flag("an order id opened twice");
            } catch {}
        } else if (_filled[orderId]) {
            vm.prank(stranger);
            try escrow.finalise(order, _params(order, _fill[orderId]), bytes32(uint256(uint160(stranger))), "") {
                _flag("a stranger claimed an order");
            } catch {}
        }
        _observe();
    }

    function warp(uint256 seconds_) external {
        vm.warp(block.timestamp + bound(seconds_, 1, 90 minutes));
    }

    // ------------------------------------------------------------------------------------------------------
    // Books for the invariants
    // ------------------------------------------------------------------------------------------------------

    function orderCount() external view returns (uint256) {
        return orderIds.length;
    }

    function tokens() external view returns (TestStablecoin[2] memory) {
        return _tokens;
    }

    /// @notice Sum of `token` inputs over orders the escrow currently reports Deposited.
    function depositedSum(address token) external view returns (uint256 sum) {
        uint256 k = token == address(_tokens[0]) ? 0 : 1;
        if (k == 1 && token != address(_tokens[1])) return 0;
        for (uint256 i; i < orderIds.length; ++i) {
            if (escrow.orderStatus(orderIds[i]) != InputSettlerEscrow.OrderStatus.Deposited) continue;
            sum += _inputAmounts[orderIds[i]][k];
        }
    }

    // ------------------------------------------------------------------------------------------------------
    // Internals
    // ------------------------------------------------------------------------------------------------------

    /// @dev One or two inputs; repeated tokens only where the path allows them (not ERC-3009, whose nonce is
    /// the order id).
    function _newOrder(uint256 takerSeed, uint256 shapeSeed, uint256 timing, bool mayRepeatToken)
        internal
        returns (StandardOrder memory order, uint256 t)
    {
        t = takerSeed % ACTOR_COUNT;
        uint256 inputCount = 1 + shapeSeed % 2;
        uint256[2][] memory inputs = new uint256[2][](inputCount);
        for (uint256 i; i < inputCount; ++i) {
            uint256 tokenIndex = mayRepeatToken ? (shapeSeed >> (8 + i)) % 2 : i;
            inputs[i] = [uint256(uint160(address(_tokens[tokenIndex]))), bound(shapeSeed >> (16 + 32 * i), 1, 1e12)];
        }
        MandateOutput[] memory outputs = new MandateOutput[](1 + (shapeSeed >> 100) % 2);
        for (uint256 i; i < outputs.length; ++i) {
            outputs[i] = MandateOutput({
                oracle: bytes32(uint256(uint160(address(outputOracle)))),
                settler: bytes32(uint256(uint160(address(outputSettler)))),
                chainId: block.chainid,
                token: bytes32(uint256(uint160(address(destToken)))),
                amount: bound(shapeSeed >> (128 + 32 * i), 1, 1e12),
                recipient: bytes32(uint256(uint160(takers[t]))),
                callbackData: "",
                context: ""
            });
        }
        uint32 fillDeadline = uint32(block.timestamp + bound(timing, 1, 4 hours));
        order = StandardOrder({
            user: takers[t],
            nonce: _nonce++,
            originChainId: block.chainid,
            expires: fillDeadline + uint32(bound(timing >> 64, 0, 12 hours)),
            fillDeadline: fillDeadline,
            inputOracle: address(inputOracle),
            inputs: inputs,
            outputs: outputs
        });
    }

    function _opened(StandardOrder memory order, bytes4 action) internal {
        bytes32 orderId = OrderHashLib.orderIdentifierMemory(order, address(escrow));
        orderIds.push(orderId);
        _orders[orderId] = abi.encode(order);
        for (uint256 j; j < order.inputs.length; ++j) {
            address token = address(uint160(order.inputs[j][0]));
            if (token == address(_tokens[0])) _inputAmounts[orderId][0] += order.inputs[j][1];
            else if (token == address(_tokens[1])) _inputAmounts[orderId][1] += order.inputs[j][1];
        }
        ++successes[action];
        _observe();
    }

    function _fillAndAttest(StandardOrder memory order, bytes32 orderId, address solver) internal {
        bytes32 solverId = bytes32(uint256(uint160(solver)));
        bytes[] memory payloads = new bytes[](order.outputs.length);
        vm.startPrank(solver);
        for (uint256 i; i < order.outputs.length; ++i) {
            // The settler cannot know the order's deadline; late fills are recorded and refused at claim.
            outputSettler.fill(orderId, order.outputs[i], type(uint48).max, abi.encode(solverId));
            payloads[i] = FillDescriptionLib.encodeFillDescription(
                solverId, orderId, uint32(block.timestamp), order.outputs[i]
            );
        }
        vm.stopPrank();
        outputOracle.submit(address(outputSettler), payloads);
        inputOracle.receiveAttestation(
            block.chainid, order.outputs[0].oracle, order.outputs[0].settler, payloads
        );
        _filled[orderId] = true;
        _fill[orderId] = SolveParams({timestamp: uint32(block.timestamp), solver: solverId});
    }

    function _params(StandardOrder memory order, SolveParams memory params)
        internal
        pure
        returns (SolveParams[] memory list)
    {
        list = new SolveParams[](order.outputs.length);
        for (uint256 i; i < list.length; ++i) {
            list[i] = params;
        }
    }

    function _erc3009Signature(StandardOrder memory order, uint256 t) internal view returns (bytes memory) {
        bytes32 orderId = OrderHashLib.orderIdentifierMemory(order, address(escrow));
        bytes[] memory signatures = new bytes[](order.inputs.length);
        for (uint256 i; i < signatures.length; ++i) {
            address token = address(uint160(order.inputs[i][0]));
            signatures[i] = EscrowSigning.signReceive(
                _takerKeys[t],
                TestStablecoin(token).name(),
                token,
                takers[t],
                address(escrow),
                order.inputs[i][1],
                order.fillDeadline,
                orderId
            );
        }
        if (signatures.length == 1) return abi.encodePacked(bytes1(0x01), signatures[0]);
        return abi.encodePacked(bytes1(0x01), abi.encode(signatures));
    }

    function _balances(StandardOrder memory order, address who) internal view returns (uint256[] memory list) {
        list = new uint256[](order.inputs.length);
        for (uint256 i; i < list.length; ++i) {
            list[i] = IERC20(address(uint160(order.inputs[i][0]))).balanceOf(who);
        }
    }

    /// @dev Inputs may repeat a token: compare each token's balance gain with the sum of its inputs.
    function _expectPaid(StandardOrder memory order, address who, uint256[] memory before, string memory reason)
        internal
    {
        for (uint256 i; i < order.inputs.length; ++i) {
            uint256 expected;
            for (uint256 j; j < order.inputs.length; ++j) {
                if (order.inputs[j][0] == order.inputs[i][0]) expected += order.inputs[j][1];
            }
            uint256 gained = IERC20(address(uint160(order.inputs[i][0]))).balanceOf(who) - before[i];
            if (gained != expected) _flag(reason);
        }
    }

    /// @dev Status may only go None → Deposited → Claimed | Refunded.
    function _observe() internal {
        for (uint256 i; i < orderIds.length; ++i) {
            bytes32 orderId = orderIds[i];
            InputSettlerEscrow.OrderStatus previous = lastSeenStatus[orderId];
            InputSettlerEscrow.OrderStatus current = escrow.orderStatus(orderId);
            if (current == previous) continue;
            bool forward = (previous == InputSettlerEscrow.OrderStatus.None
                    && current == InputSettlerEscrow.OrderStatus.Deposited)
                || (previous == InputSettlerEscrow.OrderStatus.Deposited && current != InputSettlerEscrow.OrderStatus.None);
            if (!forward) statusRegressed = true;
            lastSeenStatus[orderId] = current;
        }
    }

    function _order(bytes32 orderId) internal view returns (StandardOrder memory) {
        return abi.decode(_orders[orderId], (StandardOrder));
    }

    function _flag(string memory reason) internal {
        if (!unexpectedOutcome) unexpectedReason = reason;
        unexpectedOutcome = true;
    }
}
