import { createAnvil, type Anvil, type CreateAnvilOptions } from '@viem/anvil';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ipcPathFits } from '../contracts/json-rpc-ipc.js';
import { resolveAnvilBinary } from './anvil-binary.js';
import { KEPT_BLOCKS } from './chain-state.js';
import { ChainStartError, PortInUseError } from './errors.js';
import { parseWatchdogPids, watchdogCommand } from './watchdog.js';

/**
 * Flags every chain runs with. On defaults anvil slows down as the chain grows (see DESIGN.md): `pruneHistory` keeps
 * 16 states (the deepest `chain.reorg` the fault switch allows). `transactionBlockKeeper`: anvil keeps every mined
 * transaction with its receipt and call trace in memory, some 10-20 kB each, so a sandbox that lives for weeks grew
 * by megabytes per catalogue run; it now keeps those of the last KEPT_BLOCKS blocks, the same history a saved state
 * keeps, so a running chain and a restarted one answer the same receipts and logs.
 */
const PERFORMANCE_FLAGS = { hardfork: 'cancun', pruneHistory: 16, transactionBlockKeeper: KEPT_BLOCKS } as const;

export interface AnvilProcessOptions {
  /** Chain name, for messages. */
  name: string;
  chainId: number;
  /** 0 lets the system pick a free port; the real one is read from anvil's "Listening on" line. */
  port: number;
  /** Flag that changes this port, named in the port-in-use message. */
  portFlag: string;
  /** anvil `--cache-path`, removed when the process ends (also by the watchdog if the owner dies). */
  cachePath: string;
  /** anvil state dump (JSON) to start from. */
  loadStatePath?: string | undefined;
  mnemonic: string;
  /** Number of dev accounts anvil derives from the mnemonic (all sandbox roles). */
  accounts: number;
  startTimeoutMs?: number;
  /** Address to listen on (default 127.0.0.1); `0.0.0.0` for a chain other hosts or containers reach. */
  host?: string;
}

export interface AnvilProcess {
  readonly name: string;
  readonly chainId: number;
  readonly port: number;
  readonly rpcUrl: string;
  readonly wsUrl: string;
  /**
   * anvil's IPC socket (JSON-RPC without HTTP, for clients on this machine), in the chain's cache folder; undefined
   * when that folder's path is too long for a socket address.
   */
  readonly ipcPath: string | undefined;
  /** pid of the anvil process itself. */
  readonly pid: number | undefined;
  /** pid of the watchdog wrapper that owns anvil. */
  readonly wrapperPid: number | undefined;
  /** Last lines anvil printed, for diagnostics. */
  logs(): string[];
  /** Called when the process ends without stop() having been called. */
  onUnexpectedExit(listener: (code: number | undefined) => void): void;
  stop(): Promise<void>;
}

const HOST = '127.0.0.1';
const LISTENING = /Listening on [\d.]+:(\d+)/;

export async function startAnvilProcess(options: AnvilProcessOptions): Promise<AnvilProcess> {
  const binary = resolveAnvilBinary();
  let pids: { wrapper: number; anvil: number } | undefined;
  let port = options.port;
  let stopping = false;
  let exited = false;
  const exitListeners: Array<(code: number | undefined) => void> = [];

  // The socket lives in the cache folder, which is removed when the chain stops (by the watchdog too).
  const socketPath = join(options.cachePath, 'anvil.ipc');
  const ipcPath = ipcPathFits(socketPath) ? socketPath : undefined;
  if (ipcPath !== undefined) {
    mkdirSync(options.cachePath, { recursive: true });
    // A socket left by a chain that was killed would stop this one from listening.
    rmSync(ipcPath, { force: true });
  }
  const anvilOptions = {
    host: options.host ?? HOST,
    port: options.port,
    chainId: options.chainId,
    mnemonic: options.mnemonic,
    accounts: options.accounts,
    loadState: options.loadStatePath,
    cachePath: options.cachePath,
    color: 'never',
    ...(ipcPath === undefined ? {} : { ipc: ipcPath }),
    ...PERFORMANCE_FLAGS,
  };
  const createOptions: CreateAnvilOptions = {
    // @viem/anvil's option type predates these flags; it turns every key into `--kebab-case value` all the same.
    ...(anvilOptions as unknown as CreateAnvilOptions),
    anvilBinary: binary.path,
    startTimeout: options.startTimeoutMs ?? 15_000,
    // @viem/anvil awaits the process exit and then leaves a timer of this length running (it never clears it),
    // which holds a finishing CLI or bench process open: keep it short, anvil exits in milliseconds.
    stopTimeout: 2_000,
    execArgs: ([file, args, execaOptions]) => {
      const wrapped = watchdogCommand(file, args);
      return [
        wrapped.file,
        wrapped.args,
        {
          ...execaOptions,
          // Own process group: Ctrl-C in the terminal reaches the owner only, which saves chain state first.
          detached: true,
          stdin: 'pipe',
          env: { ...process.env, SANDBOX_CACHE_PATH: options.cachePath },
        },
      ];
    },
  };
  const anvil: Anvil = createAnvil(createOptions);
  anvil.on('message', (message) => {
    pids ??= parseWatchdogPids(message);
    const match = LISTENING.exec(message);
    if (match?.[1]) port = Number(match[1]);
  });
  anvil.on('exit', (code) => {
    exited = true;
    if (!stopping) for (const listener of exitListeners) listener(code);
  });

  try {
    await anvil.start();
  } catch (cause) {
    const output = anvil.logs.join('');
    if (/Address already in use|AddrInUse/i.test(output)) {
      throw new PortInUseError(options.port, `chain ${options.name}`, options.portFlag);
    }
    const detail = output.trim().split('\n').slice(-3).join(' ').trim() || (cause as Error).message;
    throw new ChainStartError(options.name, detail, cause);
  }
  return {
    name: options.name,
    chainId: options.chainId,
    get port() {
      return port;
    },
    get rpcUrl() {
      return `http://${HOST}:${port}`;
    },
    get wsUrl() {
      return `ws://${HOST}:${port}`;
    },
    ipcPath,
    get pid() {
      return pids?.anvil;
    },
    get wrapperPid() {
      return pids?.wrapper;
    },
    logs: () => anvil.logs,
    onUnexpectedExit: (listener) => {
      exitListeners.push(listener);
    },
    async stop() {
      stopping = true;
      try {
        // @viem/anvil would wait its whole stop timeout for a 'close' that already happened.
        if (!exited) await anvil.stop();
      } finally {
        rmSync(options.cachePath, { recursive: true, force: true });
      }
    },
  };
}
