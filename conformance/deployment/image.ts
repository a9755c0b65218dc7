import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { BaseError } from '../../src/contracts/errors/base-error.js';

const exec = promisify(execFile);

/** No Docker engine answers: `--image` cannot run here (exit 2). */
export class NoDockerEngine extends BaseError {
  override readonly name = 'NoDockerEngine';
  override readonly code = 'no_docker_engine';
}

/** The image started but never became ready (exit 2: the deployment is unreachable, not non-conformant). */
export class ImageNotReady extends BaseError {
  override readonly name = 'ImageNotReady';
  override readonly code = 'image_not_ready';
}

export interface DockerEngine {
  /** How it was found: DOCKER_HOST, the socket, or the CLI. */
  via: string;
  serverVersion: string;
}

/**
 * Looks for a Docker engine the way testcontainers would (DOCKER_HOST, then the default socket) and asks it
 * for its version through the docker CLI. Resolves only when an engine answers.
 */
export async function detectDockerEngine(timeoutMs = 5_000): Promise<DockerEngine> {
  const tried: string[] = [];
  const host = process.env.DOCKER_HOST;
  if (host) tried.push(`DOCKER_HOST=${host}`);
  const socket = '/var/run/docker.sock';
  tried.push(existsSync(socket) ? `${socket} (present)` : `${socket} (absent)`);
  // Debian's client first: the preinstalled Docker CLI 28 works for `version` too, but keep one client throughout.
  const cli = existsSync('/usr/bin/docker') ? '/usr/bin/docker' : 'docker';
  try {
    const { stdout } = await exec(cli, ['version', '--format', '{{.Server.Version}}'], { timeout: timeoutMs });
    const version = stdout.trim();
    if (version.length > 0) return { via: host ? `DOCKER_HOST ${host}` : 'docker CLI', serverVersion: version };
    tried.push('`docker version` printed no server version');
  } catch (error) {
    const e = error as NodeJS.ErrnoException & { stderr?: string };
    tried.push(
      e.code === 'ENOENT' ? 'no `docker` CLI on PATH' : `\`docker version\` failed: ${(e.stderr ?? e.message).trim().split('\n')[0]}`,
    );
  }
  throw new NoDockerEngine(
    `--image needs a Docker engine and none answers (tried ${tried.join('; ')}). ` +
      'Start Docker (or set DOCKER_HOST) and retry; or start the deployment yourself and pass --target URL.',
  );
}

export interface ImageOptions {
  /**
   * Container ports: the first serves the API. On the bridge network each is published on the host's 127.0.0.1
   * (never 0.0.0.0) and URLs of the manifest naming one are rewritten to its mapped port. Default [8080, 8545, 8546].
   */
  ports?: number[];
  /** `host` (default): the container shares the host's network; `bridge`: ports published on 127.0.0.1. */
  network?: 'host' | 'bridge';
  env?: Record<string, string>;
  /** Replaces the image's command (arguments of its entrypoint). */
  command?: string[];
  /**
   * Path of a sandbox.json-shaped manifest inside the container (chains, accounts, API key), read once it exists;
   * `null` for an image that publishes none (then the harness has only the API URL). Default /app/sandbox.json.
   */
  manifest?: string | null;
  readyTimeoutMs?: number;
  /** Stop the container on SIGINT/SIGTERM (then exit 130). Default true. */
  stopOnSignals?: boolean;
  onProgress?: (line: string) => void;
}

export interface RunningImage {
  /** The API base URL a host client uses. */
  url: string;
  /** The manifest with host-usable URLs, when the image publishes one. */
  manifest: Record<string, unknown> | undefined;
  /** The same, written to a temporary file (removed on stop) for `--sandbox` / `--target`. */
  manifestFile: string | undefined;
  containerId: string;
  /** From `docker start` to health 200 and every chain answering JSON-RPC. */
  readyMs: number;
  stop(): Promise<void>;
}

export const DEFAULT_IMAGE_PORTS = [8080, 8545, 8546];
export const DEFAULT_IMAGE_MANIFEST = '/app/sandbox.json';

/** `KEY=VALUE` pairs of `--image-env`. */
export function parseImageEnv(pairs: readonly string[] | undefined): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of pairs ?? []) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new ImageOptionError(`--image-env takes KEY=VALUE, got ${JSON.stringify(pair)}`);
    env[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return env;
}

/** `8080` or `8080,8545,8546`. */
export function parseImagePorts(text: string | undefined): number[] | undefined {
  if (text === undefined) return undefined;
  const ports = text.split(',').map((p) => Number(p.trim()));
  if (ports.length === 0 || ports.some((p) => !Number.isInteger(p) || p <= 0 || p > 65_535))
    throw new ImageOptionError(`--image-port takes port numbers separated by commas, got ${JSON.stringify(text)}`);
  return ports;
}

export class ImageOptionError extends BaseError {
  override readonly name = 'ImageOptionError';
  override readonly code = 'usage_error';
}

/** The first regular file of a tar stream (what `docker cp` / the archive endpoint sends for one file). */
function firstFileOfTar(tar: Buffer): Buffer | undefined {
  let offset = 0;
  while (offset + 512 <= tar.length) {
    const header = tar.subarray(offset, offset + 512);
    if (header.every((b) => b === 0)) return undefined;
    const size = Number.parseInt(header.subarray(124, 136).toString('ascii').replace(/\0.*$/, '').trim() || '0', 8);
    const type = String.fromCharCode(header[156] ?? 0);
    const body = offset + 512;
    if (type === '0' || type === '\0') return tar.subarray(body, body + size);
    offset = body + Math.ceil(size / 512) * 512;
  }
  return undefined;
}

async function streamToBuffer(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string));
  return Buffer.concat(chunks);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Settles with `promise` or rejects after `ms`. The timer also keeps the process alive: an engine call on a
 * container that is going away can leave its promise pending with no open handle, and Node would then exit
 * (with code 0) in the middle of the wait.
 */
function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function answersHealth(url: string): Promise<boolean> {
  const response = await fetch(`${url}/api/v1/health`, { signal: AbortSignal.timeout(2_000) }).catch(() => undefined);
  return response?.status === 200;
}

async function answersRpc(rpcUrl: string, chainId: number): Promise<boolean> {
  const response = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
    signal: AbortSignal.timeout(2_000),
  }).catch(() => undefined);
  if (response?.status !== 200) return false;
  const body = (await response.json().catch(() => ({}))) as { result?: string };
  return typeof body.result === 'string' && Number(body.result) === chainId;
}

/**
 * Starts the deployment under test from an image through testcontainers and waits for real readiness: the
 * manifest (when the image publishes one), `GET /api/v1/health` answering 200, and every chain of the manifest
 * answering `eth_chainId` with its id. A third party's image works the same way: it needs an HTTP port serving the
 * API (and, for scenarios, a manifest with chain RPC URLs). The container is removed on stop, on a failed start and
 * on Ctrl-C; Ryuk is off (it cannot be pulled where no registry answers), so nothing else reaps it.
 */
export async function startImage(image: string, options: ImageOptions = {}): Promise<RunningImage> {
  await detectDockerEngine();
  // testcontainers reads these when it first talks to the engine.
  process.env.TESTCONTAINERS_RYUK_DISABLED ??= 'true';
  // Inside a container (/.dockerenv, as on CI machines) testcontainers would look for the engine's gateway instead.
  process.env.TESTCONTAINERS_HOST_OVERRIDE ??= 'localhost';
  const tc = await import('testcontainers');
  const network = options.network ?? 'host';
  const ports = options.ports ?? DEFAULT_IMAGE_PORTS;
  const manifestPath = options.manifest === undefined ? DEFAULT_IMAGE_MANIFEST : options.manifest;
  const timeoutMs = options.readyTimeoutMs ?? 120_000;
  const progress = options.onProgress ?? (() => undefined);

  /** Publishes on the host's loopback only: testcontainers binds 0.0.0.0 unless told otherwise. */
  class LoopbackContainer extends tc.GenericContainer {
    publishOnLoopback(): this {
      const bindings = this.hostConfig.PortBindings as Record<string, Array<{ HostIp?: string; HostPort?: string }>> | undefined;
      for (const list of Object.values(bindings ?? {})) for (const binding of list) binding.HostIp = '127.0.0.1';
      return this;
    }
  }
  // Readiness is judged here (health + chain RPC), not by testcontainers: its default strategy runs /bin/sh inside.
  const noWait = {
    timeout: timeoutMs,
    async waitUntilReady() {},
    withStartupTimeout(ms: number) {
      this.timeout = ms;
      return this;
    },
    isStartupTimeoutSet: () => true,
    getStartupTimeout() {
      return this.timeout;
    },
  };
  let container = new LoopbackContainer(image)
    .withEnvironment({ SANDBOX_NETWORK: network, ...(options.env ?? {}) })
    .withWaitStrategy(noWait)
    .withPullPolicy(tc.PullPolicy.defaultPolicy());
  if (options.command !== undefined) container = container.withCommand(options.command);
  if (network === 'host') container = container.withNetworkMode('host');
  else container = container.withExposedPorts(...ports).publishOnLoopback();

  const t0 = Date.now();
  let started: Awaited<ReturnType<typeof container.start>>;
  try {
    started = await container.start();
  } catch (error) {
    throw new ImageNotReady(`cannot start ${image}: ${(error as Error).message}`);
  }
  const tmp = mkdtempSync(join(tmpdir(), 'sandbox-image-'));
  let stopped = false;
  const onSignal = () => {
    progress('interrupted: stopping the container');
    void stop().finally(() => process.exit(130));
  };
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    rmSync(tmp, { recursive: true, force: true });
    await withTimeout(started.stop({ timeout: 10_000, remove: true }), 30_000, 'stopping the container').catch(() => undefined);
  };
  if (options.stopOnSignals !== false) {
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  }

  try {
    const hostPort = (containerPort: number) => (network === 'host' ? containerPort : started.getMappedPort(containerPort));
    const rewrite = (text: string) =>
      network === 'host'
        ? text
        : text.replace(/(https?|wss?):\/\/(127\.0\.0\.1|localhost|0\.0\.0\.0):(\d+)/g, (whole, scheme: string, _host, port: string) =>
            ports.includes(Number(port)) ? `${scheme}://127.0.0.1:${hostPort(Number(port))}` : whole,
          );
    const deadline = t0 + timeoutMs;
    const notReady = async (what: string) => {
      const logs = await withTimeout(started.logs({ tail: 20 }).then(streamToBuffer), 5_000, 'reading the container output').catch(() =>
        Buffer.alloc(0),
      );
      return new ImageNotReady(`${image}: ${what}. Last container output:\n${logs.toString('utf8').trim()}`);
    };

    // A container that exited will never become ready: say so at once, with its output.
    const client = await tc.getContainerRuntimeClient();
    const exited = async () => {
      const info = await withTimeout(client.container.inspect(client.container.getById(started.getId())), 10_000, 'inspect').catch(
        () => undefined,
      );
      return info !== undefined && info.State.Running !== true ? info.State.ExitCode : undefined;
    };
    const failIfExited = async () => {
      const code = await exited();
      if (code !== undefined) throw await notReady(`the container exited (code ${code}) before it was ready`);
    };

    let manifest: Record<string, unknown> | undefined;
    if (manifestPath !== null) {
      progress(`waiting for ${manifestPath} in the container`);
      for (;;) {
        const tar = await withTimeout(
          started.copyArchiveFromContainer(manifestPath).then(streamToBuffer),
          10_000,
          'reading the manifest',
        ).catch(() => undefined);
        const file = tar === undefined ? undefined : firstFileOfTar(tar);
        if (file !== undefined) {
          try {
            manifest = JSON.parse(rewrite(file.toString('utf8'))) as Record<string, unknown>;
            break;
          } catch {
            // written but not complete yet
          }
        }
        if (Date.now() > deadline)
          throw await notReady(`no manifest at ${manifestPath} within ${timeoutMs} ms (pass --image-manifest PATH, or none)`);
        await failIfExited();
        await sleep(200);
      }
    }
    const api = (manifest?.api ?? {}) as { url?: string };
    const url = (api.url ?? `http://127.0.0.1:${hostPort(ports[0] ?? 8080)}`).replace(/\/+$/, '');
    const chains = ((manifest?.chains ?? []) as Array<{ name?: string; chainId?: number; rpcUrl?: string }>).filter(
      (c) => typeof c.rpcUrl === 'string' && typeof c.chainId === 'number',
    );
    progress(`waiting for ${url}/api/v1/health${chains.length > 0 ? ` and ${chains.length} chain RPC endpoint(s)` : ''}`);
    for (;;) {
      const healthy = await answersHealth(url);
      const rpcs = healthy ? await Promise.all(chains.map((c) => answersRpc(c.rpcUrl!, c.chainId!))) : [];
      if (healthy && rpcs.every(Boolean)) break;
      if (Date.now() > deadline)
        throw await notReady(
          `${healthy ? 'a chain RPC endpoint did not answer eth_chainId' : `GET ${url}/api/v1/health did not answer 200`} within ${timeoutMs} ms`,
        );
      await failIfExited();
      await sleep(200);
    }
    const readyMs = Date.now() - t0;
    let manifestFile: string | undefined;
    if (manifest !== undefined) {
      manifestFile = join(tmp, 'sandbox.json');
      writeFileSync(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
    }
    return { url, manifest, manifestFile, containerId: started.getId(), readyMs, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
