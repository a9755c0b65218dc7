#!/usr/bin/env node
// A taker's first order against a running sandbox (`npx sandbox up --detach` first), with the project's clients:
// quote for taker 1 → sign the EIP-712 payload the quote carries → create the order → watch it settle.
//   node examples/first-order.mjs [--state-dir .sandbox] [--lock Permit2Escrow|EIP3009Escrow]
// Exit codes: 0 settled, 1 did not settle, 2 no sandbox to talk to (the message says how to start one).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { privateKeyToAccount } from 'viem/accounts';
import { RestClient } from '../dist/src/clients/index.js';
import { typedDataFromJson } from '../dist/src/contracts/index.js';

const arg = (flag, fallback) => {
  const i = process.argv.indexOf(flag);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const stateDir = arg('--state-dir', '.sandbox');

// Ordinary mistakes (no sandbox, a stopped one, a half-written sandbox.json) get one line saying what to do, not a stack.
function fail(message) {
  console.error(`error: ${message}`);
  process.exit(2);
}
process.on('uncaughtException', (error) => {
  const refused = error?.cause?.code === 'ECONNREFUSED' || /fetch failed|ECONNREFUSED/.test(String(error?.message));
  if (refused)
    fail(
      `the sandbox service at ${manifest?.api?.url ?? '?'} does not answer: is it running? (\`npx sandbox status --state-dir ${stateDir}\`)`,
    );
  fail(error?.message ?? String(error));
});

function readManifest() {
  const path = join(stateDir, 'sandbox.json');
  let text;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    fail(`no sandbox at ${path}: start one with \`npx sandbox up --detach --state-dir ${stateDir}\``);
  }
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch {
    fail(`${path} is not complete JSON (a start that failed half-way?): run \`npx sandbox up --detach --state-dir ${stateDir}\` again`);
  }
  const chainsComplete =
    parsed?.chains?.length >= 2 && parsed.chains.every((chain) => Array.isArray(chain?.tokens) && chain.tokens.length > 0);
  if (!parsed?.api?.url || !parsed.api.apiKeys?.length || !chainsComplete || !parsed.accounts?.takers?.length) {
    fail(`${path} lists no running service, two chains and a funded taker: is \`npx sandbox up\` still starting, or did it fail?`);
  }
  return parsed;
}
const manifest = readManifest();
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
