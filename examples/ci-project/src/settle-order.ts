// The project's own test: one order, quote → sign → create → settled, against the sandbox ci.sh started.
// Everything comes from the package's typed API; `tsc` checks it against the package's declarations.
import { attach, type OrderDetail, type SandboxHandle, typedDataFromJson } from 'settlement-sandbox';
import { privateKeyToAccount } from 'viem/accounts';

const SETTLED: readonly string[] = ['Claimed', 'Refunded'];

export async function settleOneOrder(sandbox: SandboxHandle): Promise<OrderDetail> {
  const [origin, destination] = sandbox.manifest.chains;
  const takerKey = sandbox.manifest.accounts.takers[0]?.privateKey;
  if (!origin || !destination || !takerKey) throw new Error('the sandbox needs two chains and a funded taker');
  const taker = privateKeyToAccount(takerKey);
  const usdc = (tokens: typeof origin.tokens) => {
    const token = tokens.find((t) => t.symbol === 'USDC');
    if (!token) throw new Error('no USDC on this chain');
    return token.address;
  };
  const { rest } = sandbox.clients;
  const { quotes } = await rest.requestQuotes({
    inputToken: usdc(origin.tokens),
    outputToken: usdc(destination.tokens),
    inputAmount: '25000000000', // 25,000 USDC (6 decimals; the minimum trade is 10,000)
    originChainId: origin.chainId,
    destinationChainId: destination.chainId,
    lockType: 'Permit2Escrow',
    user: taker.address,
  });
  const best = quotes[0];
  if (!best) throw new Error('no quote: are the reference solvers running?');
  if (best.nonce === undefined) throw new Error('a Permit2Escrow quote carries the nonce the order needs');
  const signature = await taker.signTypedData(typedDataFromJson(best.typedData));
  const order = await rest.createOrder({ quoteId: best.quoteId, signature, nonce: best.nonce });
  for (let i = 0; i < 300; i++) {
    const detail = await rest.getOrder(order.orderId);
    if (SETTLED.includes(detail.status)) return detail;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`order ${order.orderId} did not settle within 30 s`);
}

// Run as a script: attach to the sandbox of .sandbox (or $SANDBOX_STATE_DIR) and expect a claimed order.
const sandbox = attach(process.env.SANDBOX_STATE_DIR ?? '.sandbox');
const detail = await settleOneOrder(sandbox);
if (detail.status !== 'Claimed') throw new Error(`order ${detail.orderId} ended ${detail.status}`);
console.log(`order ${detail.orderId}: ${detail.status} (fill ${detail.destinationTxHash})`);
