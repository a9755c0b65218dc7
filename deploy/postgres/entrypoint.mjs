#!/usr/bin/env node
// The Postgres container's main process: initialises $PGDATA on first start (user and database `sandbox`, password
// from POSTGRES_PASSWORD, required from other hosts), then runs the server as the `postgres` user and hands it the
// container's stop signal as Postgres's fast shutdown (roll back, checkpoint, exit).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, appendFileSync, writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const UID = 999;
const data = process.env.PGDATA ?? '/var/lib/postgresql/data';
const password = process.env.POSTGRES_PASSWORD;
if (!password) {
  console.error('postgres: set POSTGRES_PASSWORD (clients on other containers log in with it)');
  process.exit(2);
}
const asPostgres = { uid: UID, gid: UID };
mkdirSync(data, { recursive: true, mode: 0o700 });
chownSync(data, UID, UID);
mkdirSync('/run/postgresql', { recursive: true });
chownSync('/run/postgresql', UID, UID);

if (!existsSync(join(data, 'PG_VERSION'))) {
  const pwfile = '/run/postgresql/pwfile';
  writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  chownSync(pwfile, UID, UID);
  execFileSync(
    'initdb',
    ['-D', data, '-U', 'sandbox', `--pwfile=${pwfile}`, '--auth-local=trust', '--auth-host=scram-sha-256', '--encoding=UTF8', '--locale=C'],
    { ...asPostgres, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  rmSync(pwfile);
  appendFileSync(join(data, 'pg_hba.conf'), '\nhost all all 0.0.0.0/0 scram-sha-256\nhost all all ::/0 scram-sha-256\n');
  const single = spawnSync('postgres', ['--single', '-D', data, 'postgres'], { ...asPostgres, input: 'CREATE DATABASE sandbox;\n' });
  if (single.status !== 0) {
    console.error(`postgres: creating the database failed: ${single.stderr}`);
    process.exit(1);
  }
  console.error('postgres: initialised (user sandbox, database sandbox)');
}

const server = spawn(
  'postgres',
  ['-D', data, '-c', 'listen_addresses=*', '-c', 'max_connections=200', '-c', 'unix_socket_directories=/run/postgresql'],
  { ...asPostgres, stdio: 'inherit' },
);
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => server.kill('SIGINT'));
server.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
