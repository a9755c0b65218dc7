// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";

/// @notice ERC-1271 smart account: accepts digests signed by its owner key.
contract OwnedSmartAccount {
    address public immutable OWNER;

    constructor(address owner) {
        OWNER = owner;
    }

    function isValidSignature(bytes32 digest, bytes calldata signature) external view returns (bytes4) {
        (address signer,,) = ECDSA.tryRecover(digest, signature);
        return signer == OWNER ? bytes4(0x1626ba7e) : bytes4(0xffffffff);
    }
}

/// @notice Refuses native coin: withdrawals to it must fail loudly.
contract NativeRefuser {
    receive() external payable {
        revert("no native");
    }
}
