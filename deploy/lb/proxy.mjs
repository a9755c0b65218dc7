#!/usr/bin/env node
// The composition's load balancer: a small HTTP and WebSocket proxy in front of the service replicas, run with the
// project image's Node (no nginx image can be pulled here; with a registry, nginx or a cloud balancer does the same job:
// see docs/deployment.md). Round robin over the replicas that answer; a request whose connection to a replica fails
// before anything was sent back is sent to the next replica, so a replica that dies costs no request that had not
// reached it. WebSocket upgrades are spliced through and stay on the replica that accepted them.
//
//   UPSTREAMS=replica-1:8080,replica-2:8080 PORT=8080 node proxy.mjs
//   GET /lb/health   200 while at least one replica answers, with each replica's state
import http from 'node:http';
import net from 'node:net';

const port = Number(process.env.PORT ?? 8080);
const upstreams = (process.env.UPSTREAMS ?? '')
  .split(',')
  .map((entry) => entry.trim())
  .filter(Boolean)
  .map((entry) => {
    const [host, p] = entry.split(':');
    return { host, port: Number(p ?? 8080), up: true, sockets: new Set() };
  });
if (upstreams.length === 0) {
  console.error('lb: set UPSTREAMS=host:port,host:port');
  process.exit(2);
}
/** Largest request body buffered for a retry on another replica (the API's bodies are small). */
const MAX_BODY = 8 << 20;
let next = 0;
const NOT_CONNECTED = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

function pick(exclude) {
  for (let i = 0; i < upstreams.length; i++) {
    const upstream = upstreams[(next + i) % upstreams.length];
    if (upstream.up && !exclude.has(upstream)) {
      next = (next + i + 1) % upstreams.length;
      return upstream;
    }
  }
  // Nobody is known to be up: try one we have not tried yet anyway (the probe may be behind).
  return upstreams.find((upstream) => !exclude.has(upstream));
}

function markDown(upstream, gone = true) {
  if (upstream.up) console.error(`lb: ${upstream.host}:${upstream.port} is down`);
  upstream.up = false;
  if (!gone) return;
  // WebSockets spliced to a replica that is gone (its address refuses or is unreachable) may never see their
  // connection end (a container killed with its network gone sends nothing more): cut them, so their clients
  // reconnect through us to a live replica. A replica that is only slow keeps its sockets.
  for (const socket of upstream.sockets) socket.destroy();
  upstream.sockets.clear();
}

// Any HTTP answer means the replica is alive. The probe asks for a path the service answers at once (404), not
// /api/v1/health, which waits on every chain and the store: a chain that restarts must not take the replicas out.
function probe(upstream) {
  const req = http.get({ host: upstream.host, port: upstream.port, path: '/lb-probe', timeout: 3_000 }, (res) => {
    res.resume();
    if (!upstream.up) console.error(`lb: ${upstream.host}:${upstream.port} is up`);
    upstream.up = true;
  });
  req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })));
  req.on('error', (error) => markDown(upstream, NOT_CONNECTED.has(error.code)));
}
setInterval(() => upstreams.forEach(probe), 1_000).unref();
upstreams.forEach(probe);

const server = http.createServer((req, res) => {
  if (req.url === '/lb/health') {
    const alive = upstreams.some((u) => u.up);
    res.writeHead(alive ? 200 : 503, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ upstreams: upstreams.map((u) => ({ host: `${u.host}:${u.port}`, up: u.up })) }));
    return;
  }
  const chunks = [];
  let size = 0;
  req.on('data', (chunk) => {
    size += chunk.length;
    if (size <= MAX_BODY) chunks.push(chunk);
  });
  req.on('end', () => {
    if (size > MAX_BODY) {
      res.writeHead(413).end();
      return;
    }
    forward(req, res, Buffer.concat(chunks), new Set());
  });
});

function forward(req, res, body, tried) {
  const upstream = pick(tried);
  if (upstream === undefined) {
    res.writeHead(502, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { code: 'no_replica', message: 'no service replica answers' } }));
    return;
  }
  tried.add(upstream);
  const headers = { ...req.headers, 'x-forwarded-for': req.socket.remoteAddress ?? '', 'x-forwarded-host': req.headers.host ?? '' };
  const out = http.request({ host: upstream.host, port: upstream.port, method: req.method, path: req.url, headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  out.on('error', (error) => {
    markDown(upstream, NOT_CONNECTED.has(error.code));
    if (res.headersSent) {
      // The answer had begun: the client sees the cut, as it would from the replica itself.
      res.destroy(error);
      return;
    }
    // Retried on the next replica only when that cannot do the work twice: the connection never opened, the method
    // changes nothing, or the request carries an Idempotency-Key (the service replays its first answer).
    const neverSent = NOT_CONNECTED.has(error.code);
    const safe = SAFE_METHODS.has(req.method) || req.headers['idempotency-key'] !== undefined;
    if (neverSent || safe) {
      forward(req, res, body, tried);
      return;
    }
    res.writeHead(502, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({ error: { code: 'replica_lost', message: `the replica died while answering: ${error.code ?? error.message}` } }),
    );
  });
  out.end(body);
}

server.on('upgrade', (req, socket, head) => upgrade(req, socket, head, new Set()));

/** Splices a WebSocket upgrade through to a replica; one that refuses the connection is skipped for the next. */
function upgrade(req, socket, head, tried) {
  const upstream = pick(tried);
  if (upstream === undefined) {
    socket.destroy();
    return;
  }
  tried.add(upstream);
  let connected = false;
  const upstreamSocket = net.connect(upstream.port, upstream.host, () => {
    connected = true;
    upstreamSocket.setKeepAlive(true, 5_000);
    upstream.sockets.add(socket);
    const lines = [`${req.method} ${req.url} HTTP/${req.httpVersion}`];
    for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
    upstreamSocket.write(`${lines.join('\r\n')}\r\n\r\n`);
    if (head.length > 0) upstreamSocket.write(head);
    upstreamSocket.pipe(socket).pipe(upstreamSocket);
  });
  const close = () => {
    upstream.sockets.delete(socket);
    socket.destroy();
    upstreamSocket.destroy();
  };
  upstreamSocket.on('error', (error) => {
    // One socket's reset says nothing of the others; a refused or unreachable replica is gone for all of them.
    markDown(upstream, NOT_CONNECTED.has(error.code));
    if (!connected && !socket.destroyed) {
      upstreamSocket.destroy();
      upgrade(req, socket, head, tried);
      return;
    }
    close();
  });
  socket.on('error', close);
  upstreamSocket.on('close', () => {
    if (connected) close();
  });
  socket.on('close', close);
}

server.keepAliveTimeout = 65_000;
server.listen(port, '0.0.0.0', () =>
  console.error(`lb: listening on ${port}, replicas ${upstreams.map((u) => `${u.host}:${u.port}`).join(', ')}`),
);
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => process.exit(0));
