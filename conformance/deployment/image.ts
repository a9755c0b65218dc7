import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';

const exec = promisify(execFile);

/** No Docker engine answers: `--image` cannot run here (exit 2). */
export class NoDockerEngine extends Error {
  override readonly name = 'NoDockerEngine';
  readonly code = 'no_docker_engine';
}

/** The engine answers but cannot start the image (unknown image, no registry, bad port): exit 2, docker's reason. */
export class ImageStartFailed extends Error {
  override readonly name = 'ImageStartFailed';
  readonly code = 'image_start_failed';
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
  try {
    const { stdout } = await exec('docker', ['version', '--format', '{{.Server.Version}}'], { timeout: timeoutMs });
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

export interface RunningImage {
  url: string;
  containerId: string;
  stop(): Promise<void>;
}

/**
 * Starts the deployment under test from an image and returns its URL. With an engine present, testcontainers is
 * the library for this (`new GenericContainer(image).withExposedPorts(port).withWaitStrategy(Wait.forHttp(
 * '/api/v1/health', port))`); it is not a dependency of this project, so the docker CLI does the same few steps:
 * run detached with the port published on loopback, find the mapped port, wait until health answers.
 */
export async function startImage(image: string, options: { port?: number; readyTimeoutMs?: number } = {}): Promise<RunningImage> {
  await detectDockerEngine();
  const port = options.port ?? 8080;
  const { stdout } = await exec('docker', ['run', '-d', '--rm', '-p', `127.0.0.1::${port}`, image], { timeout: 120_000 }).catch(
    (error: { stderr?: string; message?: string }) => {
      const reason = (error.stderr ?? error.message ?? String(error))
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line.length > 0 && !line.startsWith("Run 'docker run --help'"))
        .join(' ');
      throw new ImageStartFailed(`--image ${image} could not be started: ${reason.slice(0, 400)}`);
    },
  );
  const containerId = stdout.trim();
  const stop = async () => {
    await exec('docker', ['rm', '-f', containerId], { timeout: 30_000 }).catch(() => undefined);
  };
  try {
    const mapped = (await exec('docker', ['port', containerId, String(port)], { timeout: 10_000 })).stdout.trim().split('\n')[0] ?? '';
    const hostPort = mapped.split(':').pop();
    if (!hostPort) throw new Error(`docker did not publish port ${port} of ${image}`);
    const url = `http://127.0.0.1:${hostPort}`;
    const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
    for (;;) {
      const ready = await fetch(`${url}/api/v1/health`, { signal: AbortSignal.timeout(2_000) })
        .then((r) => r.status === 200 || r.status === 503)
        .catch(() => false);
      if (ready) break;
      if (Date.now() > deadline) throw new Error(`${image} did not answer /api/v1/health within ${options.readyTimeoutMs ?? 60_000} ms`);
      await new Promise((r) => setTimeout(r, 250));
    }
    return { url, containerId, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
