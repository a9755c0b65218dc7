import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { StateMismatchError } from './errors.js';
import type { RpcClient } from './rpc.js';
import { ensureDir, type StateLayout } from './state-dir.js';

/** What a saved chain state belongs to; a state is only loaded into the same chain of the same deployment. */
export interface ChainStateMeta {
  chainName: string;
  chainId: number;
  deploymentId: string;
  /** anvil's time offset (seconds ahead of the wall clock) when saved: `clock advance` must survive a restart. */
  timeOffsetSeconds: number;
  headNumber: number;
  headTimestamp: number;
  savedAt: string;
}

interface Block {
  number: string;
  hash: string;
  timestamp: string;
}

/** Dumps a last save takes at most while blocks still end under it (only a chain that never stops needs them all). */
const LAST_SAVE_RETRIES = 5;

/** Writes a file so that a crash mid-write leaves the previous version, never half a file. */
export function writeFileAtomic(path: string, data: string | Buffer, mode = 0o644): void {
  // Unique per writer: two sandboxes of one process may write the same shared cache entry at once.
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(temp, data, { mode });
  renameSync(temp, path);
}

/** anvil's state as JSON, the format `--load-state` reads (`anvil_dumpState` answers it gzipped and hex-encoded). */
export async function dumpChainState(rpc: RpcClient): Promise<Buffer> {
  const hex = await rpc.call<string>('anvil_dumpState', [], { timeoutMs: 60_000 });
  return gunzipSync(Buffer.from(hex.slice(2), 'hex'));
}

/**
 * Blocks (with their transactions and receipts) kept in a saved state. anvil's dump holds the whole history,
 * which grows by some 4 kB per transaction and would make every restart slower; balances, code and storage
 * do not depend on it. Older blocks answer null after a restart.
 */
export const KEPT_BLOCKS = 1_000;

interface DumpedState {
  best_block_number?: number | string;
  blocks?: Array<{ header?: { number?: string } }>;
  transactions?: Array<{ block_number?: number | string }>;
}

/** The head block number a dump holds. */
function dumpedHead(state: Buffer): number {
  const parsed = JSON.parse(state.toString('utf8')) as DumpedState;
  return Number(parsed.best_block_number ?? -1);
}

/** Drops history older than the last `keep` blocks from a dump (anvil loads it as long as the head is there). */
export function trimHistory(state: Buffer, keep: number = KEPT_BLOCKS): Buffer {
  const parsed = JSON.parse(state.toString('utf8')) as DumpedState;
  if (!parsed.blocks || parsed.blocks.length <= keep || parsed.best_block_number === undefined) return state;
  const oldest = Number(parsed.best_block_number) - keep;
  parsed.blocks = parsed.blocks.filter((block) => Number(block.header?.number ?? 0) > oldest);
  parsed.transactions = (parsed.transactions ?? []).filter((tx) => Number(tx.block_number ?? 0) > oldest);
  return Buffer.from(JSON.stringify(parsed));
}

/**
 * Stops block production before a last save (a stop, a restart): anvil keeps mining while it dumps, and a block mined
 * between the dump and the end of the process is lost with it, though its senders hold receipts and the services
 * attached to the chain recorded its logs. With automine off, a transaction sent now waits in the pool and dies
 * unmined with the process, which its sender sees as a lost answer and sends again to the chain that comes back.
 *
 * A block anvil began before automine went off still ends after this call answered, so it returns once the head
 * has stood still for `stillMs` (read twice that far apart); a busy machine stretches that block, not the rule.
 */
export async function stopBlockProduction(rpc: RpcClient, stillMs = STILL_MS): Promise<void> {
  await rpc.call('evm_setAutomine', [false]);
  let head = await rpc.call<string>('eth_blockNumber', []);
  for (let look = 0; look < STILL_LOOKS; look++) {
    await new Promise((resolve) => setTimeout(resolve, stillMs));
    const now = await rpc.call<string>('eth_blockNumber', []);
    if (now === head) return;
    head = now;
  }
}

/** How long the head must stand still after automine went off, and how often to look before saving anyway. */
const STILL_MS = 25;
const STILL_LOOKS = 40;

/** Undoes `stopBlockProduction` when the process goes on after all (its save failed). */
export async function resumeBlockProduction(rpc: RpcClient): Promise<void> {
  await rpc.call('evm_setAutomine', [true]);
  await rpc.call('evm_mine', []);
}

export async function saveChainState(
  rpc: RpcClient,
  layout: StateLayout,
  chain: { name: string; chainId: number },
  deploymentId: string,
  options: { last?: boolean } = {},
): Promise<ChainStateMeta> {
  let [state, timeOffsetSeconds, head] = await Promise.all([
    dumpChainState(rpc),
    rpc.call<number>('evm_increaseTime', [0]),
    rpc.call<Block>('eth_getBlockByNumber', ['latest', false]),
  ]);
  // A last save must hold the head the chain stops at: a block that ended during the dump is dumped again.
  for (let retry = 0; options.last === true && retry < LAST_SAVE_RETRIES; retry++) {
    const after = await rpc.call<Block>('eth_getBlockByNumber', ['latest', false]);
    if (after.hash === head.hash && dumpedHead(state) === Number(after.number)) break;
    [state, head] = [await dumpChainState(rpc), after];
  }
  const meta: ChainStateMeta = {
    chainName: chain.name,
    chainId: chain.chainId,
    deploymentId,
    timeOffsetSeconds: Number(timeOffsetSeconds),
    headNumber: Number(head.number),
    headTimestamp: Number(head.timestamp),
    savedAt: new Date().toISOString(),
  };
  ensureDir(layout.chainDir(chain.name));
  // State first, meta second: a meta file always describes a complete state file.
  writeFileAtomic(layout.chainState(chain.name), trimHistory(state));
  writeFileAtomic(layout.chainMeta(chain.name), JSON.stringify(meta, null, 2) + '\n');
  return meta;
}

/** The saved state of a chain, checked against the chain and deployment about to start; undefined if none. */
export function findSavedChainState(
  layout: StateLayout,
  chain: { name: string; chainId: number },
  deploymentId: string,
): { statePath: string; meta: ChainStateMeta } | undefined {
  const statePath = layout.chainState(chain.name);
  const metaPath = layout.chainMeta(chain.name);
  if (!existsSync(metaPath) || !existsSync(statePath)) return undefined;
  let meta: ChainStateMeta;
  try {
    meta = JSON.parse(readFileSync(metaPath, 'utf8')) as ChainStateMeta;
  } catch {
    throw new StateMismatchError(layout.root, chain.name, `${metaPath} is not readable JSON`);
  }
  if (meta.chainId !== chain.chainId) {
    throw new StateMismatchError(layout.root, chain.name, `saved with chain id ${meta.chainId}, now ${chain.chainId}`);
  }
  if (meta.deploymentId !== deploymentId) {
    throw new StateMismatchError(layout.root, chain.name, 'the contracts, accounts or funding plan changed since it was saved');
  }
  return { statePath, meta };
}

/**
 * anvil forgets its time offset across a dump and load, and would even mine a block older than the loaded head.
 * Puts the offset back, and never lets the next block go back in time.
 */
export async function restoreChainTime(rpc: RpcClient, meta: ChainStateMeta): Promise<void> {
  const now = Math.floor(Date.now() / 1000);
  const behindHead = meta.headTimestamp + 1 - (now + meta.timeOffsetSeconds);
  const offset = meta.timeOffsetSeconds + Math.max(0, behindHead);
  // anvil cannot move time backwards; a negative offset is only possible if someone set it by hand.
  if (offset > 0) await rpc.call('evm_increaseTime', [offset]);
}
