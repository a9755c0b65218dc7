// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {SolveParams, StandardOrder} from "../../src/types/StandardOrder.sol";
import {IResourceLock} from "../../src/lock/interfaces/IResourceLock.sol";
import {InputOracle} from "../../src/oracle/InputOracle.sol";
import {CompactTestBase} from "./CompactTestBase.sol";

/// @notice Signature binding: an order that differs from the signed one in any field cannot be claimed, even
/// when every output of the altered order was really filled and proven.
contract InputSettlerCompactBindingTest is CompactTestBase {
    uint256 internal constant FIELDS = 11;

    function _tamper(StandardOrder memory order, uint256 field, uint256 delta) internal {
        if (field == 0) {
            order.nonce += delta;
        } else if (field == 1) {
            order.expires += uint32(delta);
        } else if (field == 2) {
            order.fillDeadline -= uint32(delta);
        } else if (field == 3) {
            order.inputs[0][1] -= delta;
        } else if (field == 4) {
            order.outputs[0].amount += delta;
        } else if (field == 5) {
            order.outputs[0].recipient = _id(makeAddr("redirected"));
        } else if (field == 6) {
            order.outputs[0].context = hex"00";
        } else if (field == 7) {
            order.inputOracle = address(new InputOracle(relayer));
        } else if (field == 8) {
            address other = makeAddr("other-taker");
            _depositFor(other, 100e6);
            order.user = other;
        } else if (field == 9) {
            order.inputs[0][0] ^= 1 << 252; // same token and allocator, other reset period
        } else {
            order.outputs[0].chainId = DEST + 1;
        }
    }

    function testFuzz_finalise_changingAnySignedFieldReverts(uint256 field, uint256 delta) public {
        field = bound(field, 0, FIELDS - 1);
        delta = bound(delta, 1, 30 minutes);
        StandardOrder memory signed = _order();
        bytes memory signatures = _signatures(signed);

        StandardOrder memory altered = _order();
        _tamper(altered, field, delta);
        SolveParams[] memory solveParams = _fillAll(altered);

        vm.expectRevert(IResourceLock.InvalidSignature.selector);
        _finalise(altered, signatures, solveParams);
        assertEq(inputToken.balanceOf(destination), 0);
    }

    /// @notice Every field, once each, so a regression names the field.
    function test_finalise_eachSignedFieldIsBound() public {
        for (uint256 field; field < FIELDS; ++field) {
            uint256 snapshot = vm.snapshotState();
            StandardOrder memory signed = _order();
            bytes memory signatures = _signatures(signed);
            StandardOrder memory altered = _order();
            _tamper(altered, field, 1);
            SolveParams[] memory solveParams = _fillAll(altered);
            vm.prank(solver);
            try settler.finalise(altered, signatures, solveParams, _id(destination), "") {
                emit log_named_uint("claim succeeded with altered field", field);
                fail();
            } catch (bytes memory reason) {
                assertEq(bytes4(reason), IResourceLock.InvalidSignature.selector, "reverted for another reason");
            }
            vm.revertToState(snapshot);
        }
    }

    /// @notice Control: the untouched order with the same signature goes through.
    function test_finalise_untouchedOrderClaims() public {
        StandardOrder memory order = _order();
        bytes memory signatures = _signatures(order);
        SolveParams[] memory solveParams = _fillAll(order);
        _finalise(order, signatures, solveParams);
        assertEq(inputToken.balanceOf(destination), 100e6);
    }
}
