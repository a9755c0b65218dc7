/**
 * Test fixtures of the auction: a service over chains described in config only (quotes never touch a chain),
 * registered solvers and real solver stream connections.
 */
import type { Address } from 'viem';
import { RestClient } from '../../src/clients/rest-client.js';
import { SolverStreamClient, type RfqBroadcast, type SolverStreamClientOptions } from '../../src/clients/solver-stream-client.js';
import type { ChainInfo } from '../../src/contracts/deployment.js';
import type { ServiceConfig } from '../../src/service/config.js';
import { startTestService, type TestService } from './service/service.js';
import type { AuctionModule } from '../../src/service/auction/module.js';

const contracts = {
  Permit2: '0x000000000022D473030F116dDEE9F6B43aC78BA3',
  InputSettlerEscrow: '0x1000000000000000000000000000000000000001',
  InputSettlerCompact: '0x1000000000000000000000000000000000000002',
  ResourceLock: '0x1000000000000000000000000000000000000003',
  AlwaysOkAllocator: '0x1000000000000000000000000000000000000004',
  InputOracle: '0x1000000000000000000000000000000000000005',
  OutputOracle: '0x1000000000000000000000000000000000000006',
  OutputSettler: '0x1000000000000000000000000000000000000007',
} as const satisfies Record<string, Address>;

export const TOKENS = {
  USDC: '0x2000000000000000000000000000000000000001',
  USDT: '0x2000000000000000000000000000000000000002',
  DAI: '0x2000000000000000000000000000000000000003',
} as const satisfies Record<string, Address>;

/** Two chains with USDC (ERC-3009, 6 decimals), USDT (6) and DAI (18 decimals), contracts at fixed fake addresses. */
export function auctionChains(): ChainInfo[] {
  const tokens = [
    { symbol: 'USDC', name: 'USD Coin (sandbox)', address: TOKENS.USDC, decimals: 6, eip3009: true },
    { symbol: 'USDT', name: 'Tether USD (sandbox)', address: TOKENS.USDT, decimals: 6, eip3009: false },
    { symbol: 'DAI', name: 'Dai (sandbox)', address: TOKENS.DAI, decimals: 18, eip3009: false },
  ];
  return [
    { name: 'alpha', chainId: 31_337, rpcUrl: 'http://127.0.0.1:1', wsUrl: 'ws://127.0.0.1:1', contracts: { ...contracts }, tokens },
    { name: 'beta', chainId: 31_338, rpcUrl: 'http://127.0.0.1:1', wsUrl: 'ws://127.0.0.1:1', contracts: { ...contracts }, tokens },
  ];
}

export const ALPHA_BETA_USDC = 'alpha:USDC-beta:USDC';
export const BETA_ALPHA_USDC = 'beta:USDC-alpha:USDC';

/** 25,000 USDC in smallest units. */
export const AMOUNT = '25000000000';

export function usdcRequest(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    inputToken: TOKENS.USDC,
    outputToken: TOKENS.USDC,
    inputAmount: AMOUNT,
    originChainId: 31_337,
    destinationChainId: 31_338,
    ...overrides,
  };
}

export interface AuctionTestService extends TestService {
  client: RestClient;
  auction: AuctionModule;
  /** Registers a solver of the test workspace; returns its id and wsToken. */
  registerSolver(name: string, corridors?: string[]): Promise<{ solverId: string; wsToken: string; wsUrl: string }>;
  /** A connected, subscribed solver stream client (closed by `stop`). */
  connect(token: string, options?: Partial<SolverStreamClientOptions>): Promise<SolverStreamClient>;
  /** Registers and connects; the solver answers every RFQ with `answer` (undefined: stays silent). */
  solver(name: string, answer?: SolverBehaviour, corridors?: string[]): Promise<TestSolver>;
}

export type SolverBehaviour = (
  rfq: RfqBroadcast,
) => { outputAmount?: string; inputAmount?: string; price?: string; delayMs?: number; decline?: boolean } | undefined;

export interface TestSolver {
  solverId: string;
  wsToken: string;
  client: SolverStreamClient;
  rfqs: RfqBroadcast[];
}

/** Output at `bps` below the input of an exactInput RFQ (same decimals). */
export function outputBelow(rfq: RfqBroadcast, bps: number): string {
  const input = BigInt(rfq.rfq.inputAmount!);
  return ((input * BigInt(10_000 - bps)) / 10_000n).toString();
}

export async function startAuctionService(overrides: Partial<ServiceConfig> = {}): Promise<AuctionTestService> {
  const t = await startTestService({ chains: auctionChains(), ...overrides });
  const clients: SolverStreamClient[] = [];
  const client = new RestClient({ baseUrl: t.url, apiKey: t.apiKey });
  const auction = t.service.modules.find((module) => module.name === 'auction') as AuctionModule;
  const registerSolver = async (name: string, corridors: string[] = [ALPHA_BETA_USDC]) => {
    const registration = await client.registerSolver({ name, corridors });
    return { solverId: registration.solverId, wsToken: registration.wsToken, wsUrl: registration.wsUrl };
  };
  const connect = async (token: string, options: Partial<SolverStreamClientOptions> = {}) => {
    const stream = await SolverStreamClient.connect({ url: `${t.url.replace('http', 'ws')}/ws/v1/solver/stream`, token, ...options });
    clients.push(stream);
    return stream;
  };
  const solver = async (name: string, answer?: SolverBehaviour, corridors?: string[]): Promise<TestSolver> => {
    const { solverId, wsToken } = await registerSolver(name, corridors);
    const stream = await connect(wsToken);
    const rfqs: RfqBroadcast[] = [];
    stream.onRfq((rfq) => {
      rfqs.push(rfq);
      const reply = answer?.(rfq);
      if (reply === undefined) return;
      const send = () => {
        if (!stream.connected) return;
        if (reply.decline) void stream.decline(rfq.rfq.id, 'test decline').catch(() => undefined);
        else {
          const { delayMs: _delay, decline: _decline, ...amounts } = reply;
          void stream.quote({ rfqId: rfq.rfq.id, ...amounts }).catch(() => undefined);
        }
      };
      if (reply.delayMs === undefined) send();
      else setTimeout(send, reply.delayMs);
    });
    return { solverId, wsToken, client: stream, rfqs };
  };
  return {
    ...t,
    client,
    auction,
    registerSolver,
    connect,
    solver,
    stop: async () => {
      await Promise.all(clients.map((c) => c.close()));
      await t.stop();
    },
  };
}
