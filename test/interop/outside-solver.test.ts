/**
 * A third party's solver meets `sandbox certify solver`: written only from docs/auction-and-solvers.md and
 * upstream OIF's ABI, with `fetch` for REST, the `ws` package for the solver stream and ethers v6 for the chains —
 * none of our clients, solvers or viem. The harness must pass it when it is honest, and fail it on exactly the check
 * a subtle defect breaks: it fills to its own address instead of the order's recipient (a fill the chain accepts but
 * that is not the order's), or it never answers the service's keep-alive pings.
 */
import { Contract, JsonRpcProvider, NonceManager, Wallet, getAddress, zeroPadValue } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { certifySolver } from '../../conformance/certify/solver.js';
import { type OwnSandbox, startOwnSandbox } from '../support/conformance/own-sandbox.js';
import { ERC20_ABI, ESCROW_ABI, OUTPUT_SETTLER_ABI, id32, mined } from './upstream-oif.js';

let own: OwnSandbox;

beforeAll(async () => {
  own = await startOwnSandbox({ solvers: 0 });
}, 120_000);
afterAll(async () => {
  await own?.stop();
});

type Defect = 'none' | 'fills-to-itself' | 'never-pongs';

/** The wire form of a StandardOrder (docs: bytes32 fields that hold an address travel as the address). */
interface WireOrder {
  user: string;
  nonce: string;
  originChainId: number;
  expires: number;
  fillDeadline: number;
  inputOracle: string;
  inputs: [string, string][];
  outputs: {
    oracle: string;
    settler: string;
    chainId: number;
    token: string;
    amount: string;
    recipient: string;
    callbackData: string;
    context: string;
  }[];
}

const word = (value: string) => (value.length === 42 ? zeroPadValue(value, 32) : value);

/** The upstream ABI's tuple values for a wire order. */
function toAbi(order: WireOrder) {
  return {
    user: order.user,
    nonce: BigInt(order.nonce),
    originChainId: BigInt(order.originChainId),
    expires: order.expires,
    fillDeadline: order.fillDeadline,
    inputOracle: order.inputOracle,
    inputs: order.inputs.map(([token, amount]) => [BigInt(token), BigInt(amount)]),
    outputs: order.outputs.map((o) => ({
      oracle: word(o.oracle),
      settler: word(o.settler),
      chainId: BigInt(o.chainId),
      token: word(o.token),
      amount: BigInt(o.amount),
      recipient: word(o.recipient),
      callbackData: o.callbackData,
      context: o.context,
    })),
  };
}

/** A solver as a third party would write it from the docs. */
class OutsideSolver {
  solverId = '';
  private socket: WebSocket | undefined;
  private readonly wallets = new Map<number, Wallet>();
  private readonly signers = new Map<number, NonceManager>();
  private readonly work: Promise<unknown>[] = [];
  readonly errors: string[] = [];

  constructor(
    private readonly key: string,
    private readonly defect: Defect,
  ) {}

  private async api<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${own.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${own.apiKey}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  }

  private signer(chainId: number): NonceManager {
    let signer = this.signers.get(chainId);
    if (signer === undefined) {
      const chain = own.file.chains!.find((c) => Number(c.chainId) === chainId)!;
      const provider = new JsonRpcProvider(chain.rpcUrl, chainId, { staticNetwork: true, polling: true, pollingInterval: 50 });
      const wallet = new Wallet(this.key, provider);
      this.wallets.set(chainId, wallet);
      signer = new NonceManager(wallet);
      this.signers.set(chainId, signer);
    }
    return signer;
  }

  get address(): string {
    return new Wallet(this.key).address;
  }

  async start(): Promise<void> {
    // Let every output settler pull the solver's tokens for fills.
    for (const chain of own.file.chains!) {
      const signer = this.signer(Number(chain.chainId));
      for (const token of chain.tokens) {
        await mined(
          (new Contract(token.address, ERC20_ABI, signer).getFunction('approve') as unknown as (...a: unknown[]) => Promise<never>)(
            chain.contracts.OutputSettler,
            2n ** 256n - 1n,
          ),
        );
      }
    }
    const corridors = (await this.api<{ corridors: { id: string }[] }>('GET', '/api/v1/corridors')).corridors.map((c) => c.id);
    const registration = await this.api<{ solverId: string; wsToken: string; wsUrl: string }>('POST', '/api/v1/solvers/register', {
      name: `outside-${this.defect}-${Date.now()}`,
      corridors,
      address: this.address,
    });
    this.solverId = registration.solverId;
    const socket = new WebSocket(registration.wsUrl);
    this.socket = socket;
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.on('message', (raw) => {
        const message = JSON.parse(String(raw)) as { type: string; [key: string]: unknown };
        if (message.type === 'auth.ok') socket.send(JSON.stringify({ type: 'subscribe', channels: ['rfq.*'] }));
        else if (message.type === 'ping') {
          if (this.defect !== 'never-pongs') socket.send(JSON.stringify({ type: 'pong' }));
        } else if (message.type === 'subscribe.ok') resolve();
        else this.work.push(this.on(message).catch((error: Error) => this.errors.push(error.message)));
      });
      socket.once('open', () => socket.send(JSON.stringify({ type: 'auth', token: registration.wsToken })));
    });
  }

  private async on(message: { type: string; [key: string]: unknown }): Promise<void> {
    if (message.type === 'rfq.created') {
      const rfq = (
        message as unknown as {
          rfq: { id: string; inputAmount?: string; inputDecimals: number; outputDecimals: number; minOutputAmount?: string };
        }
      ).rfq;
      if (rfq.inputAmount === undefined) {
        this.socket?.send(JSON.stringify({ type: 'decline', rfqId: rfq.id, reason: 'exactInput only' }));
        return;
      }
      // 5 bp under par, converted to the output token's decimals, never below the RFQ's floor.
      const par = (BigInt(rfq.inputAmount) * 10n ** BigInt(rfq.outputDecimals)) / 10n ** BigInt(rfq.inputDecimals);
      let outputAmount = (par * 9_995n) / 10_000n;
      if (rfq.minOutputAmount !== undefined && outputAmount < BigInt(rfq.minOutputAmount)) outputAmount = BigInt(rfq.minOutputAmount);
      this.socket?.send(JSON.stringify({ type: 'quote', rfqId: rfq.id, outputAmount: outputAmount.toString() }));
    } else if (message.type === 'order.assigned') {
      const { onchainOrderId, destinationChainId, standardOrder, fillDeadline } = message as unknown as {
        onchainOrderId: string;
        destinationChainId: number;
        standardOrder: WireOrder;
        fillDeadline: number;
      };
      const order = toAbi(standardOrder);
      const output = order.outputs[0]!;
      const filled = this.defect === 'fills-to-itself' ? { ...output, recipient: id32(this.address) } : output;
      const chain = own.file.chains!.find((c) => Number(c.chainId) === destinationChainId)!;
      const settler = new Contract(chain.contracts.OutputSettler!, OUTPUT_SETTLER_ABI, this.signer(destinationChainId));
      const fillerData = zeroPadValue(this.address, 32);
      await mined(settler.getFunction('fill')(onchainOrderId, filled, fillDeadline, fillerData));
    } else if (message.type === 'order.attested') {
      const { originChainId, standardOrder, solveParams } = message as unknown as {
        originChainId: number;
        standardOrder: WireOrder;
        solveParams: { timestamp: number; solver: string }[];
      };
      const chain = own.file.chains!.find((c) => Number(c.chainId) === originChainId)!;
      const escrow = new Contract(chain.contracts.InputSettlerEscrow!, ESCROW_ABI, this.signer(originChainId));
      await mined(escrow.getFunction('finalise')(toAbi(standardOrder), solveParams, id32(getAddress(this.address)), '0x'));
    }
  }

  async stop(): Promise<void> {
    this.socket?.close();
    await Promise.allSettled(this.work);
    for (const wallet of this.wallets.values()) (wallet.provider as JsonRpcProvider).destroy();
  }
}

describe('a third-party solver (fetch + ws + ethers, written from the docs) under `certify solver`', () => {
  it('is certified when honest: connects, quotes, fills before the deadline, claims after attestation', async () => {
    const solver = new OutsideSolver(own.sandbox.manifest.accounts.solvers[0]!.privateKey, 'none');
    await solver.start();
    try {
      const run = await certifySolver({
        url: own.url,
        apiKey: own.apiKey,
        sandbox: own.file,
        solverAddress: solver.address,
        solverId: solver.solverId,
        rfqs: 2,
        waitMs: 15_000,
      });
      const failing = run.results.filter((r) => r.status !== 'PASSED').map((r) => `${r.id} ${r.status}: ${r.message}`);
      expect(failing).toEqual([]);
      expect(solver.errors).toEqual([]);
      expect(run.exitCode).toBe(0);
    } finally {
      await solver.stop();
    }
  }, 120_000);

  it('fails on the fill when the solver pays itself instead of the order’s recipient', async () => {
    const solver = new OutsideSolver(own.sandbox.manifest.accounts.solvers[1]!.privateKey, 'fills-to-itself');
    await solver.start();
    try {
      const run = await certifySolver({
        url: own.url,
        apiKey: own.apiKey,
        sandbox: own.file,
        solverAddress: solver.address,
        solverId: solver.solverId,
        rfqs: 1,
        waitMs: 10_000,
        selection: { exclude: ['solver.answers-pings'] },
      });
      const status = Object.fromEntries(run.results.map((r) => [r.id, r.status]));
      expect(status['solver.connects']).toBe('PASSED');
      expect(status['solver.quotes']).toBe('PASSED');
      expect(status['solver.fills-before-deadline']).toBe('FAILED');
      expect(run.exitCode).toBe(1);
    } finally {
      await solver.stop();
    }
  }, 120_000);

  it('fails on the keep-alive when the solver never answers the service’s pings', async () => {
    const solver = new OutsideSolver(own.sandbox.manifest.accounts.solvers[2]!.privateKey, 'never-pongs');
    await solver.start();
    try {
      const run = await certifySolver({
        url: own.url,
        apiKey: own.apiKey,
        sandbox: own.file,
        solverAddress: solver.address,
        solverId: solver.solverId,
        selection: { only: ['solver.connects', 'solver.answers-pings'] },
      });
      const status = Object.fromEntries(run.results.map((r) => [r.id, r.status]));
      expect(status['solver.connects']).toBe('PASSED');
      expect(status['solver.answers-pings']).toBe('FAILED');
      expect(run.exitCode).toBe(1);
    } finally {
      await solver.stop();
    }
  }, 120_000);
});
