// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {Eip3009Authorization, Eip3009Signer} from "./Eip3009Signer.sol";
import {TestStablecoin} from "../../src/tokens/TestStablecoin.sol";
import {IERC3009} from "../../src/tokens/IERC3009.sol";

/// @notice Property tests of ERC-3009: nonces never replay, the window is (validAfter, validBefore), and a
/// signature binds every field.
contract TestStablecoinFuzzTest is Eip3009Signer {
    uint256 internal constant ALICE_KEY = 0xA11CE;
    uint256 internal constant NOW = 1_700_000_000;

    TestStablecoin internal token;
    address internal alice;
    address internal bob = makeAddr("bob");

    function setUp() public {
        vm.warp(NOW);
        alice = vm.addr(ALICE_KEY);
        token = new TestStablecoin("USD Coin", "USDC", 6, address(this));
        token.mint(alice, type(uint128).max);
    }

    function testFuzz_replayedAuthorizationReverts(bytes32 nonce, uint128 value) public {
        Eip3009Authorization memory auth = _auth(value, nonce);
        bytes memory sig = signReceiveWithAuthorization(ALICE_KEY, address(token), auth);

        vm.startPrank(bob);
        token.receiveWithAuthorization(alice, bob, value, auth.validAfter, auth.validBefore, nonce, sig);
        vm.expectRevert(abi.encodeWithSelector(IERC3009.AuthorizationAlreadyUsed.selector, alice, nonce));
        token.receiveWithAuthorization(alice, bob, value, auth.validAfter, auth.validBefore, nonce, sig);
        vm.stopPrank();
        assertEq(token.balanceOf(bob), value, "paid once");
    }

    /// A nonce spent by receive cannot be spent by transfer either (one nonce space per authorizer).
    function testFuzz_receiveNonceBlocksTransfer(bytes32 nonce) public {
        Eip3009Authorization memory auth = _auth(1, nonce);
        bytes memory receiveSig = signReceiveWithAuthorization(ALICE_KEY, address(token), auth);
        bytes memory transferSig = signTransferWithAuthorization(ALICE_KEY, address(token), auth);

        vm.prank(bob);
        token.receiveWithAuthorization(alice, bob, 1, auth.validAfter, auth.validBefore, nonce, receiveSig);
        vm.expectRevert(abi.encodeWithSelector(IERC3009.AuthorizationAlreadyUsed.selector, alice, nonce));
        token.transferWithAuthorization(alice, bob, 1, auth.validAfter, auth.validBefore, nonce, transferSig);
    }

    function testFuzz_validityWindowIsExclusive(uint256 validAfter, uint256 validBefore, uint256 timestamp) public {
        validAfter = bound(validAfter, 0, type(uint64).max);
        validBefore = bound(validBefore, 0, type(uint64).max);
        timestamp = bound(timestamp, NOW, type(uint64).max);
        Eip3009Authorization memory auth = _auth(1, keccak256(abi.encode(validAfter, validBefore, timestamp)));
        auth.validAfter = validAfter;
        auth.validBefore = validBefore;
        bytes memory sig = signReceiveWithAuthorization(ALICE_KEY, address(token), auth);

        vm.warp(timestamp);
        vm.prank(bob);
        if (timestamp <= validAfter) {
            vm.expectRevert(abi.encodeWithSelector(IERC3009.AuthorizationNotYetValid.selector, validAfter));
        } else if (timestamp >= validBefore) {
            vm.expectRevert(abi.encodeWithSelector(IERC3009.AuthorizationExpired.selector, validBefore));
        }
        token.receiveWithAuthorization(alice, bob, 1, validAfter, validBefore, auth.nonce, sig);
    }

    /// Changing from, to, value, validAfter, validBefore or nonce after signing makes the signature invalid.
    function testFuzz_changedAuthorizationFieldReverts(uint8 field, uint256 salt) public {
        salt = bound(salt, 1, 1 hours - 1);
        Eip3009Authorization memory auth = _auth(1_000, keccak256("signed"));
        bytes memory sig = signTransferWithAuthorization(ALICE_KEY, address(token), auth);

        field = field % 6;
        // salt is below 1 hour, so the narrowing casts below keep it whole.
        // forge-lint: disable-start(unsafe-typecast)
        if (field == 0) auth.from = address(uint160(auth.from) ^ uint160(salt));
        else if (field == 1) auth.to = address(uint160(auth.to) ^ uint160(salt));
        else if (field == 2) auth.value += salt;
        else if (field == 3) auth.validAfter -= salt; // stays in the past
        else if (field == 4) auth.validBefore += salt;
        else auth.nonce ^= bytes32(salt);
        // forge-lint: disable-end(unsafe-typecast)

        vm.expectRevert(IERC3009.InvalidAuthorizationSignature.selector);
        token.transferWithAuthorization(
            auth.from, auth.to, auth.value, auth.validAfter, auth.validBefore, auth.nonce, sig
        );
    }

    function testFuzz_tamperedSignatureReverts(uint8 index, uint8 flip) public {
        vm.assume(flip != 0);
        Eip3009Authorization memory auth = _auth(1, keccak256("tamper"));
        bytes memory sig = signReceiveWithAuthorization(ALICE_KEY, address(token), auth);
        sig[index % 65] ^= bytes1(flip);

        vm.prank(bob);
        vm.expectRevert(IERC3009.InvalidAuthorizationSignature.selector);
        token.receiveWithAuthorization(alice, bob, 1, auth.validAfter, auth.validBefore, auth.nonce, sig);
    }

    function testFuzz_wrongKeyReverts(uint256 key) public {
        key = bound(key, 1, SECP256K1_ORDER - 1);
        vm.assume(key != ALICE_KEY);
        Eip3009Authorization memory auth = _auth(1, keccak256("key"));
        bytes memory sig = signReceiveWithAuthorization(key, address(token), auth);

        vm.prank(bob);
        vm.expectRevert(IERC3009.InvalidAuthorizationSignature.selector);
        token.receiveWithAuthorization(alice, bob, 1, auth.validAfter, auth.validBefore, auth.nonce, sig);
    }

    function testFuzz_canceledNonceCannotBeUsed(bytes32 nonce) public {
        token.cancelAuthorization(alice, nonce, signCancelAuthorization(ALICE_KEY, address(token), alice, nonce));
        Eip3009Authorization memory auth = _auth(1, nonce);
        bytes memory sig = signReceiveWithAuthorization(ALICE_KEY, address(token), auth);

        vm.prank(bob);
        vm.expectRevert(abi.encodeWithSelector(IERC3009.AuthorizationAlreadyUsed.selector, alice, nonce));
        token.receiveWithAuthorization(alice, bob, 1, auth.validAfter, auth.validBefore, nonce, sig);
    }

    function _auth(uint256 value, bytes32 nonce) internal view returns (Eip3009Authorization memory) {
        return Eip3009Authorization({
            from: alice, to: bob, value: value, validAfter: NOW - 1 hours, validBefore: NOW + 1 hours, nonce: nonce
        });
    }
}
