/**
 * The sandbox's signed transactions read from outside, with ethers v6 (an EIP-1559 implementation the code does not
 * use). The service's relayers and the reference solvers sign with the project's own encoder; here one order settles
 * through `fetch` alone (the taker signs its EIP-712 payload with ethers), and then every transaction the order caused
 * is fetched raw from the chains (`eth_getRawTransactionByHash`) and:
 * - ethers parses it back to the sender and the fields the node reports, and its hash is the node's;
 * - ethers' own wallet, given the sender's key from sandbox.json, signs those fields to the same bytes (both sign
 *   with RFC 6979 nonces and low s).
 */
import { Interface, JsonRpcProvider, Transaction, Wallet, keccak256 } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OwnSandbox, startOwnSandbox } from '../support/conformance/own-sandbox.js';
import { ERC20_ABI, ESCROW_ABI, OUTPUT_SETTLER_ABI, until } from './upstream-oif.js';

/** The oracle legs as spec/onchain.md and docs/orders-and-settlement.md give them. */
const ORACLE_ABI = [
  'function submit(address source, bytes[] payloads) payable returns (uint256 refund)',
  'function receiveAttestation(uint256 remoteChainId, bytes32 remoteOracle, bytes32 application, bytes[] payloads)',
];

let own: OwnSandbox;

beforeAll(async () => {
  own = await startOwnSandbox();
}, 120_000);
afterAll(async () => {
  await own?.stop();
});

async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${own.url}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${own.apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return JSON.parse(text) as T;
}

interface TypedDataJson {
  domain: Record<string, unknown>;
  types: Record<string, { name: string; type: string }[]>;
  primaryType: string;
  message: Record<string, unknown>;
}

describe('signed transactions as ethers reads them', () => {
  it('every transaction of a settled order parses back to its sender and fields, and ethers signs them to the same bytes', async () => {
    const chains = own.file.chains!;
    const accounts = own.file.accounts!;
    const [alpha, beta] = chains;
    const usdc = (chain: typeof alpha) => chain!.tokens.find((token) => token.symbol === 'USDC')!.address;
    const providers = chains.map((chain) => new JsonRpcProvider(chain.rpcUrl, chain.chainId, { staticNetwork: true }));
    const before = await Promise.all(providers.map((provider) => provider.getBlockNumber()));

    // One order, by hand: quote, the taker's EIP-712 signature with ethers, POST /orders, until Claimed.
    const taker = new Wallet(accounts.takers![0]!.privateKey);
    const quotes = await api<{ quotes: { quoteId: string; nonce: string; typedData: TypedDataJson }[] }>('POST', '/quotes', {
      originChainId: alpha!.chainId,
      destinationChainId: beta!.chainId,
      inputToken: usdc(alpha),
      outputToken: usdc(beta),
      inputAmount: '25000000000',
      user: taker.address,
      lockType: 'Permit2Escrow',
    });
    const quote = quotes.quotes[0]!;
    const { EIP712Domain: _domainType, ...types } = quote.typedData.types;
    const signature = await taker.signTypedData(quote.typedData.domain, types, quote.typedData.message);
    const created = await api<{ orderId: string }>('POST', '/orders', {
      quoteId: quote.quoteId,
      signature,
      nonce: quote.nonce,
      user: taker.address,
    });
    await until(async () => {
      const order = await api<{ status: string }>('GET', `/orders/${created.orderId}`);
      return order.status === 'Claimed' ? order : undefined;
    }, 'the order to be Claimed');

    // The keys of everyone who sends for an order: the service's relayers and the reference solvers.
    const keys = new Map<string, string>();
    for (const account of [...(accounts.serviceRelayer ?? []), ...(accounts.oracleRelayer ?? []), ...(accounts.solvers ?? [])]) {
      keys.set(new Wallet(account.privateKey).address.toLowerCase(), account.privateKey);
    }
    // The contracts' ABIs as an outside client writes them: every call's data must decode with one and encode back to
    // the same bytes.
    const interfaces = [ESCROW_ABI, OUTPUT_SETTLER_ABI, ORACLE_ABI, ERC20_ABI].map((abi) => new Interface(abi));
    const called = new Set<string>();
    const senders = new Set<string>();
    let read = 0;
    for (const [index, provider] of providers.entries()) {
      const head = await provider.getBlockNumber();
      for (let number = before[index]! + 1; number <= head; number++) {
        const block = await provider.getBlock(number);
        for (const hash of block?.transactions ?? []) {
          const raw = (await provider.send('eth_getRawTransactionByHash', [hash])) as string;
          const node = await provider.getTransaction(hash);
          const parsed = Transaction.from(raw);
          expect(parsed.type).toBe(2);
          expect(parsed.hash).toBe(hash);
          expect(keccak256(raw)).toBe(hash);
          expect(parsed.from).toBe(node!.from);
          expect([parsed.to, parsed.nonce, parsed.gasLimit, parsed.value, parsed.data]).toEqual([
            node!.to,
            node!.nonce,
            node!.gasLimit,
            node!.value,
            node!.data,
          ]);
          expect([parsed.chainId, parsed.maxFeePerGas, parsed.maxPriorityFeePerGas]).toEqual([
            node!.chainId,
            node!.maxFeePerGas,
            node!.maxPriorityFeePerGas,
          ]);
          const key = keys.get(parsed.from!.toLowerCase());
          if (key === undefined) continue;
          const decoded = interfaces
            .map((contract) => ({ contract, call: contract.parseTransaction({ data: parsed.data }) }))
            .find(({ call }) => call !== null);
          expect(decoded, `calldata ${parsed.data.slice(0, 10)} of ${hash} decodes with none of the documented ABIs`).toBeDefined();
          expect(decoded!.contract.encodeFunctionData(decoded!.call!.fragment, decoded!.call!.args)).toBe(parsed.data);
          called.add(decoded!.call!.name);
          senders.add(parsed.from!.toLowerCase());
          const unsigned = Transaction.from({ ...parsed.toJSON(), signature: null, hash: null, from: null });
          expect(await new Wallet(key).signTransaction(unsigned)).toBe(raw);
          read += 1;
        }
      }
    }
    // The deposit and the oracle legs (the service's relayers), the fill and the claim (a reference solver).
    expect(read).toBeGreaterThanOrEqual(5);
    expect(senders.size).toBeGreaterThanOrEqual(3);
    // The service's calls (the deposit and both oracle legs, encoded by src/contracts/function-call.ts) among them.
    expect([...called]).toEqual(expect.arrayContaining(['openFor', 'submit', 'receiveAttestation']));
  }, 120_000);
});
