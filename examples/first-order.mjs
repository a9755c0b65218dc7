#!/usr/bin/env node
// A taker's first order against a running sandbox (`npx sandbox up --detach` first), with the project's clients:
// quote for taker 1 → sign the EIP-712 payload the quote carries → create the order → watch it settle.
//   node examples/first-order.mjs [--state-dir .sandbox] [--lock Permit2Escrow|EIP3009Escrow]
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { privateKeyToAccount } from 'viem/accounts';
import { RestClient } from '../dist/src/clients/index.js';
import { typedDataFromJson } from '../dist/src/contracts/index.js';

const arg = (flag, fallback) => {
  const i = process.argv.indexOf(flag);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const manifest = JSON.parse(readFileSync(join(arg('--state-dir', '.sandbox'), 'sandbox.json'), 'utf8'));
const [origin, destination] = manifest.chains;
const taker = privateKeyToAccount(manifest.accounts.takers[0].privateKey);
const usdc = (chain) => chain.tokens.find((t) => t.symbol === 'USDC').address;
const client = new RestClient({ baseUrl: manifest.api.url, apiKey: manifest.api.apiKeys[0] });

const { quotes, corridor } = await client.requestQuotes({
  inputToken: usdc(origin),
  outputToken: usdc(destination),
  inputAmount: '25000000000', // 25,000 USDC (6 decimals)
  originChainId: origin.chainId,
  destinationChainId: destination.chainId,
  lockType: arg('--lock', 'Permit2Escrow'),
  user: taker.address,
});
const best = quotes[0];
console.log(`${corridor}: ${quotes.length} quotes, best ${best.outputAmount} from ${best.solverId} (${best.feeBps} bps)`);

const signature = await taker.signTypedData(typedDataFromJson(best.typedData));
const order = await client.createOrder({ quoteId: best.quoteId, signature, nonce: best.nonce });
console.log(`order ${order.orderId}: ${order.status}, deposit ${order.originTxHash}`);

for (let i = 0; i < 100; i++) {
  const detail = await client.getOrder(order.orderId);
  if (detail.status === 'Claimed' || detail.status === 'Refunded') {
    console.log(`order ${detail.orderId}: ${detail.status}; fill ${detail.destinationTxHash}; attestation ${detail.oracleAttestationHash}`);
    process.exit(0);
  }
  await new Promise((resolve) => setTimeout(resolve, 100));
}
console.error('the order did not settle within 10 s');
process.exit(1);
