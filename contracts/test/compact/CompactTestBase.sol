// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {Test} from "forge-std/Test.sol";

import {MandateOutput, SolveParams, StandardOrder} from "../../src/types/StandardOrder.sol";
import {FillDescriptionLib} from "../../src/libraries/FillDescriptionLib.sol";
import {ResourceLock} from "../../src/lock/ResourceLock.sol";
import {AlwaysOkAllocator} from "../../src/lock/AlwaysOkAllocator.sol";
import {ResetPeriod, Scope} from "../../src/lock/types/LockTypes.sol";
import {InputSettlerCompact} from "../../src/input/compact/InputSettlerCompact.sol";
import {OutputSettler} from "../../src/output/OutputSettler.sol";
import {InputOracle} from "../../src/oracle/InputOracle.sol";
import {OutputOracle} from "../../src/oracle/OutputOracle.sol";
import {TestStablecoin} from "../../src/tokens/TestStablecoin.sol";

/// @notice Two chains in one EVM: the origin (lock, settler, input oracle) and the destination (output
/// settler, output oracle), told apart by switching block.chainid. All contracts are the real ones.
abstract contract CompactTestBase is Test {
    uint256 internal constant ORIGIN = 31_337;
    uint256 internal constant DEST = 31_338;

    ResourceLock internal lock;
    AlwaysOkAllocator internal allocator;
    InputSettlerCompact internal settler;
    InputOracle internal inputOracle;
    OutputOracle internal outputOracle;
    OutputSettler internal outputSettler;
    TestStablecoin internal inputToken;
    TestStablecoin internal outputToken;

    address internal user;
    uint256 internal userKey;
    address internal solver;
    address internal relayer;
    address internal destination;

    bytes12 internal lockTag;
    uint256 internal lockId;

    function setUp() public virtual {
        vm.chainId(ORIGIN);
        vm.warp(1_700_000_000);
        (user, userKey) = makeAddrAndKey("taker");
        solver = makeAddr("solver");
        relayer = makeAddr("relayer");
        destination = makeAddr("solver-payout");

        lock = new ResourceLock();
        allocator = new AlwaysOkAllocator(address(lock));
        settler = new InputSettlerCompact(address(lock));
        inputOracle = new InputOracle(relayer);
        outputOracle = new OutputOracle();
        outputSettler = new OutputSettler();
        inputToken = new TestStablecoin("Test USD", "TUSD", 6, address(this));
        outputToken = new TestStablecoin("Test Euro", "TEUR", 6, address(this));

        lockTag = allocator.lockTag(Scope.Multichain, ResetPeriod.TenMinutes);
        lockId = uint256(bytes32(lockTag)) | uint160(address(inputToken));
        _depositFor(user, 100e6);
        outputToken.mint(solver, 1_000e6);
        vm.prank(solver);
        outputToken.approve(address(outputSettler), type(uint256).max);
    }

    function _depositFor(address owner, uint256 amount) internal {
        inputToken.mint(owner, amount);
        vm.startPrank(owner);
        inputToken.approve(address(lock), amount);
        lock.depositERC20(address(inputToken), lockTag, amount, owner);
        vm.stopPrank();
    }

    function _id(address account) internal pure returns (bytes32) {
        return bytes32(uint256(uint160(account)));
    }

    function _output(uint256 amount) internal view returns (MandateOutput memory) {
        return MandateOutput({
            oracle: _id(address(outputOracle)),
            settler: _id(address(outputSettler)),
            chainId: DEST,
            token: _id(address(outputToken)),
            amount: amount,
            recipient: _id(user),
            callbackData: "",
            context: ""
        });
    }

    /// @notice 100 TUSD locked on the origin for 99 TEUR on the destination.
    function _order() internal view returns (StandardOrder memory order) {
        order.user = user;
        order.nonce = 1;
        order.originChainId = ORIGIN;
        order.expires = uint32(block.timestamp + 2 hours);
        order.fillDeadline = uint32(block.timestamp + 1 hours);
        order.inputOracle = address(inputOracle);
        order.inputs = new uint256[2][](1);
        order.inputs[0] = [lockId, 100e6];
        order.outputs = new MandateOutput[](1);
        order.outputs[0] = _output(99e6);
    }

    function _orderId(StandardOrder memory order) internal returns (bytes32 orderId) {
        uint256 chainBefore = block.chainid;
        vm.chainId(ORIGIN);
        orderId = settler.orderIdentifier(order);
        vm.chainId(chainBefore);
    }

    /// @notice The taker's EIP-712 signature of the order's BatchCompact, written out field by field.
    function _signCompact(uint256 key, StandardOrder memory order, address arbiter) internal view returns (bytes memory) {
        bytes32 digest = keccak256(abi.encodePacked("\x19\x01", lock.DOMAIN_SEPARATOR(), _batchCompactHash(order, arbiter)));
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(key, digest);
        return abi.encodePacked(r, s, v);
    }

    function _batchCompactHash(StandardOrder memory order, address arbiter) internal pure returns (bytes32) {
        bytes32 lockTypehash = keccak256("Lock(bytes12 lockTag,address token,uint256 amount)");
        bytes memory locks;
        for (uint256 i; i < order.inputs.length; ++i) {
            uint256 id = order.inputs[i][0];
            locks = abi.encodePacked(
                locks, keccak256(abi.encode(lockTypehash, bytes12(bytes32(id)), address(uint160(id)), order.inputs[i][1]))
            );
        }
        return keccak256(
            abi.encode(
                keccak256(
                    "BatchCompact(address arbiter,address sponsor,uint256 nonce,uint256 expires,Lock[] commitments,Mandate mandate)Lock(bytes12 lockTag,address token,uint256 amount)Mandate(uint32 fillDeadline,address inputOracle,MandateOutput[] outputs)MandateOutput(bytes32 oracle,bytes32 settler,uint256 chainId,bytes32 token,uint256 amount,bytes32 recipient,bytes callbackData,bytes context)"
                ),
                arbiter,
                order.user,
                order.nonce,
                uint256(order.expires),
                keccak256(locks),
                _mandateHash(order)
            )
        );
    }

    function _mandateHash(StandardOrder memory order) internal pure returns (bytes32) {
        bytes32 outputTypehash = keccak256(
            "MandateOutput(bytes32 oracle,bytes32 settler,uint256 chainId,bytes32 token,uint256 amount,bytes32 recipient,bytes callbackData,bytes context)"
        );
        bytes memory outputs;
        for (uint256 i; i < order.outputs.length; ++i) {
            MandateOutput memory o = order.outputs[i];
            outputs = abi.encodePacked(
                outputs,
                keccak256(
                    abi.encode(
                        outputTypehash,
                        o.oracle,
                        o.settler,
                        o.chainId,
                        o.token,
                        o.amount,
                        o.recipient,
                        keccak256(o.callbackData),
                        keccak256(o.context)
                    )
                )
            );
        }
        return keccak256(
            abi.encode(
                keccak256(
                    "Mandate(uint32 fillDeadline,address inputOracle,MandateOutput[] outputs)MandateOutput(bytes32 oracle,bytes32 settler,uint256 chainId,bytes32 token,uint256 amount,bytes32 recipient,bytes callbackData,bytes context)"
                ),
                order.fillDeadline,
                order.inputOracle,
                keccak256(outputs)
            )
        );
    }

    function _signatures(StandardOrder memory order) internal view returns (bytes memory) {
        return abi.encode(_signCompact(userKey, order, address(settler)), bytes(""));
    }

    /// @notice Fills output `index` on the destination at the current time, relays the attestation to the
    /// origin's input oracle, and returns the solve params the solver presents.
    /// @param declaredDeadline The fill deadline the solver hands the output settler (normally the order's).
    function _fillAndRelay(StandardOrder memory order, uint256 index, uint48 declaredDeadline)
        internal
        returns (SolveParams memory params)
    {
        bytes32 orderId = _orderId(order);
        MandateOutput memory output = order.outputs[index];
        vm.chainId(output.chainId);
        vm.prank(solver);
        outputSettler.fill(orderId, output, declaredDeadline, abi.encode(_id(solver)));

        params = SolveParams({timestamp: uint32(block.timestamp), solver: _id(solver)});
        bytes[] memory payloads = new bytes[](1);
        payloads[0] = FillDescriptionLib.encodeFillDescription(params.solver, orderId, params.timestamp, output);
        outputOracle.submit(address(outputSettler), payloads);

        vm.chainId(ORIGIN);
        vm.prank(relayer);
        InputOracle(order.inputOracle).receiveAttestation(
            output.chainId, _id(address(outputOracle)), _id(address(outputSettler)), payloads
        );
    }

    function _fillAll(StandardOrder memory order) internal returns (SolveParams[] memory solveParams) {
        solveParams = new SolveParams[](order.outputs.length);
        for (uint256 i; i < order.outputs.length; ++i) {
            solveParams[i] = _fillAndRelay(order, i, order.fillDeadline);
        }
    }

    function _finalise(StandardOrder memory order, bytes memory signatures, SolveParams[] memory solveParams)
        internal
    {
        vm.prank(solver);
        settler.finalise(order, signatures, solveParams, _id(destination), "");
    }
}
