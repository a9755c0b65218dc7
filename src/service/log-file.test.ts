import { pbkdf2 } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type LogFile, openLogFile } from './log-file.js';

const folder = mkdtempSync(join(tmpdir(), 'log-file-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const line = (writer: string, n: number) => `${JSON.stringify({ writer, n, pad: 'x'.repeat(200) })}\n`;
const numbers = (path: string, writer: string): number[] =>
  existsSync(path)
    ? readFileSync(path, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((text) => JSON.parse(text) as { writer: string; n: number })
        .filter((entry) => entry.writer === writer)
        .map((entry) => entry.n)
    : [];

/** Writes `count` lines, letting the asynchronous file catch up now and then (as a service's requests do). */
async function writeLines(file: LogFile, writer: string, from: number, count: number, options: { pause?: boolean } = {}): Promise<void> {
  for (let n = from; n < from + count; n += 1) {
    file.write(line(writer, n));
    if (options.pause !== false && n % 100 === 99) await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Waits until the file exists and its size has held still for a few looks: whatever was buffered has reached it. */
async function settled(path: string): Promise<void> {
  let sizes: number[] = [];
  for (let look = 0; look < 500; look += 1) {
    sizes = [...sizes, existsSync(path) ? statSync(path).size : -1].slice(-3);
    if (sizes.length === 3 && sizes[0]! >= 0 && sizes.every((size) => size === sizes[0])) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`${path} did not settle in 5 s`);
}

async function closed(file: LogFile): Promise<void> {
  await file.close();
}

describe('the service log file, rotated by size', () => {
  it('renames a full file to .1 and goes on in a new one: the two hold the latest lines, in order, none lost between them', async () => {
    const path = join(folder, 'one', 'service.log');
    const file = openLogFile(path, { maxBytes: 100 * 1024 });
    await writeLines(file, 'a', 0, 2_000); // about 440 KB: several rotations
    await closed(file);
    const older = numbers(`${path}.1`, 'a');
    const newer = numbers(path, 'a');
    expect(older.length).toBeGreaterThan(0);
    const kept = [...older, ...newer];
    // A contiguous run that ends with the last line written.
    expect(kept.at(-1)).toBe(1_999);
    expect(kept).toEqual(Array.from({ length: kept.length }, (_, i) => kept[0]! + i));
    // Each file stays near its limit (a rotation happens when this process's lines reach it, or at the next look).
    expect(statSync(`${path}.1`).size).toBeLessThan(100 * 1024 + 80 * 1024);
  });

  it('a stalled disk (every thread of the pool busy while lines are logged) still rotates at the limit, losing no line', async () => {
    const path = join(folder, 'stalled', 'service.log');
    const file = openLogFile(path, { maxBytes: 100 * 1024 });
    await settled(path);
    const threads = Number(process.env.UV_THREADPOOL_SIZE) || 4;
    const perRound = 270; // about 61 KB: more than a look's 64 KB-worth would leave uncounted, less than the limit
    let largest = 0;
    for (let round = 0; round < 12; round += 1) {
      // Asynchronous file writes run on libuv's pool: with every thread busy, the lines logged meanwhile sit in the
      // destination's buffer, as they do when the disk stalls. A rotation in the middle of a round renames the file
      // and reopens the path once the pool is free; the buffered lines then go to the new file.
      const busy = Array.from({ length: threads }, () => new Promise((resolve) => pbkdf2('p', 's', 20_000, 32, 'sha256', resolve)));
      await writeLines(file, 'a', round * perRound, perRound, { pause: false });
      await Promise.all(busy);
      await settled(path);
      for (const name of [path, `${path}.1`]) if (existsSync(name)) largest = Math.max(largest, statSync(name).size);
    }
    await closed(file);
    const kept = [...numbers(`${path}.1`, 'a'), ...numbers(path, 'a')];
    expect(kept.at(-1)).toBe(12 * perRound - 1);
    expect(kept).toEqual(Array.from({ length: kept.length }, (_, i) => kept[0]! + i));
    // Rotated when this process's lines reached the limit, those still buffered counted: at most one line over it.
    // (Counting only what reached the disk, a new file began with the buffered lines unseen and grew to 123 KB.)
    expect(largest).toBeLessThanOrEqual(100 * 1024 + line('a', 0).length);
  });

  it('closed while a rotation waits for a stalled write: every line reaches one of the two files, and close resolves', async () => {
    const path = join(folder, 'closed-mid-rotation', 'service.log');
    const file = openLogFile(path, { maxBytes: 100 * 1024 });
    await settled(path);
    const threads = Number(process.env.UV_THREADPOOL_SIZE) || 4;
    const busy = Array.from({ length: threads }, () => new Promise((resolve) => pbkdf2('p', 's', 20_000, 32, 'sha256', resolve)));
    // About 115 KB with the pool busy: the rotation at 100 KB renames the file and waits for the write in flight.
    await writeLines(file, 'a', 0, 500, { pause: false });
    await file.close();
    await Promise.all(busy);
    expect([...numbers(`${path}.1`, 'a'), ...numbers(path, 'a')]).toEqual(Array.from({ length: 500 }, (_, i) => i));
  });

  it('a small file is never rotated', async () => {
    const path = join(folder, 'small', 'service.log');
    const file = openLogFile(path, { maxBytes: 1024 * 1024 });
    await writeLines(file, 'a', 0, 500);
    await closed(file);
    expect(existsSync(`${path}.1`)).toBe(false);
    expect(numbers(path, 'a')).toEqual(Array.from({ length: 500 }, (_, i) => i));
  });

  it('two writers of one file (two instances): when one rotates, the other follows into the new file', async () => {
    const path = join(folder, 'two', 'service.log');
    const first = openLogFile(path, { maxBytes: 100 * 1024 });
    const second = openLogFile(path, { maxBytes: 100 * 1024 });
    await writeLines(first, 'first', 0, 10);
    // The second writes enough to rotate the file under the first.
    await writeLines(second, 'second', 0, 700);
    expect(existsSync(`${path}.1`)).toBe(true);
    // The first notices at its next look (after 64 KB of its own lines, or within 5 s) and writes to the path again.
    await writeLines(first, 'first', 10, 400);
    await closed(first);
    await closed(second);
    const firstLines = numbers(path, 'first');
    expect(firstLines.at(-1)).toBe(409);
  });
});
