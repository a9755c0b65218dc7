/**
 * The sync send against a real anvil: an ordinary send answers with its receipt and asks nothing else; a send that
 * waits in a halted chain's pool keeps waiting (the transaction is known) and answers once a block carries it; a
 * transaction taken out from under a waiting send (anvil_dropTransaction: the pool forgets it, as a reorganisation
 * makes the chain forget a mined one) fails with TransactionDroppedError in a few seconds, not at anvil's 30 s
 * timeout; a node that cannot answer the question does not make a transaction count as dropped.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, type Hex, http, keccak256, type PublicClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { startTestAnvil, type TestAnvil } from '../../test/support/service/anvil.js';
import { signEip1559Transaction } from './secp256k1.js';
import { sendRawTransactionSync, TransactionDroppedError } from './sync-send.js';

/** anvil's first dev account (the default mnemonic). */
const KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80' as const;
const SENDER = privateKeyToAccount(KEY).address;
const CHAIN_ID = 31_996;

let anvil: TestAnvil;
let client: PublicClient;

beforeAll(async () => {
  anvil = await startTestAnvil(CHAIN_ID);
  client = createPublicClient({ transport: http(anvil.rpcUrl) });
}, 30_000);

afterAll(async () => {
  await anvil?.stop();
});

async function signedTransfer(): Promise<{ raw: Hex; hash: Hex }> {
  const nonce = await client.getTransactionCount({ address: SENDER, blockTag: 'pending' });
  const raw = await signEip1559Transaction(KEY, {
    type: 'eip1559',
    chainId: CHAIN_ID,
    nonce,
    to: '0x000000000000000000000000000000000000dEaD',
    value: 1n,
    gas: 21_000n,
    maxFeePerGas: 10n ** 11n,
    maxPriorityFeePerGas: 10n ** 9n,
  });
  return { raw, hash: keccak256(raw) };
}

/** The sync send with its questions counted; `lookup` may be replaced to stand for a node that cannot answer. */
function send(tx: { raw: Hex; hash: Hex }, options: { lookup?: () => Promise<unknown>; graceMs?: number; pollMs?: number } = {}) {
  const asked = { count: 0 };
  const lookup = options.lookup ?? (() => client.request({ method: 'eth_getTransactionByHash', params: [tx.hash] }) as Promise<unknown>);
  const sent = sendRawTransactionSync(
    () => client.request({ method: 'eth_sendRawTransactionSync' as 'eth_sendRawTransaction', params: [tx.raw] }) as Promise<unknown>,
    () => {
      asked.count += 1;
      return lookup();
    },
    tx.hash,
    { graceMs: options.graceMs ?? 300, pollMs: options.pollMs ?? 100 },
  );
  return { sent, asked };
}

/** Waits until `condition` holds (a loaded machine runs timers late: wait for the count, not for a fixed time). */
async function until(condition: () => boolean, what: string, ms = 10_000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > ms) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const setAutomine = (on: boolean) => client.request({ method: 'evm_setAutomine', params: [on] } as never);

/**
 * On a halted chain, a send whose questions get `answer` is still waiting after `questions` of them, and answers
 * with the receipt once a block carries the transaction.
 */
async function keepsWaiting(answer: (tx: { hash: Hex }) => Promise<unknown>, questions: number): Promise<void> {
  await setAutomine(false);
  try {
    const tx = await signedTransfer();
    const { sent, asked } = send(tx, { lookup: () => answer(tx) });
    let settled = false;
    void sent.then(
      () => (settled = true),
      () => (settled = true),
    );
    await until(() => asked.count >= questions, `${questions} questions`);
    expect(settled).toBe(false);
    await client.request({ method: 'evm_mine', params: [] } as never);
    expect(((await sent) as { transactionHash: Hex }).transactionHash).toBe(tx.hash);
  } finally {
    await setAutomine(true);
  }
}

describe('sendRawTransactionSync', () => {
  it('answers an ordinary send with its receipt, asking nothing else', async () => {
    const tx = await signedTransfer();
    const { sent, asked } = send(tx);
    const receipt = (await sent) as { transactionHash: Hex; status: Hex };
    expect(receipt.transactionHash).toBe(tx.hash);
    expect(receipt.status).toBe('0x1');
    expect(asked.count).toBe(0);
  });

  it('keeps waiting while the transaction sits in a halted chain’s pool, and answers once a block carries it', async () => {
    await setAutomine(false);
    try {
      const tx = await signedTransfer();
      const { sent, asked } = send(tx);
      let answered = false;
      void sent.then(() => (answered = true)).catch(() => undefined);
      await until(() => asked.count >= 3, 'three questions');
      expect(answered).toBe(false);
      await client.request({ method: 'evm_mine', params: [] } as never);
      const receipt = (await sent) as { transactionHash: Hex };
      expect(receipt.transactionHash).toBe(tx.hash);
    } finally {
      await setAutomine(true);
    }
  });

  it('fails with TransactionDroppedError soon after the transaction vanishes from under the wait', async () => {
    await setAutomine(false);
    try {
      const tx = await signedTransfer();
      const started = Date.now();
      const { sent } = send(tx);
      const outcome = sent.then(
        () => undefined,
        (error: unknown) => error,
      );
      await new Promise((resolve) => setTimeout(resolve, 500));
      await client.request({ method: 'anvil_dropTransaction', params: [tx.hash] } as never);
      const error = await outcome;
      expect(error).toBeInstanceOf(TransactionDroppedError);
      expect((error as TransactionDroppedError).hash).toBe(tx.hash);
      expect((error as Error).message).toMatch(/neither in the pool nor on chain/);
      // Two unknown answers 100 ms apart after the drop, far from anvil's own 30 s.
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(await client.request({ method: 'eth_getTransactionByHash', params: [tx.hash] })).toBeNull();
    } finally {
      await setAutomine(true);
    }
  });

  it('does not count a question the node could not answer as the transaction being gone', async () => {
    await keepsWaiting(() => Promise.reject(new Error('connect ECONNREFUSED')), 3);
  });

  it('counts only unknown answers in a row: one known answer between them starts the count again', async () => {
    // Unknown, known, unknown, known…: never two unknowns in a row.
    let question = 0;
    await keepsWaiting(async (tx) => (question++ % 2 === 0 ? null : { hash: tx.hash }), 4);
  });

  it('gives the wait up at once when its signal is aborted, and sends nothing when it was aborted before', async () => {
    await setAutomine(false);
    try {
      const tx = await signedTransfer();
      const abandoned = new AbortController();
      const sent = sendRawTransactionSync(
        () => client.request({ method: 'eth_sendRawTransactionSync' as 'eth_sendRawTransaction', params: [tx.raw] }) as Promise<unknown>,
        () => client.request({ method: 'eth_getTransactionByHash', params: [tx.hash] }) as Promise<unknown>,
        tx.hash,
        { signal: abandoned.signal },
      );
      const outcome = sent.then(
        () => undefined,
        (error: unknown) => error,
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
      abandoned.abort();
      expect(await outcome).toBeInstanceOf(TransactionDroppedError);
      await client.request({ method: 'anvil_dropTransaction', params: [tx.hash] } as never);

      let sends = 0;
      await expect(
        sendRawTransactionSync(
          async () => {
            sends += 1;
          },
          async () => null,
          tx.hash,
          { signal: AbortSignal.abort() },
        ),
      ).rejects.toBeInstanceOf(TransactionDroppedError);
      expect(sends).toBe(0);
    } finally {
      await setAutomine(true);
    }
  });
});
