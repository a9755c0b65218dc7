// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {Test} from "forge-std/Test.sol";
import {IERC20Metadata} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Metadata.sol";

import {InputSettlerEscrow} from "../../src/input/escrow/InputSettlerEscrow.sol";
import {InputOracle} from "../../src/oracle/InputOracle.sol";
import {OutputOracle} from "../../src/oracle/OutputOracle.sol";
import {OutputSettler} from "../../src/output/OutputSettler.sol";
import {SignatureTransfer} from "../../src/permit2/SignatureTransfer.sol";
import {TestStablecoin} from "../../src/tokens/TestStablecoin.sol";
import {MandateOutput, SolveParams, StandardOrder} from "../../src/types/StandardOrder.sol";
import {FillDescriptionLib} from "../../src/libraries/FillDescriptionLib.sol";
import {OrderHashLib} from "../../src/libraries/OrderHashLib.sol";
import {EscrowSigning} from "./EscrowSigning.sol";

/// @notice The whole settlement path on one forge chain: escrow and input oracle on the "origin" side,
/// output settler and output oracle on the "destination" side (same chain id here), Permit2 at its canonical
/// address, and the test contract acting as the oracle relayer.
abstract contract EscrowTestBase is Test {
    address internal constant PERMIT2 = 0x000000000022D473030F116dDEE9F6B43aC78BA3;
    uint32 internal constant START = 1_700_000_000;
    uint32 internal constant FILL_WINDOW = 1 hours;
    uint32 internal constant REFUND_DELAY = 1 days;
    uint256 internal constant INPUT_AMOUNT = 1_000e6;
    uint256 internal constant OUTPUT_AMOUNT = 998e6;

    InputSettlerEscrow internal escrow;
    InputOracle internal inputOracle;
    OutputOracle internal outputOracle;
    OutputSettler internal outputSettler;
    TestStablecoin internal usdc;
    TestStablecoin internal eurc;
    /// Paid out on the destination side.
    TestStablecoin internal destUsdc;

    address internal taker;
    uint256 internal takerKey;
    address internal solver = makeAddr("solver");
    address internal otherSolver = makeAddr("otherSolver");
    address internal stranger = makeAddr("stranger");
    address internal takerRecipient = makeAddr("takerRecipient");

    uint256 private _nextNonce = 1;

    function setUp() public virtual {
        vm.warp(START);
        (taker, takerKey) = makeAddrAndKey("taker");
        vm.etch(PERMIT2, address(new SignatureTransfer()).code);

        escrow = new InputSettlerEscrow();
        inputOracle = new InputOracle(address(this));
        outputOracle = new OutputOracle();
        outputSettler = new OutputSettler();
        usdc = new TestStablecoin("USD Coin", "USDC", 6, address(this));
        eurc = new TestStablecoin("Euro Coin", "EURC", 6, address(this));
        destUsdc = new TestStablecoin("Destination USD", "dUSDC", 6, address(this));

        _fundTaker(taker);
        _fundSolver(solver);
        _fundSolver(otherSolver);
    }

    // ------------------------------------------------------------------------------------------------------
    // Accounts
    // ------------------------------------------------------------------------------------------------------

    function _fundTaker(address who) internal {
        usdc.mint(who, 1_000_000e6);
        eurc.mint(who, 1_000_000e6);
        vm.startPrank(who);
        usdc.approve(address(escrow), type(uint256).max);
        eurc.approve(address(escrow), type(uint256).max);
        usdc.approve(PERMIT2, type(uint256).max);
        eurc.approve(PERMIT2, type(uint256).max);
        vm.stopPrank();
    }

    function _fundSolver(address who) internal {
        destUsdc.mint(who, 1_000_000e6);
        vm.prank(who);
        destUsdc.approve(address(outputSettler), type(uint256).max);
    }

    function _id(address who) internal pure returns (bytes32) {
        return bytes32(uint256(uint160(who)));
    }

    // ------------------------------------------------------------------------------------------------------
    // Orders
    // ------------------------------------------------------------------------------------------------------

    /// @dev One USDC input, one destination-USDC output to the taker; fresh nonce each call.
    function _order() internal returns (StandardOrder memory order) {
        uint256[2][] memory inputs = new uint256[2][](1);
        inputs[0] = [uint256(uint160(address(usdc))), INPUT_AMOUNT];
        MandateOutput[] memory outputs = new MandateOutput[](1);
        outputs[0] = _output(OUTPUT_AMOUNT, takerRecipient);
        order = StandardOrder({
            user: taker,
            nonce: _nextNonce++,
            originChainId: block.chainid,
            expires: uint32(block.timestamp) + FILL_WINDOW + REFUND_DELAY,
            fillDeadline: uint32(block.timestamp) + FILL_WINDOW,
            inputOracle: address(inputOracle),
            inputs: inputs,
            outputs: outputs
        });
    }

    function _output(uint256 amount, address recipient) internal view returns (MandateOutput memory) {
        return MandateOutput({
            oracle: _id(address(outputOracle)),
            settler: _id(address(outputSettler)),
            chainId: block.chainid,
            token: _id(address(destUsdc)),
            amount: amount,
            recipient: _id(recipient),
            callbackData: "",
            context: ""
        });
    }

    function _orderId(StandardOrder memory order) internal view returns (bytes32) {
        return OrderHashLib.orderIdentifierMemory(order, address(escrow));
    }

    function _status(StandardOrder memory order) internal view returns (InputSettlerEscrow.OrderStatus) {
        return escrow.orderStatus(_orderId(order));
    }

    function _openAsTaker(StandardOrder memory order) internal returns (bytes32 orderId) {
        vm.prank(taker);
        escrow.open(order);
        return _orderId(order);
    }

    // ------------------------------------------------------------------------------------------------------
    // Signatures
    // ------------------------------------------------------------------------------------------------------

    function _permit2Signature(uint256 key, StandardOrder memory order) internal view returns (bytes memory) {
        return EscrowSigning.signPermit2(key, order, address(escrow));
    }

    /// @dev 0x01 ‖ raw signature for one input, 0x01 ‖ abi.encode(bytes[]) for several.
    function _erc3009Signature(uint256 key, address sponsor, StandardOrder memory order)
        internal
        view
        returns (bytes memory)
    {
        bytes32 orderId = _orderId(order);
        bytes[] memory signatures = new bytes[](order.inputs.length);
        for (uint256 i; i < order.inputs.length; ++i) {
            address token = address(uint160(order.inputs[i][0]));
            signatures[i] = EscrowSigning.signReceive(
                key,
                IERC20Metadata(token).name(),
                token,
                sponsor,
                address(escrow),
                order.inputs[i][1],
                order.fillDeadline,
                orderId
            );
        }
        if (signatures.length == 1) return abi.encodePacked(bytes1(0x01), signatures[0]);
        return abi.encodePacked(bytes1(0x01), abi.encode(signatures));
    }

    // ------------------------------------------------------------------------------------------------------
    // Fill and attestation through the real output settler and oracle pair
    // ------------------------------------------------------------------------------------------------------

    /// @dev Fills output `index` as `who` at the current time and relays its attestation to the input oracle.
    function _fillAndAttest(StandardOrder memory order, uint256 index, address who)
        internal
        returns (SolveParams memory params)
    {
        bytes32 orderId = _orderId(order);
        MandateOutput memory output = order.outputs[index];
        vm.prank(who);
        // The settler cannot know the real deadline; the origin chain enforces it, so hand it the latest.
        outputSettler.fill(orderId, output, type(uint48).max, abi.encode(_id(who)));
        params = SolveParams({timestamp: uint32(block.timestamp), solver: _id(who)});
        _attest(order, orderId, index, params);
    }

    function _attest(StandardOrder memory order, bytes32 orderId, uint256 index, SolveParams memory params) internal {
        MandateOutput memory output = order.outputs[index];
        bytes[] memory payloads = new bytes[](1);
        payloads[0] = FillDescriptionLib.encodeFillDescription(params.solver, orderId, params.timestamp, output);
        outputOracle.submit(address(outputSettler), payloads);
        inputOracle.receiveAttestation(block.chainid, output.oracle, output.settler, payloads);
    }

    /// @dev Every output filled by `who` now, and its solve params.
    function _fillAll(StandardOrder memory order, address who) internal returns (SolveParams[] memory params) {
        params = new SolveParams[](order.outputs.length);
        for (uint256 i; i < order.outputs.length; ++i) {
            params[i] = _fillAndAttest(order, i, who);
        }
    }
}
