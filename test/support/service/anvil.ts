import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export interface TestAnvil {
  rpcUrl: string;
  wsUrl: string;
  chainId: number;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** The anvil binary shipped by npm (`@foundry-rs/anvil-linux-{x64,amd64}`), without the npm launcher. */
export function anvilBinary(): string {
  for (const name of ['anvil-linux-x64', 'anvil-linux-amd64', 'anvil-darwin-arm64', 'anvil-darwin-amd64']) {
    const candidate = resolve('node_modules/@foundry-rs', name, 'bin/anvil');
    if (existsSync(candidate)) return candidate;
  }
  throw new Error('no anvil binary under node_modules/@foundry-rs; run npm install');
}

/** A real anvil on a free loopback port, for tests that need a chain (its own cache folder, removed on stop). */
export async function startTestAnvil(chainId: number): Promise<TestAnvil> {
  const cache = mkdtempSync(join(tmpdir(), 'anvil-cache-'));
  const child = spawn(
    anvilBinary(),
    ['--port', '0', '--host', '127.0.0.1', '--chain-id', String(chainId), '--cache-path', cache, '--hardfork', 'cancun'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const port = await new Promise<number>((resolvePort, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`anvil did not start: ${output.slice(-500)}`)), 15_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Listening on 127\.0\.0\.1:(\d+)/.exec(output);
      if (match !== null) {
        clearTimeout(timer);
        child.stdout!.off('data', onData);
        child.stdout!.resume();
        resolvePort(Number(match[1]));
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`anvil exited with ${code}: ${output.slice(-500)}`));
    });
  });
  return {
    rpcUrl: `http://127.0.0.1:${port}`,
    wsUrl: `ws://127.0.0.1:${port}`,
    chainId,
    process: child,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise<void>((done) => child.once('exit', () => done()));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(cache, { recursive: true, force: true });
    },
  };
}
