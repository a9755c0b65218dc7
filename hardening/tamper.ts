/**
 * Tamper campaign: single-byte changes to stored ledger entries, made in the SQLite file itself (as someone with
 * the file and a hex editor would), each followed by `sandbox ledger verify` on the file.
 *
 * The campaign finds where each sampled entry lives in the file by walking the table's B-tree (the cell of the row:
 * its header, rowid, record header, every column, and overflow pages for large payloads), then changes one byte at
 * a time. A change is detected when verify does not report the ledger intact — it names a broken entry, or refuses
 * the file as malformed. A change that SQLite reads back as exactly the same rows (e.g. the stored value of the
 * rowid-alias column, which SQLite ignores) changes no evidence: it is counted as ineffective, not as a miss.
 */
import { closeSync, copyFileSync, mkdirSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { LedgerReader } from '../src/contracts/ledger/reader.js';
import { verifyLedgerFile } from '../src/sandbox/ledger-file.js';
import { SeededRandom } from './support/random.js';

export interface TamperOptions {
  /** A service store with a ledger (e.g. the crash campaign's). */
  storePath: string;
  dir: string;
  seed: number;
  /** Entries to tamper with. */
  entries: number;
  /** Mutations per byte position: 1 = one seeded replacement; 8 = every single-bit flip; 255 = every other value. */
  mutationsPerByte: number;
  log?: (line: string) => void;
}

export interface TamperFigures {
  entriesInLedger: number;
  entriesSampled: number;
  sampledTypes: string[];
  bytesCovered: number;
  mutations: number;
  detected: number;
  /** verify named a broken entry. */
  detectedByChain: number;
  /** verify refused the file (SQLite found it malformed). */
  detectedAsCorrupt: number;
  /** SQLite reads back exactly the original rows: nothing the ledger says changed. */
  ineffective: number;
  undetected: number;
  tamperDetectedPct: number;
  wallMs: number;
  misses: Array<{ sequence: number; offset: number; from: number; to: number; region: string }>;
}

interface CellLayout {
  sequence: number;
  /** File byte ranges holding the row: [start, end) with a name for reports. */
  ranges: Array<{ start: number; end: number; region: string }>;
}

function readVarint(buffer: Buffer, at: number): { value: number; length: number } {
  let value = 0n;
  for (let i = 0; i < 9; i++) {
    const byte = buffer[at + i]!;
    if (i === 8) return { value: Number((value << 8n) | BigInt(byte)), length: 9 };
    value = (value << 7n) | BigInt(byte & 0x7f);
    if ((byte & 0x80) === 0) return { value: Number(value), length: i + 1 };
  }
  throw new Error('unreachable');
}

/** Every row of a table b-tree with the file ranges its bytes occupy (SQLite file format, section 1.6). */
export function tableCells(file: Buffer, rootPage: number): Map<number, CellLayout> {
  const pageSize = file.readUInt16BE(16) === 1 ? 65_536 : file.readUInt16BE(16);
  const usable = pageSize - file[20]!;
  const cells = new Map<number, CellLayout>();
  const visit = (page: number, depth: number) => {
    if (depth > 20) throw new Error('b-tree too deep');
    const base = (page - 1) * pageSize;
    const header = base + (page === 1 ? 100 : 0);
    const type = file[header]!;
    const count = file.readUInt16BE(header + 3);
    const pointers = header + (type === 0x05 ? 12 : 8);
    if (type === 0x05) {
      for (let i = 0; i < count; i++) visit(file.readUInt32BE(base + file.readUInt16BE(pointers + 2 * i)), depth + 1);
      visit(file.readUInt32BE(header + 8), depth + 1);
      return;
    }
    if (type !== 0x0d) throw new Error(`page ${page} is not a table page (type ${type})`);
    for (let i = 0; i < count; i++) {
      const start = base + file.readUInt16BE(pointers + 2 * i);
      const size = readVarint(file, start);
      const rowid = readVarint(file, start + size.length);
      const payloadStart = start + size.length + rowid.length;
      const maxLocal = usable - 35;
      const minLocal = Math.floor(((usable - 12) * 32) / 255) - 23;
      let local = size.value;
      if (size.value > maxLocal) {
        const k = minLocal + ((size.value - minLocal) % (usable - 4));
        local = k <= maxLocal ? k : minLocal;
      }
      const ranges = [
        { start, end: payloadStart, region: 'cell header (payload size, rowid)' },
        { start: payloadStart, end: payloadStart + local, region: 'record' },
      ];
      if (local < size.value) {
        let overflow = file.readUInt32BE(payloadStart + local);
        ranges.push({ start: payloadStart + local, end: payloadStart + local + 4, region: 'overflow pointer' });
        let remaining = size.value - local;
        for (let guard = 0; overflow !== 0 && remaining > 0 && guard < 10_000; guard++) {
          const pageStart = (overflow - 1) * pageSize;
          const chunk = Math.min(remaining, usable - 4);
          ranges.push({ start: pageStart + 4, end: pageStart + 4 + chunk, region: 'overflow page' });
          remaining -= chunk;
          overflow = file.readUInt32BE(pageStart);
        }
      }
      cells.set(rowid.value, { sequence: rowid.value, ranges });
    }
  };
  visit(rootPage, 0);
  return cells;
}

function dumpLedger(path: string): string | undefined {
  try {
    const db = new Database(path, { readonly: true, fileMustExist: true });
    try {
      const rows = db.prepare('SELECT * FROM ledger_entries ORDER BY sequence').raw().all() as unknown[][];
      return JSON.stringify(
        rows.map((row) =>
          row.map((value) =>
            Buffer.isBuffer(value) ? { blob: value.toString('hex') } : value === null ? null : { [typeof value]: value },
          ),
        ),
      );
    } finally {
      db.close();
    }
  } catch {
    return undefined;
  }
}

export async function runTamperCampaign(options: TamperOptions): Promise<TamperFigures> {
  const started = Date.now();
  const log = options.log ?? (() => undefined);
  mkdirSync(options.dir, { recursive: true });
  const original = join(options.dir, 'ledger-original.sqlite');
  const working = join(options.dir, 'ledger-tampered.sqlite');
  rmSync(original, { force: true });
  // A consistent single-file snapshot (no WAL beside it), as a copy of the store would be.
  const source = new Database(options.storePath, { readonly: true, fileMustExist: true });
  try {
    source.prepare('VACUUM INTO ?').run(original);
  } finally {
    source.close();
  }
  const db = new Database(original, { readonly: true });
  const root = (
    db.prepare("SELECT rootpage FROM sqlite_master WHERE type = 'table' AND name = 'ledger_entries'").get() as { rootpage: number }
  ).rootpage;
  const entries = [...new LedgerReader(db).iterate()].map(({ sequence, type }) => ({ sequence, type }));
  db.close();
  const intact = await verifyLedgerFile(original);
  if (!intact.ok) throw new Error(`the ledger to tamper with is already broken at #${intact.brokenAt}`);
  const baseline = dumpLedger(original);

  // Sample: one entry of each kind, the first and the last, then seeded picks up to the count.
  const random = new SeededRandom(options.seed);
  const chosen = new Map<number, string>();
  const add = (entry: { sequence: number; type: string } | undefined) => {
    if (entry !== undefined && chosen.size < options.entries) chosen.set(entry.sequence, entry.type);
  };
  for (const type of new Set(entries.map((e) => e.type))) add(random.pick(entries.filter((e) => e.type === type)));
  add(entries[0]);
  add(entries.at(-1));
  for (let guard = 0; chosen.size < Math.min(options.entries, entries.length) && guard < 10_000; guard++) add(random.pick(entries));

  copyFileSync(original, working);
  const fd = openSync(working, 'r+');
  const figures: TamperFigures = {
    entriesInLedger: entries.length,
    entriesSampled: chosen.size,
    sampledTypes: [...new Set(chosen.values())].sort(),
    bytesCovered: 0,
    mutations: 0,
    detected: 0,
    detectedByChain: 0,
    detectedAsCorrupt: 0,
    ineffective: 0,
    undetected: 0,
    tamperDetectedPct: 0,
    wallMs: 0,
    misses: [],
  };
  try {
    const snapshot = readWhole(fd);
    const cells = tableCells(snapshot, root);
    for (const sequence of chosen.keys()) {
      const cell = cells.get(sequence);
      if (cell === undefined) throw new Error(`entry #${sequence} not found in the b-tree`);
      for (const range of cell.ranges) {
        for (let offset = range.start; offset < range.end; offset++) {
          figures.bytesCovered += 1;
          const from = snapshot[offset]!;
          for (const to of replacements(from, options.mutationsPerByte, random)) {
            writeSync(fd, Buffer.from([to]), 0, 1, offset);
            figures.mutations += 1;
            let outcome: 'chain' | 'corrupt' | 'intact';
            try {
              outcome = (await verifyLedgerFile(working)).ok ? 'intact' : 'chain';
            } catch {
              outcome = 'corrupt';
            }
            if (outcome === 'chain') figures.detectedByChain += 1;
            else if (outcome === 'corrupt') figures.detectedAsCorrupt += 1;
            else if (dumpLedger(working) === baseline) figures.ineffective += 1;
            else {
              figures.undetected += 1;
              if (figures.misses.length < 20) figures.misses.push({ sequence, offset, from, to, region: range.region });
            }
            writeSync(fd, Buffer.from([from]), 0, 1, offset);
          }
        }
      }
      log(
        `  tamper: entry #${sequence} (${chosen.get(sequence)}): ${figures.mutations} mutations so far, ${figures.undetected} undetected`,
      );
    }
  } finally {
    closeSync(fd);
  }
  figures.detected = figures.detectedByChain + figures.detectedAsCorrupt;
  const effective = figures.detected + figures.undetected;
  figures.tamperDetectedPct = effective === 0 ? 0 : Math.floor((figures.detected / effective) * 10_000) / 100;
  figures.wallMs = Date.now() - started;
  return figures;
}

function readWhole(fd: number): Buffer {
  const chunks: Buffer[] = [];
  for (let position = 0; ; ) {
    const chunk = Buffer.alloc(1 << 20);
    const read = readSync(fd, chunk, 0, chunk.length, position);
    if (read === 0) break;
    chunks.push(chunk.subarray(0, read));
    position += read;
  }
  return Buffer.concat(chunks);
}

/** The other values a byte is changed to: a seeded one, every bit flip, or all 255. */
function replacements(from: number, perByte: number, random: SeededRandom): number[] {
  if (perByte >= 255) return Array.from({ length: 256 }, (_, value) => value).filter((value) => value !== from);
  if (perByte >= 8) return Array.from({ length: 8 }, (_, bit) => from ^ (1 << bit));
  const values = new Set<number>();
  while (values.size < perByte) values.add(from ^ random.int(1, 255));
  return [...values];
}
