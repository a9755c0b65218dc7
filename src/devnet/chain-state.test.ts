import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { trimHistory } from './chain-state.js';
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
