import { chmodSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalPostgres, startLocalPostgres, startScratchPostgres } from './local-server.js';

/**
 * A chosen port can be taken between choosing and binding it. The server must then start on another port, and must
 * never hand out another server that happens to answer on the port (another test's, with the same user).
 */
let other: LocalPostgres;
const folders: string[] = [];
const started: LocalPostgres[] = [];

beforeAll(async () => {
  other = await startScratchPostgres({ prefix: 'local-server-other-' });
}, 60_000);

afterAll(async () => {
  for (const server of started) await server.stop();
  await other?.stop();
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

function dataFolder(): string {
  const root = mkdtempSync(join(tmpdir(), 'local-server-'));
  // As root the server runs as the postgres user, which must enter the folder.
  chmodSync(root, 0o755);
  folders.push(root);
  return join(root, 'data');
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Picks the given ports first, then free ones. */
function picker(...first: number[]): { pick: () => Promise<number>; picked: number[] } {
  const picked: number[] = [];
  return {
    picked,
    pick: async () => {
      const port = first.shift() ?? (await freePort());
      picked.push(port);
      return port;
    },
  };
}

async function dataDirectoryOf(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ data_directory: string }>('SHOW data_directory')).rows[0]!.data_directory;
  } finally {
    await client.end();
  }
}

describe('a local Postgres on a port that is taken', () => {
  it('a chosen port served by another Postgres is not used: the server starts on the next port, and its URL reaches it', async () => {
    const dataDir = dataFolder();
    const ports = picker(other.port);
    const server = await startLocalPostgres({ dataDir, ephemeral: true, pickPort: ports.pick });
    started.push(server);
    expect(ports.picked[0]).toBe(other.port);
    expect(server.port).not.toBe(other.port);
    expect(realpathSync(await dataDirectoryOf(server.url))).toBe(realpathSync(dataDir));
    // The other server was left alone.
    expect(realpathSync(await dataDirectoryOf(other.url))).not.toBe(realpathSync(dataDir));
  }, 60_000);

  it('a chosen port held by any other listener: the server starts on the next port', async () => {
    const squatter: Server = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', () => resolve()));
    try {
      const taken = (squatter.address() as { port: number }).port;
      const ports = picker(taken);
      const dataDir = dataFolder();
      const server = await startLocalPostgres({ dataDir, ephemeral: true, pickPort: ports.pick });
      started.push(server);
      expect(ports.picked.length).toBeGreaterThanOrEqual(2);
      expect(server.port).not.toBe(taken);
      expect(realpathSync(await dataDirectoryOf(server.url))).toBe(realpathSync(dataDir));
    } finally {
      await new Promise((resolve) => squatter.close(resolve));
    }
  }, 60_000);

  it('a port the user named that another Postgres serves: a clear error, no other port, and that server untouched', async () => {
    await expect(startLocalPostgres({ dataDir: dataFolder(), ephemeral: true, port: other.port })).rejects.toThrow(
      new RegExp(`port ${other.port} is (taken|served by another Postgres)`),
    );
    const client = new pg.Client({ connectionString: other.url });
    await client.connect();
    expect((await client.query('SELECT 1 AS one')).rows[0]).toEqual({ one: 1 });
    await client.end();
  }, 60_000);
});
