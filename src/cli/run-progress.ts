import { createProgressLine } from '../terminal/progress-line.js';
import { jsonHeartbeat, jsonProgress } from './json-progress.js';
import type { RunEvent } from '../../scenarios/index.js';

/**
 * Progress of the long runs (`conformance`, `certify`, `scenario run`), always on stderr: on a terminal the run's
 * lines with a bar and counter kept on the last line, elsewhere the plain lines, and under `--json` a JSON line per
 * finished item (throttled) with a heartbeat through silences (json-progress.ts).
 */

type CheckResultLike = { id: string; status: string };
type OnResult<R extends CheckResultLike> = (result: R, index: number, total: number) => void;

export interface CheckProgress<R extends CheckResultLike> {
  onResult: OnResult<R>;
  /** Ends the bar or the heartbeat: call before printing the summary. */
  end(): void;
}

/** For the conformance runner's `onResult`; `printer` is the reporter's line printer for a stream. */
export function checkProgress<R extends CheckResultLike>(
  json: boolean,
  printer: (stream: { write(text: string): unknown; isTTY?: boolean }) => OnResult<R>,
): CheckProgress<R> {
  // Both end by themselves with the last result, so the summary that follows prints on a clean line; `end()` is for
  // a run that stops early.
  if (json) {
    const progress = jsonProgress();
    return {
      onResult: (result, index, total) => {
        progress(result, index, total);
        if (index + 1 >= total) progress.heartbeat.stop();
      },
      end: () => progress.heartbeat.stop(),
    };
  }
  const line = createProgressLine(process.stderr);
  const print = printer({ write: (text) => line.write(text), isTTY: process.stderr.isTTY === true });
  return {
    onResult: (result, index, total) => {
      print(result, index, total);
      if (index + 1 >= total) line.end();
      else line.update(index + 1, total, `last ${result.id}`);
    },
    end: () => line.end(),
  };
}

export interface ScenarioProgress {
  onEvent(event: RunEvent): void;
  end(): void;
}

/** `scenario run`: `print` is the human printer of the scenario reporter (whole lines). */
export function scenarioRunProgress(json: boolean, print: (write: (text: string) => void) => (event: RunEvent) => void): ScenarioProgress {
  if (json) {
    const heartbeat = jsonHeartbeat();
    let done = 0;
    return {
      onEvent(event) {
        if (event.type === 'target.starting') heartbeat.set({ running: event.description });
        if (event.type === 'scenario.start') heartbeat.set({ running: event.name, done: event.index - 1, total: event.total });
        if (event.type === 'scenario.end') {
          done += 1;
          heartbeat.set({ done, running: null });
          heartbeat.line({ scenario: event.result.name, status: event.result.status });
        }
      },
      end: () => heartbeat.stop(),
    };
  }
  const line = createProgressLine(process.stderr);
  const printEvent = print((text) => line.write(text));
  let total = 0;
  let done = 0;
  return {
    onEvent(event) {
      printEvent(event);
      if (event.type === 'scenario.start') {
        total = event.total;
        line.update(done, total, `running ${event.name}`);
      }
      if (event.type === 'scenario.end') {
        done += 1;
        line.update(done, total);
      }
    },
    end: () => line.end(),
  };
}
