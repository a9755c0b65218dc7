#!/usr/bin/env node
// The container's main process: runs `sandbox up` (chains, contracts, service, reference solvers) and, once it is
// ready, writes /app/sandbox.json with the URLs a client outside the container uses.
//
// SANDBOX_NETWORK=bridge (default, `docker run -p 127.0.0.1:8080:8080 -p 127.0.0.1:8545:8545 -p 127.0.0.1:8546:8546`):
//   the sandbox listens on the container's loopback on 8080 (API and WebSockets), 8545 and 8546 (chain JSON-RPC), and
//   this process forwards the same ports from the container's own network addresses (where Docker delivers published
//   ports) to them. The sandbox itself stays unchanged (loopback only; the service's webhook policy and the URLs it
//   advertises are those of `sandbox up`), and /app/sandbox.json is right as is when the host maps each port to the
//   same number; the harness (`--image`) rewrites each port to the one Docker mapped it to.
// SANDBOX_NETWORK=host (`docker run --network host`, what `sandbox conformance --image` uses for our image): the
//   sandbox binds the host's loopback on free ports; /app/sandbox.json is sandbox.json as is. Webhooks to receivers
//   on the host's 127.0.0.1 arrive (the sandbox accepts only loopback receiver URLs).
// Arguments are passed on to `sandbox up` (e.g. `--solvers 0`, `--webhook-profile B`).
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { networkInterfaces } from 'node:os';

const STATE_DIR = '/app/.sandbox';
const OUT = '/app/sandbox.json';
const network = process.env.SANDBOX_NETWORK ?? 'bridge';
if (network !== 'bridge' && network !== 'host') {
  console.error(`entrypoint: SANDBOX_NETWORK must be bridge or host, got ${network}`);
  process.exit(2);
}

/** Ports the sandbox listens on in bridge mode, forwarded from the container's network addresses. */
const PORTS = [8080, 8545, 8546];

const upArgs =
  network === 'bridge'
    ? ['--port', '8080', '--chain-ports', '8545,8546']
    : ['--port', process.env.SANDBOX_PORT ?? '0', '--chain-ports', process.env.SANDBOX_CHAIN_PORTS ?? 'any'];

const servers = [];
const addresses = Object.values(networkInterfaces())
  .flat()
  .filter((a) => a !== undefined && !a.internal && a.family === 'IPv4')
  .map((a) => a.address);
if (network === 'bridge') {
  for (const [port, address] of PORTS.flatMap((p) => addresses.map((a) => [p, a]))) {
    const server = net.createServer((client) => {
      const upstream = net.connect(port, '127.0.0.1');
      client.pipe(upstream).pipe(client);
      const close = () => {
        client.destroy();
        upstream.destroy();
      };
      client.on('error', close);
      upstream.on('error', close);
    });
    server.listen(port, address);
    servers.push(server);
  }
}

const child = spawn(
  process.execPath,
  ['/app/dist/src/cli/main.js', 'up', '--json', '--state-dir', STATE_DIR, ...upArgs, ...process.argv.slice(2)],
  {
    stdio: ['ignore', 'pipe', 'inherit'],
  },
);

let stdout = '';
let ready = false;
child.stdout.setEncoding('utf8');
child.stdout.on('data', (chunk) => {
  stdout += chunk;
  if (ready) return;
  let manifest;
  try {
    manifest = JSON.parse(stdout);
  } catch {
    return; // not one whole document yet
  }
  ready = true;
  if (!Array.isArray(manifest.chains) || manifest.api === undefined) {
    console.error(`entrypoint: sandbox up did not start: ${JSON.stringify(manifest)}`);
    child.kill('SIGINT');
    return;
  }
  writeFileSync(OUT, `${JSON.stringify(manifest, null, 2)}\n`);
  console.log(`sandbox ready: ${OUT} (${network} network; API ${readManifestUrl()})`);
});

function readManifestUrl() {
  return JSON.parse(readFileSync(OUT, 'utf8')).api?.url;
}

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    child.kill('SIGINT'); // `sandbox up` stops everything on Ctrl-C
  });
}
child.on('exit', (code, signal) => {
  for (const server of servers) server.close();
  process.exit(code ?? (signal ? 128 : 1));
});
