import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Address } from 'viem';
import { startSettlementHarness } from '../../../test/support/settlement/harness.js';
import { startReferenceSolvers } from '../../solvers/index.js';
import { TestTaker } from '../../../test/support/settlement/taker.js';
import { waitForStatus } from '../../../test/support/settlement/wait.js';
import { ledgerStorePath, verifyLedgerFile } from '../../sandbox/ledger-file.js';
import { register } from './ledger.js';

/**
 * A real ledger (RFQs, quotes, compliance checks, an order's creation and transitions, written by the service
 * while an order settled on real chains), then a one-byte change to each stored field of each entry in turn.
 */
let folder: string;
let original: string;
let entries: { sequence: number }[];

beforeAll(async () => {
  const h = await startSettlementHarness();
  const solvers = await startReferenceSolvers({
    manifest: { ...h.manifest, api: { url: h.service.url, wsUrl: h.service.wsUrl, workspaceId: h.workspaceId, apiKeys: [h.apiKey] } },
    count: 1,
  });
  try {
    const taker = new TestTaker(h.manifest.accounts.takers[0]!.privateKey, h.rest, h.manifest.chains);
    const [alpha, beta] = h.manifest.chains;
    const quote = (
      await taker.quote({
        originChainId: alpha!.chainId,
        destinationChainId: beta!.chainId,
        inputToken: alpha!.tokens[0]!.address as Address,
        outputToken: beta!.tokens[0]!.address as Address,
        inputAmount: '10000000000',
        lockType: 'Permit2Escrow',
        settlementPath: 'compliant',
      })
    ).quotes[0]!;
    const attestation = (
      await h.rest.request<{ attestation: { hash: string } }>('GET', `/api/v1/compliance/status?address=${taker.address}`)
    ).attestation.hash;
    const created = await h.rest.createOrder(
      { quoteId: quote.quoteId, signature: await taker.sign(quote.typedData), nonce: quote.nonce!, user: taker.address },
      { attestation },
    );
    await waitForStatus(h.rest, created.orderId, 'Claimed');
    await solvers.stop();
    await h.stopService();
    folder = mkdtempSync(join(tmpdir(), 'ledger-verify-'));
    original = join(folder, 'original.sqlite');
    copyFileSync(h.storePath, original);
  } finally {
    await h.stop();
  }
  const db = new Database(original, { readonly: true });
  entries = db.prepare('SELECT sequence FROM ledger_entries ORDER BY sequence').all() as { sequence: number }[];
  db.close();
}, 60_000);

afterAll(() => {
  if (folder) rmSync(folder, { recursive: true, force: true });
});

/** A copy of the store with one character of one field of one entry changed (triggers dropped, as a hand edit would). */
function tampered(sequence: number, column: string, position: (length: number) => number): string {
  const dir = mkdtempSync(join(folder, 'state-'));
  mkdirSync(join(dir, 'service'));
  const path = ledgerStorePath(dir);
  copyFileSync(original, path);
  const db = new Database(path);
  db.exec('DROP TRIGGER ledger_entries_no_update');
  const value = String((db.prepare(`SELECT ${column} AS v FROM ledger_entries WHERE sequence = ?`).get(sequence) as { v: string }).v);
  const at = position(value.length);
  const replacement = value[at] === 'a' ? 'b' : 'a';
  db.prepare(`UPDATE ledger_entries SET ${column} = ? WHERE sequence = ?`).run(
    value.slice(0, at) + replacement + value.slice(at + 1),
    sequence,
  );
  db.close();
  return dir;
}

describe('sandbox ledger verify', () => {
  it('finds an intact ledger with every kind of evidence', async () => {
    const dir = mkdtempSync(join(folder, 'state-'));
    mkdirSync(join(dir, 'service'));
    copyFileSync(original, ledgerStorePath(dir));
    const result = await verifyLedgerFile(ledgerStorePath(dir));
    expect(result).toMatchObject({ ok: true, entries: entries.length });
    const db = new Database(ledgerStorePath(dir), { readonly: true });
    const types = new Set((db.prepare('SELECT type FROM ledger_entries').all() as { type: string }[]).map((r) => r.type));
    db.close();
    for (const type of ['order.created', 'order.transition', 'compliance.check']) expect(types).toContain(type);
  });

  it('names the changed entry after a one-byte change to any field of any entry', async () => {
    expect(entries.length).toBeGreaterThan(5);
    let checked = 0;
    for (const { sequence } of entries) {
      for (const column of ['payload', 'hash', 'prev_hash', 'type', 'trade_id', 'recorded_at']) {
        const dir = tampered(sequence, column, (length) => (sequence * 7 + column.length * 13) % length);
        const result = await verifyLedgerFile(ledgerStorePath(dir));
        expect(result, `${column} of #${sequence}`).toMatchObject({ ok: false, brokenAt: sequence });
        rmSync(dir, { recursive: true, force: true });
        checked++;
      }
    }
    expect(checked).toBe(entries.length * 6);
  });

  it('exits 1 naming the first broken entry, 0 when intact (--json)', async () => {
    const run = async (dir: string) => {
      const program = new Command('sandbox').option('--json').option('--state-dir <path>').exitOverride();
      register(program);
      const lines: string[] = [];
      const write = process.stdout.write.bind(process.stdout);
      process.stdout.write = ((chunk: string) => {
        lines.push(String(chunk));
        return true;
      }) as typeof process.stdout.write;
      process.exitCode = 0;
      try {
        await program.parseAsync(['node', 'sandbox', '--json', '--state-dir', dir, 'ledger', 'verify']);
      } finally {
        process.stdout.write = write;
      }
      const code = process.exitCode;
      process.exitCode = 0;
      return { code, output: JSON.parse(lines.join('')) as { ok: boolean; brokenAt?: number; reason?: string; error?: { code: string } } };
    };
    const middle = entries[Math.floor(entries.length / 2)]!.sequence;
    const broken = await run(tampered(middle, 'payload', (length) => length - 3));
    expect(broken.code).toBe(1);
    expect(broken.output).toMatchObject({ ok: false, brokenAt: middle, reason: 'hash does not match the content' });

    const dir = mkdtempSync(join(folder, 'state-'));
    mkdirSync(join(dir, 'service'));
    copyFileSync(original, ledgerStorePath(dir));
    const intact = await run(dir);
    expect(intact.code).toBe(0);
    expect(intact.output.ok).toBe(true);

    const missing = await run(join(folder, 'nowhere'));
    expect(missing.code).toBe(1);
    expect(missing.output.error?.code).toBe('ledger_unreadable');
  });
});
