/**
 * Progress of a long `--json` run: stdout holds the one result document, so progress goes to stderr as one JSON
 * object a line (`{"progress": {…}}`). A line comes when something finishes (at most every few seconds), and a
 * heartbeat line after every few seconds of silence, naming what runs and for how long, so that a script (or a person
 * watching CI) sees the run is alive even while one scenario or check, or the start of a sandbox, takes 30 s.
 */
export interface JsonHeartbeat {
  /** What the run is at now (`done`, `total`, `running`…): the next heartbeat line carries it. */
  set(fields: Record<string, unknown>): void;
  /** Writes a progress line now (with the current fields). */
  line(fields?: Record<string, unknown>): void;
  stop(): void;
}

export function jsonHeartbeat(intervalMs = 5_000, now: () => number = Date.now): JsonHeartbeat {
  const started = now();
  let state: Record<string, unknown> = {};
  let lastWrite = started;
  const write = (fields: Record<string, unknown>) => {
    lastWrite = now();
    process.stderr.write(`${JSON.stringify({ progress: { ...state, ...fields, elapsedMs: lastWrite - started } })}\n`);
  };
  const timer = setInterval(
    () => {
      if (now() - lastWrite >= intervalMs) write({});
    },
    Math.min(intervalMs, 1_000),
  );
  timer.unref?.();
  return {
    set(fields) {
      state = { ...state, ...fields };
    },
    line(fields = {}) {
      write(fields);
    },
    stop() {
      clearInterval(timer);
    },
  };
}

/**
 * `onResult` of the conformance runner under `--json`: a line per finished check at most every `intervalMs`, and
 * the heartbeat between them.
 */
export function jsonProgress(
  intervalMs = 5_000,
): ((result: { id: string; status: string }, index: number, total: number) => void) & { heartbeat: JsonHeartbeat } {
  const heartbeat = jsonHeartbeat(intervalMs);
  heartbeat.set({ done: 0 });
  let last = 0;
  const onResult = (result: { id: string; status: string }, index: number, total: number) => {
    heartbeat.set({ done: index + 1, total, last: result.id, status: result.status });
    const now = Date.now();
    if (now - last < intervalMs && index + 1 < total) return;
    last = now;
    heartbeat.line();
  };
  return Object.assign(onResult, { heartbeat });
}
