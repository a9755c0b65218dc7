import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { delimiter, dirname, join } from 'node:path';
import { BaseError } from '../../../contracts/errors/base-error.js';

/**
 * A Postgres server of our own, for `sandbox up --database postgres` without a URL and for the test suite: Debian's
 * `postgresql` binaries (or any found on PATH, or in SANDBOX_POSTGRES_BIN), a data folder in the state folder, a
 * loopback port. Postgres refuses to run as root, so as root the server runs as the `postgres` system user.
 */
export interface LocalPostgres {
  url: string;
  port: number;
  dataDir: string;
  pid: number;
  stop(): Promise<void>;
}

export interface LocalPostgresOptions {
  dataDir: string;
  /** A port the user named: used as it is, never another. Without it a free loopback port is chosen. */
  port?: number | undefined;
  /** How a free port is chosen (tests put a taken one first). */
  pickPort?: () => Promise<number>;
  /** Skip fsync and WAL flushing: for throwaway test clusters, where durability buys nothing. */
  ephemeral?: boolean | undefined;
}

export class LocalPostgresError extends BaseError {
  override readonly name = 'LocalPostgresError';
}

/** The port was taken between choosing it and the server binding it, or another server answers on it. */
class PortTakenError extends LocalPostgresError {}

/** Attempts at a chosen port before giving up (each one a port found free a moment before). */
const PORT_ATTEMPTS = 5;

const DATABASE = 'sandbox';
const SUPERUSER = 'sandbox';

/** The folder holding `initdb`, `postgres` and `pg_ctl`. */
export function findPostgresBinaries(): string {
  const candidates: string[] = [];
  if (process.env.SANDBOX_POSTGRES_BIN) candidates.push(process.env.SANDBOX_POSTGRES_BIN);
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const pgCtl = join(dir, 'pg_ctl');
    if (dir !== '' && existsSync(pgCtl)) candidates.push(dirname(realpathSync(pgCtl)));
  }
  for (const root of ['/usr/lib/postgresql', '/usr/local/lib/postgresql']) {
    if (!existsSync(root)) continue;
    const versions = readdirSync(root)
      .filter((name) => /^\d+$/.test(name))
      .sort((a, b) => Number(b) - Number(a));
    candidates.push(...versions.map((version) => join(root, version, 'bin')));
  }
  const found = candidates.find((dir) => existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'postgres')));
  if (found === undefined) {
    throw new LocalPostgresError(
      'no Postgres server binaries found (initdb, postgres): install them (Debian/Ubuntu: apt-get install postgresql; ' +
        'macOS: brew install postgresql) or set SANDBOX_POSTGRES_BIN to their folder, or pass --database-url',
    );
  }
  return found;
}

/** The system user a server runs as when we are root: ids and home folder. */
export interface PostgresServerUser {
  uid: number;
  gid: number;
  home: string;
}

/** Who runs the server: ourselves (undefined), or the `postgres` system user when we are root. */
export function postgresServerUser(): PostgresServerUser | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('postgres:'));
  if (line === undefined) {
    throw new LocalPostgresError('Postgres refuses to run as root and there is no `postgres` user to run it as: run as another user');
  }
  const [, , uid, gid, , home] = line.split(':');
  return { uid: Number(uid), gid: Number(gid), home: home ?? '' };
}

/** The first folder above `dataDir` that `user` cannot enter (no search permission for it), if any. */
export function unreachableAncestor(dataDir: string, user: { uid: number; gid: number } | undefined): string | undefined {
  if (user === undefined) return undefined;
  for (let dir = dirname(dataDir); ; dir = dirname(dir)) {
    if (existsSync(dir)) {
      const { mode, uid, gid } = statSync(dir);
      const search = uid === user.uid ? mode & 0o100 : gid === user.gid ? mode & 0o010 : mode & 0o001;
      if (search === 0) return dir;
    }
    if (dirname(dir) === dir) return undefined;
  }
}

async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

/** Whether the folder a server reports is `ours` (its path as given, or the same folder through a link). */
function sameFolder(reported: string | undefined, ours: string): boolean {
  if (reported === undefined) return false;
  if (reported === ours) return true;
  try {
    return realpathSync(reported) === ours;
  } catch {
    return false;
  }
}

/** Every folder above the data folder must be enterable by the server's user. */
function assertReachable(dataDir: string, user: PostgresServerUser | undefined): void {
  const blocked = unreachableAncestor(dataDir, user);
  if (blocked !== undefined) {
    throw new LocalPostgresError(
      `Postgres runs as the postgres user (we are root) and cannot enter ${blocked}: choose a data folder it can reach, or pass --database-url`,
    );
  }
}

/** Initialises the data folder on first use, starts the server and waits until it accepts connections. */
export async function startLocalPostgres(options: LocalPostgresOptions): Promise<LocalPostgres> {
  const bin = findPostgresBinaries();
  const user = postgresServerUser();
  const dataDir = options.dataDir;
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  assertReachable(dataDir, user);
  if (user !== undefined) chownSync(dataDir, user.uid, user.gid);
  const asUser = user === undefined ? {} : { uid: user.uid, gid: user.gid };
  if (!existsSync(join(dataDir, 'PG_VERSION'))) {
    try {
      execFileSync(
        join(bin, 'initdb'),
        ['-D', dataDir, '-U', SUPERUSER, '--auth=trust', '--encoding=UTF8', '--locale=C', '--no-instructions'],
        { ...asUser, stdio: 'pipe' },
      );
    } catch (error) {
      const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
      throw new LocalPostgresError(`initdb failed in ${dataDir}: ${stderr || (error as Error).message}`);
    }
  }
  for (let attempt = 1; ; attempt++) {
    // A port found free can be taken before the server binds it (any process's outgoing connection, another test's
    // server): a port we chose is chosen again; a port the user named is not swapped behind their back.
    const port = options.port ?? (await (options.pickPort ?? freePort)());
    try {
      return await launch(bin, dataDir, port, asUser, options.ephemeral === true);
    } catch (error) {
      if (!(error instanceof PortTakenError) || options.port !== undefined || attempt >= PORT_ATTEMPTS) throw error;
    }
  }
}

/** Starts the server on `port` and waits until it, and not another server on that port, accepts connections. */
async function launch(
  bin: string,
  dataDir: string,
  port: number,
  asUser: { uid?: number; gid?: number },
  ephemeral: boolean,
): Promise<LocalPostgres> {
  const settings = [
    '-D',
    dataDir,
    '-p',
    String(port),
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    `unix_socket_directories=${dataDir}`,
    '-c',
    'max_connections=200',
    ...(ephemeral ? ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'] : []),
  ];
  const child: ChildProcess = spawn(join(bin, 'postgres'), settings, { ...asUser, stdio: ['ignore', 'ignore', 'pipe'], detached: false });
  let log = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-4_000);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `postgres://${SUPERUSER}@127.0.0.1:${port}/${DATABASE}`;
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    // SIGINT is Postgres's "fast shutdown": roll back open transactions, write a checkpoint, exit.
    child.kill('SIGINT');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  const { default: pg } = await import('pg');
  const ours = realpathSync(dataDir);
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) {
      if (/could not bind|already in use/i.test(log)) throw new PortTakenError(`port ${port} is taken: ${log.trim()}`);
      throw new LocalPostgresError(`postgres exited with code ${child.exitCode}: ${log.trim()}`);
    }
    const client = new pg.Client({ host: '127.0.0.1', port, user: SUPERUSER, database: 'postgres' });
    try {
      await client.connect();
      // Whoever answers on the port must be the server just started: another one of ours (a parallel test's) would
      // accept the same user and hand out its own database.
      const served = await client.query<{ data_directory: string }>('SHOW data_directory');
      if (!sameFolder(served.rows[0]?.data_directory, ours)) {
        await client.end().catch(() => {});
        await stop();
        throw new PortTakenError(`port ${port} is served by another Postgres (${served.rows[0]?.data_directory ?? 'unknown folder'})`);
      }
      const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
      if (exists.rowCount === 0) await client.query(`CREATE DATABASE ${DATABASE}`);
      await client.end();
      break;
    } catch (error) {
      if (error instanceof PortTakenError) throw error;
      await client.end().catch(() => {});
      // A server that answers but refuses our user is someone else's.
      if (/password authentication|role .* does not exist|no pg_hba/i.test((error as Error).message)) {
        await stop();
        throw new PortTakenError(`port ${port} is served by another Postgres: ${(error as Error).message}`);
      }
      if (Date.now() > deadline) {
        await stop();
        throw new LocalPostgresError(`postgres did not accept connections within 30 s: ${(error as Error).message}; ${log.trim()}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return { url, port, dataDir, pid: child.pid ?? 0, stop };
}

/**
 * A throwaway server in a fresh temporary folder (the test suite, the bench): fast settings, and a folder the
 * `postgres` user can enter when we are root. `stop()` removes the folder too.
 */
export async function startScratchPostgres(options: { prefix?: string; ephemeral?: boolean } = {}): Promise<LocalPostgres> {
  const root = mkdtempSync(join(tmpdir(), options.prefix ?? 'sandbox-pg-'));
  chmodSync(root, 0o755);
  try {
    const server = await startLocalPostgres({ dataDir: join(root, 'data'), ephemeral: options.ephemeral ?? true });
    return {
      ...server,
      stop: async () => {
        await server.stop();
        rmSync(root, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
}
