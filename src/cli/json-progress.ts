/**
 * Progress of a long `--json` run: stdout holds the one result document, so progress goes to stderr as one JSON
 * object a line, at most every few seconds, so that a script (or a person watching CI) sees the run is alive.
 */
export function jsonProgress(intervalMs = 5_000): (result: { id: string; status: string }, index: number, total: number) => void {
  let last = 0;
  return (result, index, total) => {
    const now = Date.now();
    if (now - last < intervalMs && index + 1 < total) return;
    last = now;
    process.stderr.write(`${JSON.stringify({ progress: { done: index + 1, total, last: result.id, status: result.status } })}\n`);
  };
}
