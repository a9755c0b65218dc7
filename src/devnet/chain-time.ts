import type { RpcClient } from './rpc.js';

/** Time of one chain after a move: its new head block. */
export interface ChainTime {
  chain: string;
  blockNumber: number;
  timestamp: number;
  /** Seconds the chain runs ahead of the wall clock. */
  offsetSeconds: number;
}

interface TimedChain {
  name: string;
  rpc: RpcClient;
}

interface Block {
  number: string;
  timestamp: string;
}

/**
 * Moves every chain forward by `seconds` and mines a block on each, so that block.timestamp has moved when
 * the call returns. Chains are first brought to the same offset (the largest), so that after any sequence of
 * calls all chains agree on the time to within the second they were mined in.
 *
 * A halted chain (automine off: the sandbox's `chain.halt` fault) is left as it is: no block, so its time stands
 * still, and the pool waits. Once it produces again, the next advance brings it to the others' offset.
 */
export async function advanceChainTime(chains: readonly TimedChain[], seconds: number): Promise<ChainTime[]> {
  if (!Number.isInteger(seconds) || seconds < 0) throw new RangeError(`seconds must be a whole number >= 0, got ${seconds}`);
  const [offsets, producing] = await Promise.all([
    Promise.all(chains.map((c) => c.rpc.call<number>('evm_increaseTime', [0]).then(Number))),
    Promise.all(chains.map((c) => c.rpc.call<boolean>('anvil_getAutomine', []).catch(() => true))),
  ]);
  const target = Math.max(...offsets) + seconds;
  return Promise.all(
    chains.map(async (chain, i) => {
      if (producing[i] === false) {
        const head = await chain.rpc.call<Block>('eth_getBlockByNumber', ['latest', false]);
        return {
          chain: chain.name,
          blockNumber: Number(head.number),
          timestamp: Number(head.timestamp),
          offsetSeconds: offsets[i] as number,
        };
      }
      const step = target - (offsets[i] as number);
      const offsetSeconds = step > 0 ? Number(await chain.rpc.call<number>('evm_increaseTime', [step])) : (offsets[i] as number);
      await chain.rpc.call('evm_mine', []);
      const head = await chain.rpc.call<Block>('eth_getBlockByNumber', ['latest', false]);
      return { chain: chain.name, blockNumber: Number(head.number), timestamp: Number(head.timestamp), offsetSeconds };
    }),
  );
}

/** Current head of every chain, without moving anything. */
export async function readChainTime(chains: readonly TimedChain[]): Promise<ChainTime[]> {
  return Promise.all(
    chains.map(async (chain) => {
      const [head, offset] = await Promise.all([
        chain.rpc.call<Block>('eth_getBlockByNumber', ['latest', false]),
        chain.rpc.call<number>('evm_increaseTime', [0]),
      ]);
      return { chain: chain.name, blockNumber: Number(head.number), timestamp: Number(head.timestamp), offsetSeconds: Number(offset) };
    }),
  );
}

/**
 * Advances the chains of a running sandbox from another process (`sandbox clock advance` talks to the
 * sandbox through its manifest, not through the handle that started it).
 */
export async function advanceSandboxTime(
  manifest: { chains: ReadonlyArray<{ name: string; rpcUrl: string }> },
  seconds: number,
): Promise<ChainTime[]> {
  const { createRpcClient } = await import('./rpc.js');
  const chains = manifest.chains.map((c) => ({ name: c.name, rpc: createRpcClient(c.rpcUrl) }));
  try {
    return await advanceChainTime(chains, seconds);
  } finally {
    for (const chain of chains) chain.rpc.close();
  }
}
