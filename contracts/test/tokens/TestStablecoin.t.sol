// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {IERC20Errors} from "@openzeppelin/contracts/interfaces/draft-IERC6093.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {Eip3009Authorization, Eip3009Signer} from "./Eip3009Signer.sol";
import {TestStablecoin} from "../../src/tokens/TestStablecoin.sol";
import {StablecoinBase} from "../../src/tokens/StablecoinBase.sol";
import {IERC3009} from "../../src/tokens/IERC3009.sol";
import {MockERC1271Wallet} from "../mocks/MockERC1271Wallet.sol";

/// @notice Unit tests of TestStablecoin: ERC-20 metadata, owner faucet, EIP-2612 permit and every ERC-3009
/// function in both overloads, with the USDC bounds (validAfter < now < validBefore).
contract TestStablecoinTest is Eip3009Signer {
    uint256 internal constant ALICE_KEY = 0xA11CE;
    uint256 internal constant BOB_KEY = 0xB0B;
    uint256 internal constant NOW = 1_700_000_000;
    uint256 internal constant VALID_AFTER = NOW - 1 hours;
    uint256 internal constant VALID_BEFORE = NOW + 1 hours;

    TestStablecoin internal token;
    address internal admin = makeAddr("admin");
    address internal alice;
    address internal bob;
    address internal relayer = makeAddr("relayer");

    function setUp() public {
        vm.warp(NOW);
        alice = vm.addr(ALICE_KEY);
        bob = vm.addr(BOB_KEY);
        token = new TestStablecoin("USD Coin", "USDC", 6, admin);
        vm.prank(admin);
        token.mint(alice, 1_000e6);
    }

    // ---------------------------------------------------------------- metadata, domain, typehashes

    function test_metadata() public {
        assertEq(token.name(), "USD Coin");
        assertEq(token.symbol(), "USDC");
        assertEq(token.decimals(), 6);
        assertEq(token.totalSupply(), 1_000e6);
        assertEq(token.owner(), admin);
        assertEq(new TestStablecoin("Dai", "DAI", 18, admin).decimals(), 18);
    }

    function test_constructor_revertsForZeroOwner() public {
        vm.expectRevert(abi.encodeWithSelector(Ownable.OwnableInvalidOwner.selector, address(0)));
        new TestStablecoin("USD Coin", "USDC", 6, address(0));
    }

    function test_typehashes_matchUsdc() public view {
        assertEq(token.TRANSFER_WITH_AUTHORIZATION_TYPEHASH(), TRANSFER_WITH_AUTHORIZATION_TYPEHASH);
        assertEq(token.RECEIVE_WITH_AUTHORIZATION_TYPEHASH(), RECEIVE_WITH_AUTHORIZATION_TYPEHASH);
        assertEq(token.CANCEL_AUTHORIZATION_TYPEHASH(), CANCEL_AUTHORIZATION_TYPEHASH);
        assertEq(token.PERMIT_TYPEHASH(), EIP2612_PERMIT_TYPEHASH);
        assertEq(
            TRANSFER_WITH_AUTHORIZATION_TYPEHASH,
            keccak256(
                "TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
            )
        );
        assertEq(
            RECEIVE_WITH_AUTHORIZATION_TYPEHASH,
            keccak256(
                "ReceiveWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
            )
        );
        assertEq(CANCEL_AUTHORIZATION_TYPEHASH, keccak256("CancelAuthorization(address authorizer,bytes32 nonce)"));
        assertEq(
            EIP2612_PERMIT_TYPEHASH,
            keccak256("Permit(address owner,address spender,uint256 value,uint256 nonce,uint256 deadline)")
        );
    }

    function test_domainSeparator_isUsdcStyleVersionTwo() public view {
        bytes32 expected = keccak256(
            abi.encode(
                keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"),
                keccak256("USD Coin"),
                keccak256("2"),
                block.chainid,
                address(token)
            )
        );
        assertEq(token.DOMAIN_SEPARATOR(), expected);
    }

    function test_eip712Domain_exposesDomainFields() public view {
        (
            bytes1 fields,
            string memory name,
            string memory version,
            uint256 chainId,
            address verifyingContract,
            bytes32 salt,
            uint256[] memory extensions
        ) = token.eip712Domain();
        assertEq(fields, hex"0f");
        assertEq(name, "USD Coin");
        assertEq(version, "2");
        assertEq(chainId, block.chainid);
        assertEq(verifyingContract, address(token));
        assertEq(salt, bytes32(0));
        assertEq(extensions.length, 0);
    }

    function test_domainSeparator_followsChainId() public {
        bytes32 before = token.DOMAIN_SEPARATOR();
        vm.chainId(block.chainid + 1);
        assertTrue(token.DOMAIN_SEPARATOR() != before);
    }

    /// Forge's EIP-712 implementation, fed the JSON a wallet receives, agrees with the helper's digest.
    function test_receiveDigest_matchesTypedDataJson() public view {
        Eip3009Authorization memory auth = _auth(alice, bob, 12e6, bytes32(uint256(0xabc)));
        string memory json = string.concat(
            '{"types":{"EIP712Domain":[{"name":"name","type":"string"},{"name":"version","type":"string"},{"name":"chainId","type":"uint256"},{"name":"verifyingContract","type":"address"}],',
            '"ReceiveWithAuthorization":[{"name":"from","type":"address"},{"name":"to","type":"address"},{"name":"value","type":"uint256"},{"name":"validAfter","type":"uint256"},{"name":"validBefore","type":"uint256"},{"name":"nonce","type":"bytes32"}]},',
            '"primaryType":"ReceiveWithAuthorization","domain":{"name":"USD Coin","version":"2","chainId":',
            vm.toString(block.chainid),
            ',"verifyingContract":"',
            vm.toString(address(token)),
            '"},"message":{"from":"',
            vm.toString(alice),
            '","to":"',
            vm.toString(bob),
            '","value":"12000000","validAfter":"',
            vm.toString(VALID_AFTER),
            '","validBefore":"',
            vm.toString(VALID_BEFORE),
            '","nonce":"',
            vm.toString(auth.nonce),
            '"}}'
        );
        assertEq(vm.eip712HashTypedData(json), eip3009Digest(address(token), RECEIVE_WITH_AUTHORIZATION_TYPEHASH, auth));
    }

    // ---------------------------------------------------------------- ERC-20 basics

    function test_transferAndTransferFrom() public {
        vm.prank(alice);
        assertTrue(token.transfer(bob, 10e6));
        vm.prank(alice);
        assertTrue(token.approve(relayer, 5e6));
        vm.prank(relayer);
        assertTrue(token.transferFrom(alice, bob, 5e6));
        assertEq(token.balanceOf(bob), 15e6);
        assertEq(token.allowance(alice, relayer), 0);
    }

    function test_transfer_revertsOverBalance() public {
        vm.prank(bob);
        vm.expectRevert(abi.encodeWithSelector(IERC20Errors.ERC20InsufficientBalance.selector, bob, 0, 1));
        // forge-lint: disable-next-line(erc20-unchecked-transfer)
        token.transfer(alice, 1);
    }

    // ---------------------------------------------------------------- faucet and ownership

    function test_mint_byOwner() public {
        vm.prank(admin);
        token.mint(bob, 7);
        assertEq(token.balanceOf(bob), 7);
        assertEq(token.totalSupply(), 1_000e6 + 7);
    }

    function test_mint_revertsForNonOwner() public {
        vm.prank(bob);
        vm.expectRevert(abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, bob));
        token.mint(bob, 7);
    }

    function test_transferOwnership_movesTheFaucet() public {
        vm.prank(admin);
        token.transferOwnership(bob);
        assertEq(token.owner(), bob);

        vm.prank(bob);
        token.mint(bob, 1);
        vm.prank(admin);
        vm.expectRevert(abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, admin));
        token.mint(admin, 1);
    }

    function test_transferOwnership_revertsForNonOwner() public {
        vm.prank(bob);
        vm.expectRevert(abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, bob));
        token.transferOwnership(bob);
    }

    function test_transferOwnership_revertsForZeroAddress() public {
        vm.prank(admin);
        vm.expectRevert(abi.encodeWithSelector(Ownable.OwnableInvalidOwner.selector, address(0)));
        token.transferOwnership(address(0));
    }

    // ---------------------------------------------------------------- EIP-2612 permit

    function test_permit_setsAllowanceAndBumpsNonce() public {
        (uint8 v, bytes32 r, bytes32 s) = signPermit(ALICE_KEY, address(token), alice, bob, 50e6, 0, VALID_BEFORE);
        vm.prank(relayer);
        token.permit(alice, bob, 50e6, VALID_BEFORE, v, r, s);
        assertEq(token.allowance(alice, bob), 50e6);
        assertEq(token.nonces(alice), 1);
    }

    /// The deadline is inclusive, as USDC's.
    function test_permit_deadlineEdges() public {
        uint256 deadline = NOW + 100;
        (uint8 v, bytes32 r, bytes32 s) = signPermit(ALICE_KEY, address(token), alice, bob, 1, 0, deadline);
        uint256 snapshot = vm.snapshotState();

        vm.warp(deadline - 1);
        token.permit(alice, bob, 1, deadline, v, r, s);
        vm.revertToState(snapshot);

        vm.warp(deadline);
        token.permit(alice, bob, 1, deadline, v, r, s);
        vm.revertToState(snapshot);

        vm.warp(deadline + 1);
        vm.expectRevert(abi.encodeWithSelector(StablecoinBase.PermitExpired.selector, deadline));
        token.permit(alice, bob, 1, deadline, v, r, s);
    }

    function test_permit_revertsOnReplay() public {
        (uint8 v, bytes32 r, bytes32 s) = signPermit(ALICE_KEY, address(token), alice, bob, 1, 0, VALID_BEFORE);
        token.permit(alice, bob, 1, VALID_BEFORE, v, r, s);
        vm.expectRevert(StablecoinBase.InvalidPermitSignature.selector);
        token.permit(alice, bob, 1, VALID_BEFORE, v, r, s);
    }

    function test_permit_revertsForOtherKeyOrChangedValue() public {
        (uint8 v, bytes32 r, bytes32 s) = signPermit(BOB_KEY, address(token), alice, bob, 1, 0, VALID_BEFORE);
        vm.expectRevert(StablecoinBase.InvalidPermitSignature.selector);
        token.permit(alice, bob, 1, VALID_BEFORE, v, r, s);

        (v, r, s) = signPermit(ALICE_KEY, address(token), alice, bob, 1, 0, VALID_BEFORE);
        vm.expectRevert(StablecoinBase.InvalidPermitSignature.selector);
        token.permit(alice, bob, 2, VALID_BEFORE, v, r, s);
    }

    function test_permit_contractWallet() public {
        MockERC1271Wallet wallet = new MockERC1271Wallet(alice);
        (uint8 v, bytes32 r, bytes32 s) =
            signPermit(ALICE_KEY, address(token), address(wallet), bob, 3, 0, VALID_BEFORE);
        token.permit(address(wallet), bob, 3, VALID_BEFORE, v, r, s);
        assertEq(token.allowance(address(wallet), bob), 3);
    }

    // ---------------------------------------------------------------- transferWithAuthorization

    function test_transferWithAuthorization_bytes_anyoneSubmits() public {
        Eip3009Authorization memory auth = _auth(alice, bob, 25e6, keccak256("t1"));
        bytes memory sig = signTransferWithAuthorization(ALICE_KEY, address(token), auth);

        vm.expectEmit(true, true, false, false, address(token));
        emit IERC3009.AuthorizationUsed(alice, auth.nonce);
        vm.expectEmit(true, true, false, true, address(token));
        emit IERC20.Transfer(alice, bob, 25e6);
        vm.prank(relayer);
        token.transferWithAuthorization(alice, bob, 25e6, VALID_AFTER, VALID_BEFORE, auth.nonce, sig);

        assertEq(token.balanceOf(bob), 25e6);
        assertTrue(token.authorizationState(alice, auth.nonce));
    }

    function test_transferWithAuthorization_vrs() public {
        Eip3009Authorization memory auth = _auth(alice, bob, 25e6, keccak256("t2"));
        (uint8 v, bytes32 r, bytes32 s) = _split(signTransferWithAuthorization(ALICE_KEY, address(token), auth));
        vm.prank(relayer);
        token.transferWithAuthorization(alice, bob, 25e6, VALID_AFTER, VALID_BEFORE, auth.nonce, v, r, s);
        assertEq(token.balanceOf(bob), 25e6);
    }

    function test_transferWithAuthorization_revertsOnReplay() public {
        Eip3009Authorization memory auth = _auth(alice, bob, 1, keccak256("t3"));
        bytes memory sig = signTransferWithAuthorization(ALICE_KEY, address(token), auth);
        token.transferWithAuthorization(alice, bob, 1, VALID_AFTER, VALID_BEFORE, auth.nonce, sig);
        vm.expectRevert(abi.encodeWithSelector(IERC3009.AuthorizationAlreadyUsed.selector, alice, auth.nonce));
        token.transferWithAuthorization(alice, bob, 1, VALID_AFTER, VALID_BEFORE, auth.nonce, sig);
    }

    function test_transferWithAuthorization_vrs_revertsOnReplay() public {
        Eip3009Authorization memory auth = _auth(alice, bob, 1, keccak256("t3v"));
        (uint8 v, bytes32 r, bytes32 s) = _split(signTransferWithAuthorization(ALICE_KEY, address(token), auth));
        token.transferWithAuthorization(alice, bob, 1, VALID_AFTER, VALID_BEFORE, auth.nonce, v, r, s);
        vm.expectRevert(abi.encodeWithSelector(IERC3009.AuthorizationAlreadyUsed.selector, alice, auth.nonce));
        token.transferWithAuthorization(alice, bob, 1, VALID_AFTER, VALID_BEFORE, auth.nonce, v, r, s);
    }

    function test_transferWithAuthorization_revertsForOtherKey() public {
        Eip3009Authorization memory auth = _auth(alice, bob, 1, keccak256("t4"));
        bytes memory sig = signTransferWithAuthorization(BOB_KEY, address(token), auth);
        vm.expectRevert(IERC3009.InvalidAuthorizationSignature.selector);
        token.transferWithAuthorization(alice, bob, 1, VALID_AFTER, VALID_BEFORE, auth.nonce, sig);
    }

    function test_transferWithAuthorization_vrs_revertsForOtherKey() public {
        Eip3009Authorization memory auth = _auth(alice, bob, 1, keccak256("t4v"));
        (uint8 v, bytes32 r, bytes32 s) = _split(signTransferWithAuthorization(BOB_KEY, address(token), auth));
        vm.expectRevert(IERC3009.InvalidAuthorizationSignature.selector);
        token.transferWithAuthorization(alice, bob, 1, VALID_AFTER, VALID_BEFORE, auth.nonce, v, r, s);
    }

    function test_transferWithAuthorization_rejectsReceiveSignature() public {
        Eip3009Authorization memory auth = _auth(alice, bob, 1, keccak256("t5"));
        bytes memory sig = signReceiveWithAuthorization(ALICE_KEY, address(token), auth);
        vm.expectRevert(IERC3009.InvalidAuthorizationSignature.selector);
        token.transferWithAuthorization(alice, bob, 1, VALID_AFTER, VALID_BEFORE, auth.nonce, sig);
    }

    function test_transferWithAuthorization_revertsOverBalance() public {
        Eip3009Authorization memory auth = _auth(alice, bob, 1_000e6 + 1, keccak256("t6"));
        bytes memory sig = signTransferWithAuthorization(ALICE_KEY, address(token), auth);
        vm.expectRevert(
            abi.encodeWithSelector(IERC20Errors.ERC20InsufficientBalance.selector, alice, 1_000e6, 1_000e6 + 1)
        );
        token.transferWithAuthorization(alice, bob, auth.value, VALID_AFTER, VALID_BEFORE, auth.nonce, sig);
        assertFalse(token.authorizationState(alice, auth.nonce), "a failed transfer leaves the nonce unused");
    }

    /// validAfter is exclusive: at t-1 and t the authorization is not valid yet, at t+1 it is.
    function test_transferWithAuthorization_validAfterEdges() public {
        Eip3009Authorization memory auth = _auth(alice, bob, 1, keccak256("t7"));
        bytes memory sig = signTransferWithAuthorization(ALICE_KEY, address(token), auth);

        vm.warp(VALID_AFTER - 1);
        vm.expectRevert(abi.encodeWithSelector(IERC3009.AuthorizationNotYetValid.selector, VALID_AFTER));
        token.transferWithAuthorization(alice, bob, 1, VALID_AFTER, VALID_BEFORE, auth.nonce, sig);

        vm.warp(VALID_AFTER);
        vm.expectRevert(abi.encodeWithSelector(IERC3009.AuthorizationNotYetValid.selector, VALID_AFTER));
        token.transferWithAuthorization(alice, bob, 1, VALID_AFTER, VALID_BEFORE, auth.nonce, sig);

        vm.warp(VALID_AFTER + 1);
        token.transferWithAuthorization(alice, bob, 1, VALID_AFTER, VALID_BEFORE, auth.nonce, sig);
        assertEq(token.balanceOf(bob), 1);
    }

    /// validBefore is exclusive: valid at t-1, expired at t and t+1.
    function test_transferWithAuthorization_validBeforeEdges() public {
        Eip3009Authorization memory auth = _auth(alice, bob, 1, keccak256("t8"));
        bytes memory sig = signTransferWithAuthorization(ALICE_KEY, address(token), auth);

        vm.warp(VALID_BEFORE);
        vm.expectRevert(abi.encodeWithSelector(IERC3009.AuthorizationExpired.selector, VALID_BEFORE));
        token.transferWithAuthorization(alice, bob, 1, VALID_AFTER, VALID_BEFORE, auth.nonce, sig);

        vm.warp(VALID_BEFORE + 1);
        vm.expectRevert(abi.encodeWithSelector(IERC3009.AuthorizationExpired.selector, VALID_BEFORE));
        token.transferWithAuthorization(alice, bob, 1, VALID_AFTER, VALID_BEFORE, auth.nonce, sig);

        vm.warp(VALID_BEFORE - 1);
        token.transferWithAuthorization(alice, bob, 1, VALID_AFTER, VALID_BEFORE, auth.nonce, sig);
        assertEq(token.balanceOf(bob), 1);
    }

    // ---------------------------------------------------------------- receiveWithAuthorization

    function test_receiveWithAuthorization_bytes_payeeSubmits() public {
        Eip3009Authorization memory auth = _auth(alice, bob, 40e6, keccak256("r1"));
        bytes memory sig = signReceiveWithAuthorization(ALICE_KEY, address(token), auth);

        vm.expectEmit(true, true, false, false, address(token));
        emit IERC3009.AuthorizationUsed(alice, auth.nonce);
        vm.prank(bob);
        token.receiveWithAuthorization(alice, bob, 40e6, VALID_AFTER, VALID_BEFORE, auth.nonce, sig);

        assertEq(token.balanceOf(bob), 40e6);
        assertTrue(token.authorizationState(alice, auth.nonce));
    }

    function test_receiveWithAuthorization_vrs_payeeSubmits() public {
        Eip3009Authorization memory auth = _auth(alice, bob, 40e6, keccak256("r2"));
        (uint8 v, bytes32 r, bytes32 s) = _split(signReceiveWithAuthorization(ALICE_KEY, address(token), auth));
        vm.prank(bob);
        token.receiveWithAuthorization(alice, bob, 40e6, VALID_AFTER, VALID_BEFORE, auth.nonce, v, r, s);
        assertEq(token.balanceOf(bob), 40e6);
    }

    function test_receiveWithAuthorization_bytes_revertsForOtherCaller() public {
        Eip3009Authorization memory auth = _auth(alice, bob, 1, keccak256("r3"));
        bytes memory sig = signReceiveWithAuthorization(ALICE_KEY, address(token), auth);
        vm.prank(relayer);
        vm.expectRevert(abi.encodeWithSelector(IERC3009.CallerNotPayee.selector, relayer, bob));
        token.receiveWithAuthorization(alice, bob, 1, VALID_AFTER, VALID_BEFORE, auth.nonce, sig);
    }

    function test_receiveWithAuthorization_vrs_revertsForOtherCaller() public {
        Eip3009Authorization memory auth = _auth(alice, bob, 1, keccak256("r4"));
        (uint8 v, bytes32 r, bytes32 s) = _split(signReceiveWithAuthorization(ALICE_KEY, address(token), auth));
        vm.prank(relayer);
        vm.expectRevert(abi.encodeWithSelector(IERC3009.CallerNotPayee.selector, relayer, bob));
        token.receiveWithAuthorization(alice, bob, 1, VALID_AFTER, VALID_BEFORE, auth.nonce, v, r, s);
    }

    function test_receiveWithAuthorization_revertsOnReplay() public {
        Eip3009Authorization memory auth = _auth(alice, bob, 1, keccak256("r5"));
        bytes memory sig = signReceiveWithAuthorization(ALICE_KEY, address(token), auth);
        vm.startPrank(bob);
        token.receiveWithAuthorization(alice, bob, 1, VALID_AFTER, VALID_BEFORE, auth.nonce, sig);
        vm.expectRevert(abi.encodeWithSelector(IERC3009.AuthorizationAlreadyUsed.selector, alice, auth.nonce));
        token.receiveWithAuthorization(alice, bob, 1, VALID_AFTER, VALID_BEFORE, auth.nonce, sig);
        vm.stopPrank();
    }

    function test_receiveWithAuthorization_vrs_revertsForOtherKey() public {
        Eip3009Authorization memory auth = _auth(alice, bob, 1, keccak256("r6"));
        (uint8 v, bytes32 r, bytes32 s) = _split(signReceiveWithAuthorization(BOB_KEY, address(token), auth));
        vm.prank(bob);
        vm.expectRevert(IERC3009.InvalidAuthorizationSignature.selector);
        token.receiveWithAuthorization(alice, bob, 1, VALID_AFTER, VALID_BEFORE, auth.nonce, v, r, s);
    }

    function test_receiveWithAuthorization_rejectsTransferSignature() public {
        Eip3009Authorization memory auth = _auth(alice, bob, 1, keccak256("r7"));
        bytes memory sig = signTransferWithAuthorization(ALICE_KEY, address(token), auth);
        vm.prank(bob);
        vm.expectRevert(IERC3009.InvalidAuthorizationSignature.selector);
        token.receiveWithAuthorization(alice, bob, 1, VALID_AFTER, VALID_BEFORE, auth.nonce, sig);
    }

    function test_receiveWithAuthorization_validAfterEdges() public {
        Eip3009Authorization memory auth = _auth(alice, bob, 1, keccak256("r8"));
        bytes memory sig = signReceiveWithAuthorization(ALICE_KEY, address(token), auth);
        vm.startPrank(bob);

        vm.warp(VALID_AFTER - 1);
        vm.expectRevert(abi.encodeWithSelector(IERC3009.AuthorizationNotYetValid.selector, VALID_AFTER));
        token.receiveWithAuthorization(alice, bob, 1, VALID_AFTER, VALID_BEFORE, auth.nonce, sig);

        vm.warp(VALID_AFTER);
        vm.expectRevert(abi.encodeWithSelector(IERC3009.AuthorizationNotYetValid.selector, VALID_AFTER));
        token.receiveWithAuthorization(alice, bob, 1, VALID_AFTER, VALID_BEFORE, auth.nonce, sig);

        vm.warp(VALID_AFTER + 1);
        token.receiveWithAuthorization(alice, bob, 1, VALID_AFTER, VALID_BEFORE, auth.nonce, sig);
        vm.stopPrank();
        assertEq(token.balanceOf(bob), 1);
    }

    function test_receiveWithAuthorization_validBeforeEdges() public {
        Eip3009Authorization memory auth = _auth(alice, bob, 1, keccak256("r9"));
        bytes memory sig = signReceiveWithAuthorization(ALICE_KEY, address(token), auth);
        vm.startPrank(bob);

        vm.warp(VALID_BEFORE);
        vm.expectRevert(abi.encodeWithSelector(IERC3009.AuthorizationExpired.selector, VALID_BEFORE));
        token.receiveWithAuthorization(alice, bob, 1, VALID_AFTER, VALID_BEFORE, auth.nonce, sig);

        vm.warp(VALID_BEFORE + 1);
        vm.expectRevert(abi.encodeWithSelector(IERC3009.AuthorizationExpired.selector, VALID_BEFORE));
        token.receiveWithAuthorization(alice, bob, 1, VALID_AFTER, VALID_BEFORE, auth.nonce, sig);

        vm.warp(VALID_BEFORE - 1);
        token.receiveWithAuthorization(alice, bob, 1, VALID_AFTER, VALID_BEFORE, auth.nonce, sig);
        vm.stopPrank();
        assertEq(token.balanceOf(bob), 1);
    }

    /// The escrow's shape: validAfter 0 is valid from the first second of the chain.
    function test_receiveWithAuthorization_validAfterZero() public {
        Eip3009Authorization memory auth = _auth(alice, bob, 1, keccak256("r10"));
        auth.validAfter = 0;
        bytes memory sig = signReceiveWithAuthorization(ALICE_KEY, address(token), auth);
        vm.prank(bob);
        token.receiveWithAuthorization(alice, bob, 1, 0, VALID_BEFORE, auth.nonce, sig);
        assertEq(token.balanceOf(bob), 1);
    }

    function test_receiveWithAuthorization_contractWalletSigns() public {
        MockERC1271Wallet wallet = new MockERC1271Wallet(alice);
        vm.prank(admin);
        token.mint(address(wallet), 9);
        Eip3009Authorization memory auth = _auth(address(wallet), bob, 9, keccak256("r11"));
        bytes memory sig = signReceiveWithAuthorization(ALICE_KEY, address(token), auth);

        vm.prank(bob);
        token.receiveWithAuthorization(address(wallet), bob, 9, VALID_AFTER, VALID_BEFORE, auth.nonce, sig);
        assertEq(token.balanceOf(bob), 9);
    }

    function test_receiveWithAuthorization_contractWalletRefusesOtherKey() public {
        MockERC1271Wallet wallet = new MockERC1271Wallet(alice);
        vm.prank(admin);
        token.mint(address(wallet), 9);
        Eip3009Authorization memory auth = _auth(address(wallet), bob, 9, keccak256("r12"));
        bytes memory sig = signReceiveWithAuthorization(BOB_KEY, address(token), auth);

        vm.prank(bob);
        vm.expectRevert(IERC3009.InvalidAuthorizationSignature.selector);
        token.receiveWithAuthorization(address(wallet), bob, 9, VALID_AFTER, VALID_BEFORE, auth.nonce, sig);
    }

    function test_authorizationNonces_arePerAuthorizer() public {
        vm.prank(admin);
        token.mint(bob, 1);
        bytes32 nonce = keccak256("shared");
        Eip3009Authorization memory fromAlice = _auth(alice, relayer, 1, nonce);
        Eip3009Authorization memory fromBob = _auth(bob, relayer, 1, nonce);
        bytes memory aliceSig = signReceiveWithAuthorization(ALICE_KEY, address(token), fromAlice);
        bytes memory bobSig = signReceiveWithAuthorization(BOB_KEY, address(token), fromBob);

        vm.startPrank(relayer);
        token.receiveWithAuthorization(alice, relayer, 1, VALID_AFTER, VALID_BEFORE, nonce, aliceSig);
        token.receiveWithAuthorization(bob, relayer, 1, VALID_AFTER, VALID_BEFORE, nonce, bobSig);
        vm.stopPrank();
        assertEq(token.balanceOf(relayer), 2);
    }

    // ---------------------------------------------------------------- cancelAuthorization

    function test_cancelAuthorization_bytes_blocksLaterUse() public {
        bytes32 nonce = keccak256("c1");
        bytes memory cancelSig = signCancelAuthorization(ALICE_KEY, address(token), alice, nonce);

        vm.expectEmit(true, true, false, false, address(token));
        emit IERC3009.AuthorizationCanceled(alice, nonce);
        vm.prank(relayer);
        token.cancelAuthorization(alice, nonce, cancelSig);
        assertTrue(token.authorizationState(alice, nonce));

        Eip3009Authorization memory auth = _auth(alice, bob, 1, nonce);
        bytes memory sig = signReceiveWithAuthorization(ALICE_KEY, address(token), auth);
        vm.prank(bob);
        vm.expectRevert(abi.encodeWithSelector(IERC3009.AuthorizationAlreadyUsed.selector, alice, nonce));
        token.receiveWithAuthorization(alice, bob, 1, VALID_AFTER, VALID_BEFORE, nonce, sig);
    }

    function test_cancelAuthorization_vrs() public {
        bytes32 nonce = keccak256("c2");
        (uint8 v, bytes32 r, bytes32 s) = _split(signCancelAuthorization(ALICE_KEY, address(token), alice, nonce));
        token.cancelAuthorization(alice, nonce, v, r, s);
        assertTrue(token.authorizationState(alice, nonce));
    }

    function test_cancelAuthorization_revertsWhenAlreadyUsed() public {
        Eip3009Authorization memory auth = _auth(alice, bob, 1, keccak256("c3"));
        bytes memory sig = signTransferWithAuthorization(ALICE_KEY, address(token), auth);
        token.transferWithAuthorization(alice, bob, 1, VALID_AFTER, VALID_BEFORE, auth.nonce, sig);

        bytes memory cancelSig = signCancelAuthorization(ALICE_KEY, address(token), alice, auth.nonce);
        vm.expectRevert(abi.encodeWithSelector(IERC3009.AuthorizationAlreadyUsed.selector, alice, auth.nonce));
        token.cancelAuthorization(alice, auth.nonce, cancelSig);
    }

    function test_cancelAuthorization_vrs_revertsWhenCanceledTwice() public {
        bytes32 nonce = keccak256("c4");
        (uint8 v, bytes32 r, bytes32 s) = _split(signCancelAuthorization(ALICE_KEY, address(token), alice, nonce));
        token.cancelAuthorization(alice, nonce, v, r, s);
        vm.expectRevert(abi.encodeWithSelector(IERC3009.AuthorizationAlreadyUsed.selector, alice, nonce));
        token.cancelAuthorization(alice, nonce, v, r, s);
    }

    function test_cancelAuthorization_revertsForOtherKey() public {
        bytes32 nonce = keccak256("c5");
        bytes memory cancelSig = signCancelAuthorization(BOB_KEY, address(token), alice, nonce);
        vm.expectRevert(IERC3009.InvalidAuthorizationSignature.selector);
        token.cancelAuthorization(alice, nonce, cancelSig);
        assertFalse(token.authorizationState(alice, nonce));
    }

    function test_cancelAuthorization_vrs_revertsForOtherNonce() public {
        (uint8 v, bytes32 r, bytes32 s) =
            _split(signCancelAuthorization(ALICE_KEY, address(token), alice, keccak256("c6")));
        vm.expectRevert(IERC3009.InvalidAuthorizationSignature.selector);
        token.cancelAuthorization(alice, keccak256("c7"), v, r, s);
    }

    // ---------------------------------------------------------------- helpers

    function _auth(address from, address to, uint256 value, bytes32 nonce)
        internal
        pure
        returns (Eip3009Authorization memory)
    {
        return Eip3009Authorization({
            from: from, to: to, value: value, validAfter: VALID_AFTER, validBefore: VALID_BEFORE, nonce: nonce
        });
    }

    function _split(bytes memory sig) internal pure returns (uint8 v, bytes32 r, bytes32 s) {
        (r, s) = abi.decode(sig, (bytes32, bytes32));
        v = uint8(sig[64]);
    }
}
