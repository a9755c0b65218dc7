import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonHeartbeat, jsonProgress } from './json-progress.js';

/** Under --json, progress is JSON lines on stderr: on each finished item (throttled) and through silences. */
const captured = () => {
  const lines: unknown[] = [];
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: unknown) => {
    lines.push(JSON.parse(String(chunk)));
    return true;
  });
  return lines;
};
afterEach(() => vi.restoreAllMocks());

describe('--json progress', () => {
  it('writes a heartbeat naming what runs after every interval of silence', async () => {
    const lines = captured();
    const heartbeat = jsonHeartbeat(60);
    heartbeat.set({ running: 'success-basic', done: 3, total: 51 });
    await new Promise((resolve) => setTimeout(resolve, 1_300));
    heartbeat.stop();
    expect(lines.length).toBeGreaterThanOrEqual(1);
    expect(lines[0]).toMatchObject({ progress: { running: 'success-basic', done: 3, total: 51, elapsedMs: expect.any(Number) } });
  });

  it('writes a line per finished check at most every interval, and always the last one', () => {
    const lines = captured();
    const onResult = jsonProgress(60_000);
    onResult({ id: 'a', status: 'PASSED' }, 0, 3);
    onResult({ id: 'b', status: 'PASSED' }, 1, 3);
    onResult({ id: 'c', status: 'FAILED' }, 2, 3);
    onResult.heartbeat.stop();
    expect(lines).toEqual([
      { progress: expect.objectContaining({ done: 1, total: 3, last: 'a' }) },
      { progress: expect.objectContaining({ done: 3, total: 3, last: 'c', status: 'FAILED' }) },
    ]);
  });
});
