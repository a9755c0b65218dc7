import type { Hex } from 'viem';
import { BaseError } from './errors/base-error.js';

/**
 * The transaction a sender waited for is neither in the node's pool nor in a block: a chain reorganisation took its
 * block away (the sandbox's `chain.reorg` fault replaces blocks with empty ones), or the pool dropped it. Nothing
 * will mine it now; sending the same bytes again would land it again.
 */
export class TransactionDroppedError extends BaseError {
  override readonly name = 'TransactionDroppedError';
  constructor(readonly hash: Hex) {
    super(`transaction ${hash} was dropped: it is neither in the pool nor on chain (a reorganisation took it away)`);
  }
}

export interface SyncSendOptions {
  /** How long the send may take before the watch starts asking whether the transaction still exists. */
  graceMs?: number;
  /** Between two of those questions. */
  pollMs?: number;
  /** Answers in a row that the transaction is unknown before it counts as dropped. */
  misses?: number;
  /** Aborted when the caller learns otherwise that the transaction is gone (a solver told its fill was reorganised away). */
  signal?: AbortSignal;
}

/** A plain send's answer comes in milliseconds; only a wait for a block (a halted chain) lasts past the grace. */
const GRACE_MS = 1_000;
const POLL_MS = 500;
/** Two: a node under load may answer the question before it has put a just-sent transaction in its pool. */
const MISSES = 2;

/**
 * `eth_sendRawTransactionSync` (EIP-7966: the receipt with the send) that notices a transaction vanishing while it
 * waits. anvil's handler waits for the block that carries the transaction by hash; when a reorganisation replaces
 * that block before the handler looked at it, the handler never finds it and answers only at its 30 s timeout. Every
 * later send of the account waits behind it meanwhile (a sender sends one transaction at a time, in nonce order).
 * So once the send has taken longer than `graceMs`, this asks the node for the transaction (`lookup`,
 * `eth_getTransactionByHash`) every `pollMs`; after `misses` answers in a row that it is unknown, the send fails
 * with TransactionDroppedError. A transaction waiting in a halted chain's pool is known: that wait goes on.
 */
export function sendRawTransactionSync<T>(
  send: () => Promise<T>,
  lookup: () => Promise<unknown>,
  hash: Hex,
  options: SyncSendOptions = {},
): Promise<T> {
  const graceMs = options.graceMs ?? GRACE_MS;
  const pollMs = options.pollMs ?? POLL_MS;
  const misses = options.misses ?? MISSES;
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    let unknown = 0;
    function abandon() {
      finish(() => reject(new TransactionDroppedError(hash)));
    }
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      if (timer !== undefined) clearTimeout(timer);
      options.signal?.removeEventListener('abort', abandon);
      outcome();
    };
    const watch = async () => {
      timer = undefined;
      // A failed question (the node restarting) says nothing about the transaction; the send's own error will.
      const known = await lookup().then(
        (transaction) => transaction !== null && transaction !== undefined,
        () => true,
      );
      if (settled) return;
      unknown = known ? 0 : unknown + 1;
      if (unknown >= misses) return finish(() => reject(new TransactionDroppedError(hash)));
      timer = setTimeout(() => void watch(), pollMs);
    };
    if (options.signal?.aborted) return abandon();
    options.signal?.addEventListener('abort', abandon, { once: true });
    timer = setTimeout(() => void watch(), graceMs);
    send().then(
      (answer) => finish(() => resolve(answer)),
      (error: unknown) => finish(() => reject(error)),
    );
  });
}
