import { describe, expect, it } from 'vitest';
import { createProgressLine, renderBar } from './progress-line.js';

const sink = (isTTY: boolean) => {
  const written: string[] = [];
  return { written, stream: { isTTY, columns: 80, write: (text: string) => written.push(text) } };
};

describe('progress line', () => {
  it('draws a counter, a bar, the percentage, the elapsed time and what runs, cut to the width', () => {
    expect(renderBar(12, 48, 14_200, 'running success-basic')).toBe(
      '[12/48] ██████░░░░░░░░░░░░░░░░░░  25 % · 14 s · running success-basic',
    );
    expect(renderBar(0, 0, 0, undefined)).toBe('[0/0] ░░░░░░░░░░░░░░░░░░░░░░░░   0 % · 0 s');
    expect(renderBar(1, 2, 0, 'x'.repeat(200), 40)).toHaveLength(39);
  });

  it('on a terminal keeps the bar on the last line: lines go above it, end() clears it', () => {
    const { written, stream } = sink(true);
    const line = createProgressLine(stream, () => 0);
    line.update(1, 4, 'running a');
    line.write('a passed\n');
    line.end();
    expect(written).toEqual([
      '[1/4] ██████░░░░░░░░░░░░░░░░░░  25 % · 0 s · running a',
      '\r\u001b[2K',
      'a passed\n',
      '[1/4] ██████░░░░░░░░░░░░░░░░░░  25 % · 0 s · running a',
      '\r\u001b[2K',
    ]);
  });

  it('elsewhere (a pipe, a CI log) passes the lines through and draws no bar', () => {
    const { written, stream } = sink(false);
    const line = createProgressLine(stream);
    line.update(1, 4, 'running a');
    line.write('a passed\n');
    line.end();
    expect(written).toEqual(['a passed\n']);
  });
});
