import { describe, expect, it } from 'vitest';
import { parseRpcOverride, withRpcOverrides } from './chains.js';
import type { SandboxFileChain } from './sandbox-file.js';

const chain = (chainId: number): SandboxFileChain & { ipcPath: string } => ({
  name: `c${chainId}`,
  chainId,
  rpcUrl: `http://127.0.0.1:${chainId}`,
  wsUrl: `ws://127.0.0.1:${chainId}`,
  ipcPath: `/tmp/c${chainId}/anvil.ipc`,
  contracts: {},
  tokens: [],
});

describe('--rpc CHAINID=URL', () => {
  it('replaces the named chain’s URL and drops its IPC socket, which would reach the node around the URL', () => {
    const [overridden, kept] = withRpcOverrides([chain(1), chain(2)], new Map([parseRpcOverride('1=https://rpc.example')]));
    expect(overridden).toEqual({
      name: 'c1',
      chainId: 1,
      rpcUrl: 'https://rpc.example',
      wsUrl: 'ws://127.0.0.1:1',
      contracts: {},
      tokens: [],
    });
    expect(kept).toEqual(chain(2));
  });

  it('refuses a value that is not CHAINID=URL', () => {
    expect(() => parseRpcOverride('https://rpc.example')).toThrow(/--rpc takes CHAINID=URL/);
    expect(() => parseRpcOverride('0=https://rpc.example')).toThrow(/--rpc takes CHAINID=URL/);
    expect(() => parseRpcOverride('5=ftp://rpc.example')).toThrow(/--rpc takes CHAINID=URL/);
  });
});
