/**
 * Progress of a long run (scenarios, conformance checks) for people, on stderr. On a terminal, a bar with a counter
 * stays on the last line and is redrawn as the run goes, with the lines of the run printed above it; anywhere else
 * (a pipe, a CI log) the lines pass through unchanged and no bar is drawn, so logs hold plain lines only.
 */

export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface ProgressLine {
  /** Text of the run (whole lines): printed above the bar. */
  write(text: string): void;
  /** The counter: `done` of `total` finished, `current` what runs now. */
  update(done: number, total: number, current?: string): void;
  /** Removes the bar (before the summary is printed). */
  end(): void;
  readonly isTTY: boolean;
}

const BAR_WIDTH = 24;

/** The bar's text: `[12/51] ███████░░░░ 23 % · 14 s · running success-basic`, cut to the terminal's width. */
export function renderBar(done: number, total: number, elapsedMs: number, current: string | undefined, columns = 100): string {
  const ratio = total > 0 ? Math.min(1, done / total) : 0;
  const filled = Math.round(ratio * BAR_WIDTH);
  const width = String(total).length;
  const text =
    `[${String(done).padStart(width)}/${total}] ${'█'.repeat(filled)}${'░'.repeat(BAR_WIDTH - filled)} ` +
    `${String(Math.floor(ratio * 100)).padStart(3)} % · ${Math.floor(elapsedMs / 1000)} s${current ? ` · ${current}` : ''}`;
  return text.length >= columns ? `${text.slice(0, Math.max(0, columns - 2))}…` : text;
}

export function createProgressLine(stream: ProgressStream, now: () => number = Date.now): ProgressLine {
  const tty = stream.isTTY === true;
  const started = now();
  let bar: { done: number; total: number; current: string | undefined } | undefined;
  let shown = false;
  let timer: ReturnType<typeof setInterval> | undefined;
  const clear = () => {
    if (shown) stream.write('\r\u001b[2K');
    shown = false;
  };
  const draw = () => {
    if (bar === undefined) return;
    clear();
    // A terminal that reports no size (a pseudo-terminal without one says 0 columns) gets the usual 100.
    const columns = stream.columns !== undefined && stream.columns >= 20 ? stream.columns : 100;
    stream.write(renderBar(bar.done, bar.total, now() - started, bar.current, columns));
    shown = true;
  };
  return {
    isTTY: tty,
    write(text) {
      if (!tty) {
        stream.write(text);
        return;
      }
      clear();
      stream.write(text);
      draw();
    },
    update(done, total, current) {
      if (!tty) return;
      bar = { done, total, current };
      draw();
      // The seconds keep counting while one long scenario or check runs.
      timer ??= setInterval(draw, 1_000);
      timer.unref?.();
    },
    end() {
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
      clear();
      bar = undefined;
    },
  };
}
