/**
 * Orphan protection for chain processes: no anvil may outlive its sandbox, also when the owning process is
 * killed with SIGKILL and runs no cleanup at all.
 *
 * Each anvil runs under a tiny POSIX sh wrapper whose stdin is a pipe from the owner. The kernel closes that
 * pipe whatever way the owner dies, a background `read` in the wrapper sees end-of-file and stops anvil.
 * Chosen over a parent-pid poll (latency = poll interval, wakes up forever) and over `setpriv --pdeathsig`
 * (Linux only); the wrapper costs about 1 ms at start and nothing while idle.
 *
 * The wrapper also forwards SIGTERM/SIGINT to anvil, waits for it, and removes anvil's `--cache-path`
 * folder (named by SANDBOX_CACHE_PATH) once anvil is gone, so even a killed sandbox leaves no cache behind.
 */
const WRAPPER = [
  // Keep the owner's pipe on fd 3 only; anvil itself gets no stdin and no copy of the pipe.
  'exec 3<&0 </dev/null',
  '"$@" 3<&- &',
  'a=$!',
  // The owner learns the pids from the output it already reads for anvil's "Listening on" line.
  'echo "sandbox-anvil wrapper=$$ anvil=$a"',
  // `read` is a shell builtin: the watcher is this subshell alone, and killing it leaves nothing behind.
  '( while read -r _ <&3; do :; done; kill -TERM $a 2>/dev/null ) &',
  'w=$!',
  'exec 3<&-',
  "trap 'kill -TERM $a 2>/dev/null' TERM INT HUP",
  's=0',
  // A trapped signal interrupts `wait`; keep waiting until anvil has really exited.
  'while kill -0 $a 2>/dev/null; do wait $a; s=$?; done',
  'kill $w 2>/dev/null',
  '[ -n "$SANDBOX_CACHE_PATH" ] && rm -rf "$SANDBOX_CACHE_PATH"',
  'exit $s',
].join('\n');

export const WATCHDOG_PROCESS_NAME = 'sandbox-anvil';

const PIDS_LINE = /sandbox-anvil wrapper=(\d+) anvil=(\d+)/;

/** Reads the pids the wrapper announces on its first line of output. */
export function parseWatchdogPids(output: string): { wrapper: number; anvil: number } | undefined {
  const match = PIDS_LINE.exec(output);
  return match?.[1] && match[2] ? { wrapper: Number(match[1]), anvil: Number(match[2]) } : undefined;
}

/** Command line that runs `binary args…` under the watchdog wrapper; give the child a piped stdin. */
export function watchdogCommand(binary: string, args: readonly string[]): { file: string; args: string[] } {
  return { file: '/bin/sh', args: ['-c', WRAPPER, WATCHDOG_PROCESS_NAME, binary, ...args] };
}
