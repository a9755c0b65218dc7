/**
 * An outside check of two documented claims (docs/tokens-and-permit2.md, docs/devnet.md):
 *
 * - "`SignatureTransfer` answers at Permit2's canonical address exactly like Uniswap's Permit2 does for signature
 *   transfers": permits are built with Uniswap's own SDK (`@uniswap/permit2-sdk`, its typed data and its
 *   `SignatureProvider`, which reads the nonce bitmap with the SDK's bundled Permit2 ABI over an ethers v5
 *   provider), signed and sent with ethers v6, against the ABI of Uniswap's `ISignatureTransfer` written out by hand.
 * - "the stablecoins sign like USDC": EIP-2612 `permit` and ERC-3009 `transferWithAuthorization` /
 *   `receiveWithAuthorization` / `cancelAuthorization` signed with ethers from the EIPs' type strings, with the
 *   signing domain read through ERC-5267 `eip712Domain()`, in both the `v, r, s` and the `bytes signature` forms.
 *
 * Nothing of ours is imported except what starts the chains; no viem.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JsonRpcProvider as V5Provider } from '@ethersproject/providers';
import {
  PERMIT2_ADDRESS,
  type PermitBatchTransferFrom,
  type PermitTransferFrom,
  SignatureProvider,
  SignatureTransfer,
} from '@uniswap/permit2-sdk';
import {
  Contract,
  type ContractTransactionResponse,
  Interface,
  JsonRpcProvider,
  Signature,
  TypedDataEncoder,
  type TypedDataField,
  Wallet,
  hexlify,
  randomBytes,
} from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultChains } from '../../src/devnet/chain-config.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/sandbox.js';

// ---- Uniswap Permit2's ISignatureTransfer (and its errors), human-readable ----------------------------------

const TOKEN_PERMISSIONS = 'tuple(address token, uint256 amount)';
const PERMIT_TRANSFER_FROM = `tuple(${TOKEN_PERMISSIONS} permitted, uint256 nonce, uint256 deadline)`;
const PERMIT_BATCH_TRANSFER_FROM = `tuple(${TOKEN_PERMISSIONS}[] permitted, uint256 nonce, uint256 deadline)`;
const TRANSFER_DETAILS = 'tuple(address to, uint256 requestedAmount)';
const PERMIT2_ABI = [
  `function permitTransferFrom(${PERMIT_TRANSFER_FROM} permit, ${TRANSFER_DETAILS} transferDetails, address owner, bytes signature)`,
  `function permitTransferFrom(${PERMIT_BATCH_TRANSFER_FROM} permit, ${TRANSFER_DETAILS}[] transferDetails, address owner, bytes signature)`,
  `function permitWitnessTransferFrom(${PERMIT_TRANSFER_FROM} permit, ${TRANSFER_DETAILS} transferDetails, address owner, bytes32 witness, string witnessTypeString, bytes signature)`,
  `function permitWitnessTransferFrom(${PERMIT_BATCH_TRANSFER_FROM} permit, ${TRANSFER_DETAILS}[] transferDetails, address owner, bytes32 witness, string witnessTypeString, bytes signature)`,
  'function nonceBitmap(address owner, uint256 wordPos) view returns (uint256)',
  'function invalidateUnorderedNonces(uint256 wordPos, uint256 mask)',
  'function DOMAIN_SEPARATOR() view returns (bytes32)',
  'event UnorderedNonceInvalidation(address indexed owner, uint256 word, uint256 mask)',
  'error InvalidAmount(uint256 maxAmount)',
  'error LengthMismatch()',
  'error SignatureExpired(uint256 signatureDeadline)',
  'error InvalidNonce()',
  'error InvalidSignature()',
  'error InvalidSignatureLength()',
  'error InvalidSigner()',
  'error InvalidContractSignature()',
];

// ---- the token interfaces from the EIPs (ERC-20, EIP-2612, ERC-3009, ERC-5267) ------------------------------

const TOKEN_ABI = [
  'function balanceOf(address) view returns (uint256)',
  'function allowance(address owner, address spender) view returns (uint256)',
  'function approve(address spender, uint256 amount) returns (bool)',
  'function nonces(address owner) view returns (uint256)',
  'function DOMAIN_SEPARATOR() view returns (bytes32)',
  'function eip712Domain() view returns (bytes1 fields, string name, string version, uint256 chainId, address verifyingContract, bytes32 salt, uint256[] extensions)',
  'function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)',
  'function authorizationState(address authorizer, bytes32 nonce) view returns (bool)',
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)',
  'function receiveWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
  'function receiveWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)',
  'function cancelAuthorization(address authorizer, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
];
const PERMIT_TYPES: Record<string, TypedDataField[]> = {
  Permit: [
    { name: 'owner', type: 'address' },
    { name: 'spender', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
  ],
};
const authorization = (primaryType: string): Record<string, TypedDataField[]> => ({
  [primaryType]: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
});
const CANCEL_TYPES: Record<string, TypedDataField[]> = {
  CancelAuthorization: [
    { name: 'authorizer', type: 'address' },
    { name: 'nonce', type: 'bytes32' },
  ],
};

// ---- the chain --------------------------------------------------------------------------------------------

let stateDir: string;
let sandbox: Sandbox;
let provider: JsonRpcProvider;
let chainId: number;
let usdc: string;
let usdt: string;
let owner: Wallet;
let spender: Wallet;
let stranger: Wallet;
let sdkSignatures: SignatureProvider;
const permit2Errors = new Interface(PERMIT2_ABI);

beforeAll(async () => {
  stateDir = await mkdtemp(join(tmpdir(), 'permit2-interop-'));
  sandbox = await startSandbox({ stateDir, chains: defaultChains(1, 'any'), fresh: true });
  const chain = sandbox.manifest.chains[0]!;
  chainId = Number(chain.chainId);
  provider = new JsonRpcProvider(chain.rpcUrl, chainId, { staticNetwork: true, polling: true, pollingInterval: 50, cacheTimeout: -1 });
  usdc = chain.tokens.find((t) => t.symbol === 'USDC')!.address;
  usdt = chain.tokens.find((t) => t.symbol === 'USDT')!.address;
  // Takers hold both tokens and have approved Permit2, as the manifest says.
  const [taker, other, third] = sandbox.manifest.accounts.takers;
  owner = new Wallet(taker!.privateKey, provider);
  spender = new Wallet(other!.privateKey, provider);
  stranger = new Wallet(third!.privateKey, provider);
  sdkSignatures = new SignatureProvider(new V5Provider(chain.rpcUrl, chainId), PERMIT2_ADDRESS);
}, 60_000);

afterAll(async () => {
  provider?.destroy();
  await sandbox?.stop();
  await rm(stateDir, { recursive: true, force: true });
});

async function mined(tx: Promise<ContractTransactionResponse>) {
  const receipt = await (await tx).wait();
  if (receipt === null || receipt.status !== 1) throw new Error('transaction failed');
  return receipt;
}

/** The custom error a call reverts with, decoded with Permit2's upstream error ABI. */
async function permit2Revert(call: Promise<unknown>): Promise<{ name: string; args: readonly unknown[] }> {
  try {
    await call;
  } catch (error) {
    const data =
      (error as { data?: string; info?: { error?: { data?: string } } }).data ??
      (error as { info?: { error?: { data?: string } } }).info?.error?.data;
    const parsed = data === undefined ? null : permit2Errors.parseError(data);
    if (parsed === null) throw new Error(`reverted without a Permit2 error: ${(error as Error).message}`);
    return { name: parsed.name, args: [...parsed.args] };
  }
  throw new Error('expected a revert');
}

const balance = (token: string, who: string): Promise<bigint> => new Contract(token, TOKEN_ABI, provider).getFunction('balanceOf')(who);
const chainTime = async (): Promise<number> => (await provider.getBlock('latest'))!.timestamp;
/** Unordered nonces as the SDK's docs use them: any unused 256-bit number; a random one per test. */
const freshNonce = (): bigint => BigInt(hexlify(randomBytes(31)));

/** Signs the SDK's typed data with ethers v6 (the SDK's `types` include no EIP712Domain entry). */
function signSdkData(data: ReturnType<typeof SignatureTransfer.getPermitData>, signer: Wallet = owner): Promise<string> {
  return signer.signTypedData(data.domain as Record<string, unknown>, data.types, data.values as unknown as Record<string, unknown>);
}

describe('Permit2 signature transfers, built with @uniswap/permit2-sdk and sent with ethers v6', () => {
  it('permitTransferFrom: the spender redeems the owner’s permit once; the SDK sees the nonce used; a replay reverts InvalidNonce', async () => {
    const permit2 = new Contract(PERMIT2_ADDRESS, PERMIT2_ABI, spender);
    const permit: PermitTransferFrom = {
      permitted: { token: usdc, amount: 5_000_000n.toString() },
      spender: spender.address,
      nonce: freshNonce().toString(),
      deadline: (await chainTime()) + 600,
    };
    const signature = await signSdkData(SignatureTransfer.getPermitData(permit, PERMIT2_ADDRESS, chainId));
    expect(await sdkSignatures.isNonceUsed(owner.address, permit.nonce)).toBe(false);

    const before = await balance(usdc, stranger.address);
    const transfer = permit2.getFunction('permitTransferFrom(((address,uint256),uint256,uint256),(address,uint256),address,bytes)');
    const args = [
      { permitted: permit.permitted, nonce: permit.nonce, deadline: permit.deadline },
      { to: stranger.address, requestedAmount: 3_000_000n },
      owner.address,
      signature,
    ];
    await mined(transfer(...args));
    expect((await balance(usdc, stranger.address)) - before).toBe(3_000_000n);
    expect(await sdkSignatures.isNonceUsed(owner.address, permit.nonce)).toBe(true);

    expect((await permit2Revert(transfer.staticCall(...args))).name).toBe('InvalidNonce');
  }, 60_000);

  it('refuses what Uniswap’s Permit2 refuses: more than permitted, an expired permit, another signer, a bad length', async () => {
    const permit2 = new Contract(PERMIT2_ADDRESS, PERMIT2_ABI, spender);
    const transfer = permit2.getFunction('permitTransferFrom(((address,uint256),uint256,uint256),(address,uint256),address,bytes)');
    const now = await chainTime();
    const make = (deadline: number): PermitTransferFrom => ({
      permitted: { token: usdc, amount: '1000000' },
      spender: spender.address,
      nonce: freshNonce().toString(),
      deadline,
    });
    const call = async (permit: PermitTransferFrom, requested: bigint, signer: Wallet = owner, mangle = (s: string) => s) =>
      transfer.staticCall(
        { permitted: permit.permitted, nonce: permit.nonce, deadline: permit.deadline },
        { to: stranger.address, requestedAmount: requested },
        owner.address,
        mangle(await signSdkData(SignatureTransfer.getPermitData(permit, PERMIT2_ADDRESS, chainId), signer)),
      );

    const tooMuch = await permit2Revert(call(make(now + 600), 1_000_001n));
    expect(tooMuch).toEqual({ name: 'InvalidAmount', args: [1_000_000n] });

    const expiredAt = now - 1;
    expect(await permit2Revert(call(make(expiredAt), 1n))).toEqual({ name: 'SignatureExpired', args: [BigInt(expiredAt)] });

    expect((await permit2Revert(call(make(now + 600), 1n, stranger))).name).toBe('InvalidSigner');
    expect((await permit2Revert(call(make(now + 600), 1n, owner, (s) => `${s}00`))).name).toBe('InvalidSignatureLength');
  }, 60_000);

  it('permitWitnessTransferFrom (batch) with an SDK witness: both tokens move, and a different witness is refused', async () => {
    const permit2 = new Contract(PERMIT2_ADDRESS, PERMIT2_ABI, spender);
    // A witness type named after TokenPermissions sorts after it, so Permit2's type string lists TokenPermissions first.
    const witness = {
      witnessTypeName: 'TransferNote',
      witnessType: { TransferNote: [{ name: 'reference', type: 'bytes32' }] },
      witness: { reference: hexlify(randomBytes(32)) },
    };
    const permit: PermitBatchTransferFrom = {
      permitted: [
        { token: usdc, amount: '2000000' },
        { token: usdt, amount: '4000000' },
      ],
      spender: spender.address,
      nonce: freshNonce().toString(),
      deadline: (await chainTime()) + 600,
    };
    const data = SignatureTransfer.getPermitData(permit, PERMIT2_ADDRESS, chainId, witness);
    const signature = await signSdkData(data);
    const witnessHash = hashStruct('TransferNote', witness.witnessType, witness.witness);
    const witnessTypeString = 'TransferNote witness)TokenPermissions(address token,uint256 amount)TransferNote(bytes32 reference)';
    const transfer = permit2.getFunction(
      'permitWitnessTransferFrom(((address,uint256)[],uint256,uint256),(address,uint256)[],address,bytes32,string,bytes)',
    );
    const args = (hash: string) => [
      { permitted: permit.permitted, nonce: permit.nonce, deadline: permit.deadline },
      [
        { to: stranger.address, requestedAmount: 2_000_000n },
        { to: stranger.address, requestedAmount: 1_500_000n },
      ],
      owner.address,
      hash,
      witnessTypeString,
      signature,
    ];

    const otherWitness = hashStruct('TransferNote', witness.witnessType, { reference: hexlify(randomBytes(32)) });
    expect((await permit2Revert(transfer.staticCall(...args(otherWitness)))).name).toBe('InvalidSigner');

    const [usdcBefore, usdtBefore] = await Promise.all([balance(usdc, stranger.address), balance(usdt, stranger.address)]);
    await mined(transfer(...args(witnessHash)));
    expect((await balance(usdc, stranger.address)) - usdcBefore).toBe(2_000_000n);
    expect((await balance(usdt, stranger.address)) - usdtBefore).toBe(1_500_000n);
    expect(await sdkSignatures.isNonceUsed(owner.address, permit.nonce)).toBe(true);
  }, 60_000);

  it('invalidateUnorderedNonces: emits UnorderedNonceInvalidation, the SDK reads the bits as used, permits with them revert', async () => {
    const permit2 = new Contract(PERMIT2_ADDRESS, PERMIT2_ABI, owner);
    const wordPos = BigInt(hexlify(randomBytes(8)));
    const mask = (1n << 3n) | (1n << 200n);
    const receipt = await mined(permit2.getFunction('invalidateUnorderedNonces')(wordPos, mask));
    const event = receipt.logs
      .map((log) => permit2.interface.parseLog(log))
      .find((parsed) => parsed?.name === 'UnorderedNonceInvalidation');
    expect(event?.args.owner).toBe(owner.address);
    expect(event?.args.word).toBe(wordPos);
    expect(event?.args.mask).toBe(mask);

    const nonce = (wordPos << 8n) | 200n;
    expect(await sdkSignatures.isNonceUsed(owner.address, nonce.toString())).toBe(true);
    expect(await sdkSignatures.isNonceUsed(owner.address, ((wordPos << 8n) | 4n).toString())).toBe(false);
    expect(BigInt((await sdkSignatures.getNonceBitmap(owner.address, wordPos.toString())).toString())).toBe(mask);

    const permit: PermitTransferFrom = {
      permitted: { token: usdc, amount: '1' },
      spender: spender.address,
      nonce: nonce.toString(),
      deadline: (await chainTime()) + 600,
    };
    const signature = await signSdkData(SignatureTransfer.getPermitData(permit, PERMIT2_ADDRESS, chainId));
    const call = new Contract(PERMIT2_ADDRESS, PERMIT2_ABI, spender)
      .getFunction('permitTransferFrom(((address,uint256),uint256,uint256),(address,uint256),address,bytes)')
      .staticCall(
        { permitted: permit.permitted, nonce: permit.nonce, deadline: permit.deadline },
        { to: stranger.address, requestedAmount: 1n },
        owner.address,
        signature,
      );
    expect((await permit2Revert(call)).name).toBe('InvalidNonce');
  }, 60_000);
});

/** EIP-712 struct hash with ethers' encoder: the witness hash Permit2 is given alongside the SDK's signature. */
function hashStruct(primaryType: string, types: Record<string, TypedDataField[]>, value: Record<string, unknown>): string {
  return TypedDataEncoder.hashStruct(primaryType, types, value);
}

describe('the USDC-like stablecoin, signed with ethers from the EIPs', () => {
  async function domainOf(token: string) {
    const [, name, version, domainChainId, verifyingContract] = await new Contract(token, TOKEN_ABI, provider).getFunction(
      'eip712Domain',
    )();
    return {
      name: name as string,
      version: version as string,
      chainId: domainChainId as bigint,
      verifyingContract: verifyingContract as string,
    };
  }

  it('EIP-2612 permit (v, r, s) sets the allowance and bumps nonces; the same signature again reverts', async () => {
    const token = new Contract(usdc, TOKEN_ABI, stranger);
    const domain = await domainOf(usdc);
    expect(domain.chainId).toBe(BigInt(chainId));
    const nonce: bigint = await token.getFunction('nonces')(owner.address);
    const deadline = (await chainTime()) + 600;
    const value = 123_456n;
    const { v, r, s } = Signature.from(
      await owner.signTypedData(domain, PERMIT_TYPES, { owner: owner.address, spender: spender.address, value, nonce, deadline }),
    );
    await mined(token.getFunction('permit')(owner.address, spender.address, value, deadline, v, r, s));
    expect(await token.getFunction('allowance')(owner.address, spender.address)).toBe(value);
    expect(await token.getFunction('nonces')(owner.address)).toBe(nonce + 1n);
    await expect(token.getFunction('permit').staticCall(owner.address, spender.address, value, deadline, v, r, s)).rejects.toThrow();
  }, 60_000);

  it('ERC-3009 transferWithAuthorization in both forms, receiveWithAuthorization by the payee only, cancelAuthorization', async () => {
    const domain = await domainOf(usdc);
    const window = async () => ({ validAfter: 0, validBefore: (await chainTime()) + 600 });
    const authorize = async (primaryType: string, to: string, value: bigint) => {
      const nonce = hexlify(randomBytes(32));
      const { validAfter, validBefore } = await window();
      const signature = await owner.signTypedData(domain, authorization(primaryType), {
        from: owner.address,
        to,
        value,
        validAfter,
        validBefore,
        nonce,
      });
      return { args: [owner.address, to, value, validAfter, validBefore, nonce] as const, signature, nonce };
    };
    const anyone = new Contract(usdc, TOKEN_ABI, stranger);
    const vrs = (signature: string) => {
      const { v, r, s } = Signature.from(signature);
      return [v, r, s] as const;
    };

    // v, r, s form, sent by anyone.
    const first = await authorize('TransferWithAuthorization', spender.address, 1_000n);
    const before = await balance(usdc, spender.address);
    await mined(
      anyone.getFunction('transferWithAuthorization(address,address,uint256,uint256,uint256,bytes32,uint8,bytes32,bytes32)')(
        ...first.args,
        ...vrs(first.signature),
      ),
    );
    expect((await balance(usdc, spender.address)) - before).toBe(1_000n);
    expect(await anyone.getFunction('authorizationState')(owner.address, first.nonce)).toBe(true);
    await expect(
      anyone
        .getFunction('transferWithAuthorization(address,address,uint256,uint256,uint256,bytes32,bytes)')
        .staticCall(...first.args, first.signature),
    ).rejects.toThrow();

    // bytes signature form (USDC v2.2).
    const second = await authorize('TransferWithAuthorization', spender.address, 2_000n);
    await mined(
      anyone.getFunction('transferWithAuthorization(address,address,uint256,uint256,uint256,bytes32,bytes)')(
        ...second.args,
        second.signature,
      ),
    );
    expect((await balance(usdc, spender.address)) - before).toBe(3_000n);

    // receiveWithAuthorization: only the payee may submit it.
    const third = await authorize('ReceiveWithAuthorization', spender.address, 500n);
    await expect(
      anyone
        .getFunction('receiveWithAuthorization(address,address,uint256,uint256,uint256,bytes32,bytes)')
        .staticCall(...third.args, third.signature),
    ).rejects.toThrow();
    const payee = new Contract(usdc, TOKEN_ABI, spender);
    await mined(
      payee.getFunction('receiveWithAuthorization(address,address,uint256,uint256,uint256,bytes32,uint8,bytes32,bytes32)')(
        ...third.args,
        ...vrs(third.signature),
      ),
    );
    expect((await balance(usdc, spender.address)) - before).toBe(3_500n);

    // A cancelled authorization can no longer be used.
    const fourth = await authorize('TransferWithAuthorization', spender.address, 700n);
    const cancel = Signature.from(await owner.signTypedData(domain, CANCEL_TYPES, { authorizer: owner.address, nonce: fourth.nonce }));
    await mined(anyone.getFunction('cancelAuthorization')(owner.address, fourth.nonce, cancel.v, cancel.r, cancel.s));
    expect(await anyone.getFunction('authorizationState')(owner.address, fourth.nonce)).toBe(true);
    await expect(
      anyone
        .getFunction('transferWithAuthorization(address,address,uint256,uint256,uint256,bytes32,bytes)')
        .staticCall(...fourth.args, fourth.signature),
    ).rejects.toThrow();
  }, 60_000);
});
