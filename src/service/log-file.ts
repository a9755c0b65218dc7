import { fstatSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import pino from 'pino';

/**
 * The service's log file, rotated by size: a sandbox that lives for weeks logs every request (a scenario catalogue
 * run writes about 0.8 MB), so the file is renamed to `<file>.1` (replacing the one before) once it reaches its
 * limit, and a new file is started. Several instances may write one file (`--instances`): each checks the path's
 * size, and one that finds the path renamed under it by another reopens it.
 */
export interface LogFile {
  write(line: string): void;
  /**
   * Stops writing: a line logged after this is dropped (work of a stopped service can still log). Resolves once the
   * lines handed before are in the file and it is closed.
   */
  close(): Promise<void>;
}

/** 64 MiB unless `SANDBOX_LOG_MAX_MB` says otherwise. */
export function defaultLogLimit(): number {
  const megabytes = Number(process.env.SANDBOX_LOG_MAX_MB);
  return Number.isFinite(megabytes) && megabytes > 0 ? Math.round(megabytes * 1024 * 1024) : 64 * 1024 * 1024;
}

/** How much this process writes between two looks at the file's size. */
const CHECK_EVERY_BYTES = 64 * 1024;
const CHECK_EVERY_MS = 5_000;

export function openLogFile(path: string, options: { maxBytes?: number } = {}): LogFile {
  const maxBytes = options.maxBytes ?? defaultLogLimit();
  mkdirSync(dirname(path), { recursive: true });
  const destination = pino.destination({ dest: path, sync: false });
  // SonicBoom's descriptor (-1 until its asynchronous open completes); its typings leave it out.
  const descriptor = (): number => (destination as unknown as { fd: number }).fd;
  let closed = false;
  let sinceCheck = 0;
  // What the current file will hold once this process's writes are flushed: its size when this process began it,
  // plus what was handed to it since. The asynchronous destination lags behind on a busy machine, so the size on
  // disk alone let a file grow past its limit by what sat in the buffer at each look.
  let sizeAtStart = sizeOf(path);
  let handed = 0;
  // Every byte handed over, and every byte the destination reports written: the difference is still in its buffer,
  // and after a reopen that buffer goes to the new file, so a new file starts with it counted (a stalled disk had
  // let a fresh file begin with tens of KB nobody counted).
  let handedEver = 0;
  let writtenEver = 0;
  destination.on('write', (bytes: number) => {
    writtenEver += bytes;
  });
  // From a reopen until the new file is open, the descriptor is still the old file's: no look compares anything then.
  let reopening = false;
  destination.on('ready', () => {
    reopening = false;
  });
  const reopen = (sizeOfNewFile: number): void => {
    reopening = true;
    destination.reopen();
    sizeAtStart = sizeOfNewFile;
    handed = handedEver - writtenEver;
  };

  const check = (): void => {
    sinceCheck = 0;
    // The file is opened asynchronously: nothing to compare before it is.
    if (closed || reopening || descriptor() < 0) return;
    let onDisk: ReturnType<typeof statSync> | undefined;
    try {
      onDisk = statSync(path);
    } catch {
      onDisk = undefined;
    }
    try {
      const ours = fstatSync(descriptor());
      // Renamed or removed under us (another instance rotated it, or someone moved it): write to the path again.
      if (onDisk === undefined || onDisk.ino !== ours.ino || onDisk.dev !== ours.dev) {
        reopen(onDisk?.size ?? 0);
        return;
      }
      // Several instances may write the file: the size on disk counts theirs, the estimate ours not yet flushed.
      if (Math.max(onDisk.size, sizeAtStart + handed) >= maxBytes) {
        renameSync(path, `${path}.1`);
        reopen(0);
      }
    } catch {
      // A failed look is tried again at the next one; logging must never fail the service.
    }
  };
  // SonicBoom says 'close' once its buffer is written and the file closed. A failure to open or write the file goes
  // to stderr: logging must never fail the service (unheard, SonicBoom's 'error' would throw).
  const finished = new Promise<void>((resolve) => {
    destination.once('close', () => resolve());
    destination.on('error', (error: Error) => {
      process.stderr.write(`service log ${path}: ${error.message}\n`);
      resolve();
    });
  });
  const timer = setInterval(check, CHECK_EVERY_MS);
  timer.unref();

  return {
    write(line: string): void {
      if (closed) return;
      destination.write(line);
      const bytes = Buffer.byteLength(line);
      sinceCheck += bytes;
      handed += bytes;
      handedEver += bytes;
      // A look every 64 KB for other instances' writes, and at once when this process's own bring the file to its limit.
      if (sinceCheck >= CHECK_EVERY_BYTES || (!reopening && sizeAtStart + handed >= maxBytes)) check();
    },
    close(): Promise<void> {
      if (closed) return finished;
      closed = true;
      clearInterval(timer);
      // SonicBoom drops a reopen still waiting for a write when it is ended meanwhile, and with it the lines buffered
      // for the new file (and it never says 'close'): end it once the new file is open.
      if (reopening) destination.once('ready', () => destination.end());
      else destination.end();
      return finished;
    },
  };
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}
