// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {Test, Vm} from "forge-std/Test.sol";
import {InputOracle} from "../../src/oracle/InputOracle.sol";
import {OutputOracle} from "../../src/oracle/OutputOracle.sol";
import {OutputSettler} from "../../src/output/OutputSettler.sol";
import {IInputOracle} from "../../src/interfaces/IInputOracle.sol";
import {InputSettlerBase} from "../../src/input/InputSettlerBase.sol";
import {MandateOutput, SolveParams, StandardOrder} from "../../src/types/StandardOrder.sol";
import {FillDescriptionLib} from "../../src/libraries/FillDescriptionLib.sol";
import {OrderHashLib} from "../../src/libraries/OrderHashLib.sol";
import {OutputTestToken} from "../output/OutputTestToken.sol";

/// @notice Exposes the input settlers' shared proof check, so the pair is tested against the proof series the
/// real input settlers build.
contract ProofCheckingInputSettler is InputSettlerBase {
    constructor() EIP712("ProofChecking", "1") {}

    function orderIdentifier(StandardOrder calldata order) external view returns (bytes32) {
        return OrderHashLib.orderIdentifier(order, address(this));
    }

    function requireFillsProven(StandardOrder calldata order, SolveParams[] calldata solveParams) external view {
        _validateFills(order, OrderHashLib.orderIdentifier(order, address(this)), solveParams);
    }
}

/// @notice Fill on the destination chain → OutputOracle → relayer → InputOracle → input settler proof check.
/// Both chains live in one EVM; `vm.chainId` switches between them as a transaction would land on each.
contract OraclePairTest is Test {
    uint256 internal constant ORIGIN = 31_337;
    uint256 internal constant DEST = 31_338;
    uint32 internal constant FILL_DEADLINE = 1_700_000_600;

    address internal relayer = makeAddr("relayer");
    address internal solver = makeAddr("solver");
    address internal taker = makeAddr("taker");

    InputOracle internal inputOracle;
    ProofCheckingInputSettler internal inputSettler;
    OutputOracle internal outputOracle;
    OutputSettler internal outputSettler;
    OutputTestToken internal destToken;

    StandardOrder internal order;
    bytes32 internal orderId;

    function setUp() public {
        vm.warp(FILL_DEADLINE - 300);
        vm.chainId(ORIGIN);
        inputOracle = new InputOracle(relayer);
        inputSettler = new ProofCheckingInputSettler();

        vm.chainId(DEST);
        outputOracle = new OutputOracle();
        outputSettler = new OutputSettler();
        destToken = new OutputTestToken();
        destToken.mint(solver, 1e24);
        vm.deal(solver, 10 ether);
        vm.prank(solver);
        destToken.approve(address(outputSettler), type(uint256).max);

        order.user = taker;
        order.nonce = 7;
        order.originChainId = ORIGIN;
        order.expires = FILL_DEADLINE + 3600;
        order.fillDeadline = FILL_DEADLINE;
        order.inputOracle = address(inputOracle);
        order.inputs.push([uint256(uint160(makeAddr("originToken"))), 100e6]);
        order.outputs.push(_output(bytes32(uint256(uint160(address(destToken)))), 99e6, hex""));
        order.outputs.push(_output(bytes32(0), 0.01 ether, hex"00"));

        vm.chainId(ORIGIN);
        orderId = inputSettler.orderIdentifier(order);
    }

    function _output(bytes32 token, uint256 amount, bytes memory context) internal returns (MandateOutput memory) {
        return MandateOutput({
            oracle: bytes32(uint256(uint160(address(outputOracle)))),
            settler: bytes32(uint256(uint160(address(outputSettler)))),
            chainId: DEST,
            token: token,
            amount: amount,
            recipient: bytes32(uint256(uint160(makeAddr("takerOnDest")))),
            callbackData: "",
            context: context
        });
    }

    /// Fills both outputs on the destination chain; returns what a watcher learns from OutputFilled.
    function _fillOnDestination() internal returns (SolveParams[] memory solveParams) {
        vm.chainId(DEST);
        vm.recordLogs();
        vm.prank(solver);
        outputSettler.fillOrderOutputs{value: 0.01 ether}(
            orderId, order.outputs, FILL_DEADLINE, abi.encode(bytes32(uint256(uint160(solver))))
        );
        Vm.Log[] memory logs = vm.getRecordedLogs();
        solveParams = new SolveParams[](order.outputs.length);
        uint256 n;
        for (uint256 i; i < logs.length; ++i) {
            if (logs[i].emitter != address(outputSettler) || logs[i].topics[0] != OutputSettler.OutputFilled.selector) {
                continue;
            }
            assertEq(logs[i].topics[1], orderId);
            (bytes32 filledBy, uint32 timestamp,,) = abi.decode(logs[i].data, (bytes32, uint32, MandateOutput, uint256));
            solveParams[n++] = SolveParams({timestamp: timestamp, solver: filledBy});
        }
        assertEq(n, order.outputs.length);
    }

    function _payloads(SolveParams[] memory solveParams) internal view returns (bytes[] memory payloads) {
        payloads = new bytes[](solveParams.length);
        for (uint256 i; i < solveParams.length; ++i) {
            payloads[i] = FillDescriptionLib.encodeFillDescription(
                solveParams[i].solver, orderId, solveParams[i].timestamp, order.outputs[i]
            );
        }
    }

    /// Submits to the OutputOracle and returns its logs, as the relayer would watch them.
    function _submit(bytes[] memory payloads) internal returns (Vm.Log[] memory proven) {
        vm.chainId(DEST);
        vm.recordLogs();
        outputOracle.submit(address(outputSettler), payloads);
        proven = vm.getRecordedLogs();
    }

    /// Carries each OutputProven log to the origin chain using only what the log contains.
    function _relay(Vm.Log[] memory proven) internal {
        vm.chainId(ORIGIN);
        for (uint256 i; i < proven.length; ++i) {
            assertEq(proven[i].topics[0], OutputOracle.OutputAttested.selector);
            (bytes32 dataHash, bytes memory payload) = abi.decode(proven[i].data, (bytes32, bytes));
            assertEq(dataHash, keccak256(payload));
            bytes[] memory one = new bytes[](1);
            one[0] = payload;
            vm.prank(relayer);
            inputOracle.receiveAttestation(
                uint256(proven[i].topics[1]), bytes32(uint256(uint160(proven[i].emitter))), proven[i].topics[2], one
            );
        }
    }

    function test_fillAttestRelay_provesEveryOutputToTheInputSettler() public {
        SolveParams[] memory solveParams = _fillOnDestination();
        _relay(_submit(_payloads(solveParams)));

        vm.chainId(ORIGIN);
        inputSettler.requireFillsProven(order, solveParams);
        assertEq(solveParams[0].solver, bytes32(uint256(uint160(solver))));
    }

    function test_fillAtDeadline_provesEndToEnd() public {
        vm.warp(FILL_DEADLINE);
        SolveParams[] memory solveParams = _fillOnDestination();
        assertEq(solveParams[0].timestamp, FILL_DEADLINE);
        _relay(_submit(_payloads(solveParams)));
        vm.chainId(ORIGIN);
        inputSettler.requireFillsProven(order, solveParams);
    }

    function test_beforeRelay_notProven() public {
        SolveParams[] memory solveParams = _fillOnDestination();
        _submit(_payloads(solveParams));
        vm.chainId(ORIGIN);
        vm.expectRevert(IInputOracle.NotProven.selector);
        inputSettler.requireFillsProven(order, solveParams);
    }

    function test_oneOutputRelayed_notProven() public {
        SolveParams[] memory solveParams = _fillOnDestination();
        Vm.Log[] memory proven = _submit(_payloads(solveParams));
        Vm.Log[] memory firstOnly = new Vm.Log[](1);
        firstOnly[0] = proven[0];
        _relay(firstOnly);
        vm.chainId(ORIGIN);
        vm.expectRevert(IInputOracle.NotProven.selector);
        inputSettler.requireFillsProven(order, solveParams);
    }

    function test_claimAsAnotherSolver_notProven() public {
        SolveParams[] memory solveParams = _fillOnDestination();
        _relay(_submit(_payloads(solveParams)));
        solveParams[0].solver = bytes32(uint256(uint160(makeAddr("thief"))));
        vm.chainId(ORIGIN);
        vm.expectRevert(IInputOracle.NotProven.selector);
        inputSettler.requireFillsProven(order, solveParams);
    }

    function test_claimWithEarlierTimestamp_notProven() public {
        SolveParams[] memory solveParams = _fillOnDestination();
        _relay(_submit(_payloads(solveParams)));
        solveParams[1].timestamp -= 1;
        vm.chainId(ORIGIN);
        vm.expectRevert(IInputOracle.NotProven.selector);
        inputSettler.requireFillsProven(order, solveParams);
    }

    /// The series the input settlers hand to their oracle (InputSettlerBase._validateFills).
    function _series(SolveParams[] memory solveParams) internal view returns (bytes memory series) {
        for (uint256 i; i < solveParams.length; ++i) {
            MandateOutput memory output = order.outputs[i];
            series = abi.encodePacked(
                series,
                output.chainId,
                output.oracle,
                output.settler,
                keccak256(
                    FillDescriptionLib.encodeFillDescription(
                        solveParams[i].solver, orderId, solveParams[i].timestamp, output
                    )
                )
            );
        }
    }

    function test_proofSeries_holdsOnlyAtTheRelayedInputOracle() public {
        SolveParams[] memory solveParams = _fillOnDestination();
        _relay(_submit(_payloads(solveParams)));
        vm.chainId(ORIGIN);
        bytes memory series = _series(solveParams);
        inputOracle.efficientRequireProven(series);

        InputOracle otherOracle = new InputOracle(relayer);
        vm.expectRevert(IInputOracle.NotProven.selector);
        otherOracle.efficientRequireProven(series);
    }

    function test_relayerNamingWrongRemoteChain_notProven() public {
        SolveParams[] memory solveParams = _fillOnDestination();
        bytes[] memory payloads = _payloads(solveParams);
        _submit(payloads);
        vm.chainId(ORIGIN);
        vm.prank(relayer);
        inputOracle.receiveAttestation(
            DEST + 1,
            bytes32(uint256(uint160(address(outputOracle)))),
            bytes32(uint256(uint160(address(outputSettler)))),
            payloads
        );
        vm.expectRevert(IInputOracle.NotProven.selector);
        inputSettler.requireFillsProven(order, solveParams);
    }
}
