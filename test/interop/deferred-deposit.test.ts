/**
 * The deferred rail's deposit as a third party builds it from docs/deferred.md: the Permit2 witness transfer from
 * @uniswap/permit2-sdk (witness `Deposit(bytes32 account)`, account = keccak256(workspace id)), signed with ethers v6,
 * posted with fetch, and the credit read back from DeferredVault with ethers. None of the project's signing code.
 */
import { PERMIT2_ADDRESS, type PermitTransferFrom, SignatureTransfer } from '@uniswap/permit2-sdk';
import { Contract, JsonRpcProvider, Wallet, hexlify, id, randomBytes } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOwnSandbox, type OwnSandbox } from '../support/conformance/own-sandbox.js';

let own: OwnSandbox;
beforeAll(async () => {
  own = await startOwnSandbox({ solvers: 0 });
}, 120_000);
afterAll(() => own?.stop());

const VAULT_ABI = ['function credit(bytes32 account, address token) view returns (uint256)'];

describe('DeferredVault deposit built with @uniswap/permit2-sdk and ethers', () => {
  it('credits the workspace; a witness for another account is refused naming the signature', async () => {
    const chain = own.file.chains![0]!;
    const provider = new JsonRpcProvider(chain.rpcUrl, chain.chainId, { staticNetwork: true });
    const owner = new Wallet(own.file.accounts!.takers![0]!.privateKey, provider);
    const usdc = chain.tokens.find((t) => t.symbol === 'USDC')!.address;
    const vault = chain.contracts.DeferredVault!;
    const workspaceId = own.file.api!.workspaceId!;
    const latest = await provider.getBlock('latest');

    const deposit = async (account: string) => {
      const permit: PermitTransferFrom = {
        permitted: { token: usdc, amount: '2500000' },
        spender: vault,
        nonce: BigInt(hexlify(randomBytes(31))).toString(),
        deadline: latest!.timestamp + 3_600,
      };
      const data = SignatureTransfer.getPermitData(permit, PERMIT2_ADDRESS, chain.chainId, {
        witnessTypeName: 'Deposit',
        witnessType: { Deposit: [{ name: 'account', type: 'bytes32' }] },
        witness: { account },
      });
      const signature = await owner.signTypedData(
        data.domain as Record<string, unknown>,
        data.types,
        data.values as unknown as Record<string, unknown>,
      );
      const response = await fetch(`${own.url}/api/v1/deferred/deposit`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${own.apiKey}` },
        body: JSON.stringify({
          chainId: chain.chainId,
          token: usdc,
          amount: permit.permitted.amount,
          owner: owner.address,
          nonce: permit.nonce,
          deadline: String(permit.deadline),
          signature,
        }),
      });
      return { status: response.status, body: (await response.json()) as Record<string, any> };
    };

    const account = id(workspaceId);
    const credit = new Contract(vault, VAULT_ABI, provider).getFunction('credit');
    const before = (await credit(account, usdc)) as bigint;
    const credited = await deposit(account);
    expect(credited.status).toBe(201);
    expect(credited.body).toMatchObject({ object: 'deferred_deposit', status: 'credited', amount: '2500000' });
    expect((await credit(account, usdc)) as bigint).toBe(before + 2_500_000n);

    const elsewhere = await deposit(id('ws_someone_else'));
    expect(elsewhere.status).toBe(422);
    expect(elsewhere.body.error).toMatchObject({ code: 'deposit_failed', param: 'signature' });
    expect((await credit(account, usdc)) as bigint).toBe(before + 2_500_000n);
    provider.destroy();
  }, 60_000);
});
