import { StablecoinBaseArtifact } from './artifacts/StablecoinBase.js';

/**
 * The ABI of the sandbox stablecoins, from their compiled artifact: USDC (ERC-3009 + Permit2) and USDT (Permit2 only)
 * both extend StablecoinBase, whose `mint(to, amount)` only the deployer may call. Faucets, genesis funding and
 * tests encode mints with this ABI instead of hand-written fragments that could drift from the contract.
 */
export const sandboxStablecoinAbi = StablecoinBaseArtifact.abi;
