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
async function writeLines(file: LogFile, writer: string, from: number, count: number): Promise<void> {
  for (let n = from; n < from + count; n += 1) {
    file.write(line(writer, n));
    if (n % 100 === 99) await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function closed(file: LogFile): Promise<void> {
  file.close();
  await new Promise((resolve) => setTimeout(resolve, 100));
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
    // Each file stays near its limit (a rotation happens at the next look, every 64 KB written).
    expect(statSync(`${path}.1`).size).toBeLessThan(100 * 1024 + 80 * 1024);
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
