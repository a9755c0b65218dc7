#!/usr/bin/env node
// The container's main process: runs `sandbox up` (chains, contracts, service, reference solvers) and, once it is
// ready, writes /app/sandbox.json with the URLs a client outside the container uses.
//
// SANDBOX_NETWORK=bridge (default, `docker run -p 127.0.0.1:8080:8080 -p 127.0.0.1:8545:8545 -p 127.0.0.1:8546:8546`):
//   the sandbox listens on loopback inside the container (18080, 18545, 18546) and this process forwards the
//   published ports 8080 (API and WebSockets), 8545 and 8546 (chain JSON-RPC) from 0.0.0.0 to them. /app/sandbox.json
//   names the published container ports, so it is right as is when the host maps each port to the same number, and
//   the harness (`--image`) rewrites each port to the one Docker mapped it to.
// SANDBOX_NETWORK=host (`docker run --network host`, what `sandbox conformance --image` uses for our image): the
//   sandbox binds the host's loopback on free ports; /app/sandbox.json is sandbox.json as is. Webhooks to receivers
//   on the host's 127.0.0.1 arrive (the sandbox accepts only loopback receiver URLs).
// Arguments are passed on to `sandbox up` (e.g. `--solvers 0`, `--webhook-profile B`).
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';

const STATE_DIR = '/app/.sandbox';
const OUT = '/app/sandbox.json';
const network = process.env.SANDBOX_NETWORK ?? 'bridge';
if (network !== 'bridge' && network !== 'host') {
  console.error(`entrypoint: SANDBOX_NETWORK must be bridge or host, got ${network}`);
  process.exit(2);
}

/** Published container port → loopback port the sandbox listens on (bridge mode). */
const FORWARDS = [
  [8080, 18080],
  [8545, 18545],
  [8546, 18546],
];

const upArgs =
  network === 'bridge'
    ? ['--port', '18080', '--chain-ports', '18545,18546']
    : ['--port', process.env.SANDBOX_PORT ?? '0', '--chain-ports', process.env.SANDBOX_CHAIN_PORTS ?? 'any'];

const servers = [];
if (network === 'bridge') {
  for (const [published, inner] of FORWARDS) {
    const server = net.createServer((client) => {
      const upstream = net.connect(inner, '127.0.0.1');
      client.pipe(upstream).pipe(client);
      const close = () => {
        client.destroy();
        upstream.destroy();
      };
      client.on('error', close);
      upstream.on('error', close);
    });
    server.listen(published, '0.0.0.0');
    servers.push(server);
  }
}

const child = spawn(process.execPath, ['/app/dist/src/cli/main.js', 'up', '--json', '--state-dir', STATE_DIR, ...upArgs, ...process.argv.slice(2)], {
  stdio: ['ignore', 'pipe', 'inherit'],
});

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
  writeFileSync(OUT, `${JSON.stringify(network === 'bridge' ? publishedView(manifest) : manifest, null, 2)}\n`);
  console.log(`sandbox ready: ${OUT} (${network} network; API ${readManifestUrl()})`);
});

function readManifestUrl() {
  return JSON.parse(readFileSync(OUT, 'utf8')).api?.url;
}

/** Rewrites every loopback URL of an inner port to the published container port. */
function publishedView(manifest) {
  const ports = new Map(FORWARDS.map(([published, inner]) => [String(inner), String(published)]));
  return JSON.parse(
    JSON.stringify(manifest).replace(/(https?|wss?):\/\/(127\.0\.0\.1|localhost):(\d+)/g, (whole, scheme, _host, port) =>
      ports.has(port) ? `${scheme}://127.0.0.1:${ports.get(port)}` : whole,
    ),
  );
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
