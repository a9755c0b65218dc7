import { describe, expect, it } from 'vitest';
import { defaultChains, isPublicChainId, parseChainFlag, parsePortList, validateAttachedChains, validateChains } from './chain-config.js';
import { parseSandboxConfig } from './config.js';
import { ConfigError } from '../contracts/errors/config-error.js';

describe('chain configuration', () => {
  it('defaults to alpha 31337 on 8545 and beta 31338 on 8546', () => {
    expect(defaultChains()).toEqual([
      { name: 'alpha', chainId: 31337, port: 8545 },
      { name: 'beta', chainId: 31338, port: 8546 },
    ]);
    expect(defaultChains(3, 'any').map((c) => [c.name, c.chainId, c.port])).toEqual([
      ['alpha', 31337, 0],
      ['beta', 31338, 0],
      ['gamma', 31339, 0],
    ]);
    expect(defaultChains(2, [9000, 9001]).map((c) => c.port)).toEqual([9000, 9001]);
  });

  it('refuses counts and port lists that do not fit', () => {
    expect(() => defaultChains(0)).toThrow(ConfigError);
    expect(() => defaultChains(9)).toThrow(/between 1 and 8/);
    expect(() => defaultChains(2, [9000])).toThrow(/1 port\(s\) for 2 chain\(s\)/);
    expect(parsePortList('8545, 8546')).toEqual([8545, 8546]);
    expect(() => parsePortList('8545,65536')).toThrow(/"65536" is not a port/);
    expect(() => parsePortList('8545,-1')).toThrow(/"-1"/);
  });

  it('refuses public chain ids unless allowed, bad names, duplicates', () => {
    for (const id of [1, 10, 137, 8453, 42161, 11155111]) expect(isPublicChainId(id)).toBe(true);
    expect(isPublicChainId(31337)).toBe(false);
    const chain = (name: string, chainId: number, port = 0) => ({ name, chainId, port });
    expect(() => validateChains([chain('eth', 1)])).toThrow(/public network/);
    expect(() => validateChains([chain('eth', 1)], { allowPublicChainIds: true })).not.toThrow();
    expect(() => validateChains([chain('Alpha', 31337)])).toThrow(/lowercase/);
    expect(() => validateChains([chain('a-b', 31337)])).toThrow(/lowercase/);
    expect(() => validateChains([chain('a', 31337), chain('b', 31337)])).toThrow(/Chain id 31337 is used twice/);
    expect(() => validateChains([chain('a', 31337, 9000), chain('b', 31338, 9000)])).toThrow(/Port 9000 is used twice/);
    expect(() => validateChains([chain('a', 31337), chain('b', 31338)])).not.toThrow();
    expect(() => validateChains([chain('a', 0)])).toThrow(/not a positive integer/);
  });
});

describe('sandbox config file', () => {
  it('reads chains, mnemonic, environment', () => {
    const config = parseSandboxConfig({
      environment: 'production',
      mnemonic: ' a b c d e f g h i j k l ',
      chains: [
        { name: 'left', chainId: 900001 },
        { name: 'right', chainId: 900002, port: 9999 },
      ],
    });
    expect(config).toEqual({
      environment: 'production',
      mnemonic: 'a b c d e f g h i j k l',
      chains: [
        { name: 'left', chainId: 900001, port: 8545 },
        { name: 'right', chainId: 900002, port: 9999 },
      ],
    });
  });

  it('rateLimit raises the service limits (burst defaults to the rate) and must be whole numbers with burst >= rate', () => {
    expect(parseSandboxConfig({ rateLimit: { perSecond: 100_000, burst: 200_000 } })).toEqual({
      rateLimit: { perSecond: 100_000, burst: 200_000 },
    });
    expect(parseSandboxConfig({ rateLimit: { perSecond: 500 } })).toEqual({ rateLimit: { perSecond: 500, burst: 500 } });
    expect(() => parseSandboxConfig({ rateLimit: { perSecond: 0 } })).toThrow(/rateLimit.perSecond must be a whole number/);
    expect(() => parseSandboxConfig({ rateLimit: { perSecond: 10, burst: 5 } })).toThrow(/rateLimit.burst must be/);
    expect(() => parseSandboxConfig({ rateLimit: { perSecond: 10, off: true } })).toThrow(/rateLimit: unknown field "off"/);
  });

  it('names the offending field', () => {
    expect(() => parseSandboxConfig([])).toThrow(/must be a JSON object/);
    expect(() => parseSandboxConfig({ chain: [] })).toThrow(/unknown field "chain"/);
    expect(() => parseSandboxConfig({ environment: 'staging' })).toThrow(/environment must be/);
    expect(() => parseSandboxConfig({ mnemonic: 'too short' })).toThrow(/12 or more words/);
    expect(() => parseSandboxConfig({ chains: [] })).toThrow(/non-empty array/);
    expect(() => parseSandboxConfig({ chains: [{ name: 'a', chainId: '1' }] })).toThrow(/chains\[0\].chainId must be a number/);
    expect(() => parseSandboxConfig({ chains: [{ name: 'a', chainId: 1, rpc: 'x' }] })).toThrow(/chains\[0\]: unknown field "rpc"/);
  });
});

describe('chains started elsewhere (attach)', () => {
  it('reads --chain NAME=URL with the default id of the name, or NAME:ID=URL', () => {
    expect(parseChainFlag('alpha=http://anvil-alpha:8545/')).toEqual({ name: 'alpha', chainId: 31337, rpcUrl: 'http://anvil-alpha:8545' });
    expect(parseChainFlag('beta=https://rpc.example.com/beta')).toEqual({
      name: 'beta',
      chainId: 31338,
      rpcUrl: 'https://rpc.example.com/beta',
    });
    expect(parseChainFlag('ledger:31400=http://10.0.0.5:8545')).toEqual({ name: 'ledger', chainId: 31400, rpcUrl: 'http://10.0.0.5:8545' });
  });

  it('refuses a chain flag without a URL, a name without a known id, or a URL that is not http', () => {
    expect(() => parseChainFlag('alpha')).toThrow(ConfigError);
    expect(() => parseChainFlag('ledger=http://10.0.0.5:8545')).toThrow(/give its chain id/);
    expect(() => parseChainFlag('alpha=ws://anvil:8545')).toThrow(/not an http/);
  });

  it('reads a config file whose chains carry rpcUrls as chains to attach to, and refuses a mix', () => {
    const config = parseSandboxConfig({
      chains: [
        { name: 'alpha', chainId: 31337, rpcUrl: 'http://anvil-alpha:8545' },
        { name: 'beta', chainId: 31338, rpcUrl: 'http://anvil-beta:8545', wsUrl: 'ws://anvil-beta:8546' },
      ],
    });
    expect(config.chains).toBeUndefined();
    expect(config.attach).toEqual([
      { name: 'alpha', chainId: 31337, rpcUrl: 'http://anvil-alpha:8545' },
      { name: 'beta', chainId: 31338, rpcUrl: 'http://anvil-beta:8545', wsUrl: 'ws://anvil-beta:8546' },
    ]);
    expect(() =>
      parseSandboxConfig({
        chains: [
          { name: 'alpha', chainId: 31337, rpcUrl: 'http://a:8545' },
          { name: 'beta', chainId: 31338 },
        ],
      }),
    ).toThrow(/either every chain has an rpcUrl/);
  });

  it('checks attached chains like started ones: no public ids, no id twice', () => {
    expect(() => validateAttachedChains([{ name: 'alpha', chainId: 1, rpcUrl: 'http://a:8545' }])).toThrow(/public network/);
    expect(() =>
      validateAttachedChains([
        { name: 'alpha', chainId: 31337, rpcUrl: 'http://a:8545' },
        { name: 'beta', chainId: 31337, rpcUrl: 'http://b:8545' },
      ]),
    ).toThrow(/used twice/);
  });
});
