import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ANVIL_MNEMONIC } from './accounts.js';
import { startAnvilProcess } from './anvil.js';
import { KEPT_BLOCKS, saveChainState, stopBlockProduction, trimHistory } from './chain-state.js';
import { stateLayout } from './state-dir.js';
import { createRpcClient, type RpcClient } from './rpc.js';
import { startDevnet } from './devnet.js';

const dir = mkdtempSync(join(tmpdir(), 'sandbox-trim-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('saved chain state', () => {
  it('keeps only recent history, and the chain resumes from it with its balances and nonces', async () => {
    const first = await startDevnet({ stateDir: dir, chains: 1 });
    const [alpha] = first.chains;
    const taker = first.manifest.accounts.takers[2]?.address;
    const sink = '0x000000000000000000000000000000000000dEaD';
    for (let i = 0; i < 40; i++) {
      await alpha?.rpc.call('eth_sendTransactionSync', [{ from: taker, to: sink, value: '0x7', gas: '0x5208' }]);
    }
    const head = Number(await alpha?.rpc.call<string>('eth_blockNumber'));
    const state = await import('./chain-state.js').then((m) => m.dumpChainState(alpha!.rpc));
    await first.stop();

    const trimmed = JSON.parse(trimHistory(state, 10).toString());
    expect(trimmed.blocks).toHaveLength(10);
    expect(trimmed.transactions.every((tx: { block_number: number }) => tx.block_number > head - 10)).toBe(true);
    expect(trimHistory(state, 10_000)).toBe(state);

    // The file written by stop() (1,000 blocks kept) loads; a trimmed one does too.
    const saved = JSON.parse(readFileSync(join(dir, 'chains', 'alpha', 'state.json'), 'utf8'));
    expect(saved.blocks.length).toBeGreaterThan(40);
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(dir, 'chains', 'alpha', 'state.json'), trimHistory(state, 10));
    const second = await startDevnet({ stateDir: dir, chains: 1 });
    const rpc = second.chains[0]!.rpc;
    expect(Number(await rpc.call<string>('eth_blockNumber'))).toBe(head);
    expect(await rpc.call('eth_getBlockByNumber', ['0x1', false])).toBeNull();
    expect(BigInt(await rpc.call<string>('eth_getBalance', [sink, 'latest']))).toBe(40n * 7n);
    const receipt = await rpc.call<{ status: string; blockNumber: string }>('eth_sendTransactionSync', [
      { from: taker, to: sink, value: '0x1', gas: '0x5208' },
    ]);
    expect(receipt.status).toBe('0x1');
    expect(Number(receipt.blockNumber)).toBe(head + 1);
    await second.stop();
  });
});

describe('a running chain', () => {
  it('answers the receipts of its last KEPT_BLOCKS blocks and forgets older ones, as a saved state does', async () => {
    const anvil = await startAnvilProcess({
      name: 'keeper',
      chainId: 31_998,
      port: 0,
      portFlag: '--port',
      cachePath: join(dir, 'keeper-cache'),
      mnemonic: ANVIL_MNEMONIC,
      accounts: 1,
    });
    const rpc = createRpcClient(anvil.rpcUrl);
    try {
      const [from] = await rpc.call<string[]>('eth_accounts');
      const send = () =>
        rpc.call<{ transactionHash: string; blockNumber: string }>('eth_sendTransactionSync', [
          { from, to: '0x000000000000000000000000000000000000dEaD', value: '0x1', gas: '0x5208' },
        ]);
      const old = await send();
      const kept = await send();
      // Blocks after `old`'s: KEPT_BLOCKS - 1 more keep it (it is within the last KEPT_BLOCKS), one more drops it.
      await rpc.call('anvil_mine', [`0x${(KEPT_BLOCKS - 2).toString(16)}`]);
      expect(await rpc.call('eth_getTransactionReceipt', [old.transactionHash])).not.toBeNull();
      await rpc.call('anvil_mine', ['0x1']);
      expect(await rpc.call('eth_getTransactionReceipt', [old.transactionHash])).toBeNull();
      const receipt = await rpc.call<{ blockNumber: string } | null>('eth_getTransactionReceipt', [kept.transactionHash]);
      expect(receipt?.blockNumber).toBe(kept.blockNumber);
      // The block itself stays (its header answers), only its transactions and receipts go.
      expect(await rpc.call('eth_getBlockByNumber', [old.blockNumber, false])).not.toBeNull();
    } finally {
      rpc.close();
      await anvil.stop();
    }
  }, 60_000);
});

describe('a last save', () => {
  /** A real anvil, and a client of it that mines one block (`evm_mine`) right after the first call of `method`. */
  async function chainWithLateBlock(method: string, delayMs: number) {
    const anvil = await startAnvilProcess({
      name: 'last',
      chainId: 31_997,
      port: 0,
      portFlag: '--port',
      cachePath: join(dir, 'last-cache'),
      mnemonic: ANVIL_MNEMONIC,
      accounts: 1,
    });
    const rpc = createRpcClient(anvil.rpcUrl);
    let late: Promise<unknown> | undefined;
    const client: RpcClient = {
      url: rpc.url,
      close: () => rpc.close(),
      call: async <T>(name: string, params?: readonly unknown[], options?: { timeoutMs?: number }) => {
        const answer = await rpc.call<T>(name, params, options);
        if (name === method && late === undefined) {
          late = new Promise((resolve) => setTimeout(resolve, delayMs)).then(() => rpc.call('evm_mine'));
          if (delayMs === 0) await late;
        }
        return answer;
      },
    };
    const head = async () => Number(await rpc.call<string>('eth_blockNumber'));
    return { anvil, rpc, client, head, late: () => late };
  }

  it('waits, once automine is off, until a block anvil had begun has ended', async () => {
    const chain = await chainWithLateBlock('evm_setAutomine', 20);
    try {
      const before = await chain.head();
      await stopBlockProduction(chain.client, 400);
      expect(await chain.head()).toBe(before + 1);
      // And nothing else ends a block: automine is off.
      await chain.rpc.call('eth_sendTransaction', [
        {
          from: (await chain.rpc.call<string[]>('eth_accounts'))[0],
          to: '0x000000000000000000000000000000000000dEaD',
          value: '0x1',
          gas: '0x5208',
        },
      ]);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await chain.head()).toBe(before + 1);
    } finally {
      chain.rpc.close();
      await chain.anvil.stop();
    }
  }, 60_000);

  it('dumps again when a block ended during the dump, so the saved head is the one the chain stops at', async () => {
    const chain = await chainWithLateBlock('anvil_dumpState', 0);
    try {
      await chain.rpc.call('evm_setAutomine', [false]);
      const layout = stateLayout(join(dir, 'last-save'));
      const meta = await saveChainState(chain.client, layout, { name: 'last', chainId: 31_997 }, 'deployment', { last: true });
      const head = await chain.head();
      expect(chain.late()).toBeDefined();
      expect(meta.headNumber).toBe(head);
      const saved = JSON.parse(readFileSync(layout.chainState('last'), 'utf8')) as { best_block_number: number | string };
      expect(Number(saved.best_block_number)).toBe(head);
    } finally {
      chain.rpc.close();
      await chain.anvil.stop();
    }
  }, 60_000);
});
