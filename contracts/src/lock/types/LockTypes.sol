// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

/// @notice Where a resource lock may be spent. Stored in the top bit of a lock tag.
/// @dev Enum order equals The Compact's: Multichain = 0, ChainSpecific = 1.
enum Scope {
    Multichain,
    ChainSpecific
}

/// @notice How long a sponsor waits between enabling a forced withdrawal and executing it.
/// @dev Enum order equals The Compact's; durations (seconds) live in LockIdLib.resetPeriodSeconds.
enum ResetPeriod {
    OneSecond,
    FifteenSeconds,
    OneMinute,
    TenMinutes,
    OneHourAndFiveMinutes,
    OneDay,
    SevenDaysAndOneHour,
    ThirtyDays
}

/// @notice Forced-withdrawal state of one (account, lock id).
enum ForcedWithdrawalStatus {
    Disabled,
    Pending,
    Enabled
}

/// @notice One payout of a claim. `claimant = uint256(lockTag) << 160 | recipient`:
/// lockTag 0 withdraws the underlying token to `recipient`; the claimed lock's own tag moves the ERC-6909 balance
/// to `recipient`; any other registered tag converts the balance into that lock for `recipient`.
struct Component {
    uint256 claimant;
    uint256 amount;
}

/// @notice One committed lock of a batch claim: the signed `allocatedAmount` and how it is paid out.
/// @dev The sum of `portions` amounts may not exceed `allocatedAmount`.
struct BatchClaimComponent {
    uint256 id;
    uint256 allocatedAmount;
    Component[] portions;
}

/// @notice Argument of `batchClaim`, ABI-identical to The Compact v1 `BatchClaim`.
/// @dev `witnessTypestring` is the inside of `Mandate(...)` followed by its nested types, without the closing
/// parenthesis (the lock appends it). An empty string means a BatchCompact without a mandate.
struct BatchClaim {
    bytes allocatorData;
    bytes sponsorSignature;
    address sponsor;
    uint256 nonce;
    uint256 expires;
    bytes32 witness;
    string witnessTypestring;
    BatchClaimComponent[] claims;
}
