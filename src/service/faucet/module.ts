import {
  type Address as ViemAddress,
  BaseError,
  ContractFunctionRevertedError,
  type Hex,
  createPublicClient,
  createWalletClient,
  getAddress,
  http,
  parseEther,
  parseUnits,
  type TransactionReceipt,
  TransactionReceiptNotFoundError,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { z } from 'zod';
import type { ChainInfo } from '../../contracts/deployment.js';
import { InvalidRequestError, MaintenanceError } from '../errors/api-errors.js';
import type { ServiceContext, ServiceModule } from '../module.js';
import { sandboxStablecoinAbi } from '../../contracts/stablecoin.js';

export interface FaucetSettings {
  /** Owner of the sandbox tokens (sandbox.json `accounts.deployer[0]`). */
  minterKey: Hex;
}

declare module '../config.js' {
  interface ServiceConfig {
    /** Sandbox faucet: the key that may mint the test stablecoins. Absent: no faucet route. */
    faucet?: FaucetSettings;
  }
}

/** At most this many whole tokens per request: enough for any corridor's maximum trade. */
const MAX_TOKENS = 10_000_000;
const DEFAULT_TOKENS = 100_000;
/** Native coin a funded address is topped up to, so it can pay gas. */
const NATIVE_TOP_UP = parseEther('100');

/** A pattern matching `text` in any letter case (the route compares token symbols case-insensitively). */
function anyCase(text: string): string {
  return [...text]
    .map((c) => (/[a-z]/i.test(c) ? `[${c.toLowerCase()}${c.toUpperCase()}]` : c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
}

const ZERO_ADDRESS = /^0x0{40}$/;

/**
 * The request, stated exactly for this deployment's chains and tokens, so that a body the document allows is one the
 * faucet serves: chain names and ids, token symbols in any case, 1 to 10,000,000 tokens, any address but zero.
 */
function faucetRequest(chains: readonly ChainInfo[]) {
  const chainNames = [...new Set(chains.flatMap((c) => [c.name, String(c.chainId)]))];
  const symbols = [...new Set(chains.flatMap((c) => c.tokens.map((t) => t.symbol)))];
  const chainIds = chains.map((c) => z.literal(c.chainId));
  return z
    .object({
      address: z
        .string()
        // One letter case, or mixed case with a valid EIP-55 checksum (checked below; a pattern cannot state it).
        .regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-prefixed 20-byte hex address')
        .refine((address) => !ZERO_ADDRESS.test(address), 'the zero address cannot receive tokens')
        .meta({
          description: 'The address to fund: 0x + 40 hex digits in one letter case (or EIP-55 mixed case); not the zero address.',
          pattern: '^0x([0-9a-f]{40}|[0-9A-F]{40})$',
          not: { pattern: ZERO_ADDRESS.source },
        }),
      chain: z
        .union([z.enum(chainNames as [string, ...string[]]), ...(chainIds.length === 0 ? [] : [z.union(chainIds)])])
        .optional()
        .meta({ description: 'A chain name or id (every chain when left out).' }),
      token: z
        .string()
        .regex(new RegExp(`^(${symbols.map(anyCase).join('|')})$`), `must be one of ${symbols.join(', ')}`)
        .optional()
        .meta({ description: `A token symbol, any letter case: ${symbols.join(', ')} (every token when left out).` }),
      amount: z
        .string()
        .regex(new RegExp(`^([1-9][0-9]{0,6}|${MAX_TOKENS})$`), `a whole number of tokens, 1 to ${MAX_TOKENS}`)
        .optional(),
    })
    .strict();
}

const FaucetGrant = z.object({
  chain: z.string(),
  chainId: z.number(),
  token: z.string(),
  amount: z.string(),
  txHash: z.string(),
});
const FaucetResponse = z.object({ address: z.string(), grants: z.array(FaucetGrant), nativeTopUp: z.string() });

/**
 * `POST /api/v1/sandbox/faucet` (sandbox only, API key): mints test stablecoins to an address on the chosen chains
 * and tops its native balance up so it can pay gas, like a testnet faucet without the wait.
 */
export class FaucetModule implements ServiceModule {
  readonly name = 'faucet';

  constructor(private readonly settings: FaucetSettings | undefined) {}

  setup(context: ServiceContext): void {
    const settings = this.settings;
    if (context.config.environment !== 'sandbox' || !settings) return;
    const chains = context.config.chains;
    const FaucetRequest = faucetRequest(chains);
    context.openapi.schema('FaucetRequest', FaucetRequest);
    context.openapi.schema('FaucetResponse', FaucetResponse);
    const minter = privateKeyToAccount(settings.minterKey);
    // One mint at a time per chain keeps the minter's nonces in order (anvil strands out-of-order sends).
    const queues = new Map<number, Promise<unknown>>();
    const serial = <T>(chainId: number, task: () => Promise<T>): Promise<T> => {
      const next = (queues.get(chainId) ?? Promise.resolve()).then(task, task);
      queues.set(
        chainId,
        next.catch(() => undefined),
      );
      return next;
    };

    context.routes().route({
      method: 'post',
      path: '/sandbox/faucet',
      operationId: 'sandboxFaucet',
      summary: 'Mint test stablecoins to an address and top up its native balance. Sandbox only.',
      tags: ['Sandbox'],
      auth: 'required',
      idempotent: false,
      body: FaucetRequest,
      responses: { 200: { description: 'What was minted, per chain and token.', schema: FaucetResponse } },
      handler: async ({ body }) => {
        const recipient = checksummed(body.address);
        if (BigInt(recipient) === 0n) {
          // Tokens cannot be minted to the zero address (the token reverts): bad input, not a chain outage.
          throw new InvalidRequestError({
            code: 'parameter_invalid',
            param: 'address',
            message: 'The zero address cannot receive tokens; send the address of an account or contract.',
          });
        }
        const selected = selectChains(chains, body.chain);
        const whole = body.amount ?? String(DEFAULT_TOKENS);
        if (Number(whole) > MAX_TOKENS) {
          throw new InvalidRequestError({
            code: 'parameter_invalid',
            param: 'amount',
            message: `At most ${MAX_TOKENS} tokens per request.`,
          });
        }
        const grants: z.infer<typeof FaucetGrant>[] = [];
        for (const chain of selected) {
          const tokens =
            body.token === undefined ? chain.tokens : chain.tokens.filter((t) => t.symbol.toLowerCase() === body.token!.toLowerCase());
          if (tokens.length === 0) {
            throw new InvalidRequestError({
              code: 'parameter_invalid',
              param: 'token',
              message: `No token ${body.token} on ${chain.name}; known: ${chain.tokens.map((t) => t.symbol).join(', ')}.`,
            });
          }
          const transport = http(chain.rpcUrl);
          const viemChain = {
            id: chain.chainId,
            name: chain.name,
            nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
            rpcUrls: { default: { http: [chain.rpcUrl] } },
          } as const;
          const publicClient = createPublicClient({ chain: viemChain, transport, pollingInterval: 10 });
          const wallet = createWalletClient({ chain: viemChain, transport, account: minter, pollingInterval: 10 });
          try {
            const native = await publicClient.getBalance({ address: recipient });
            if (native < NATIVE_TOP_UP) {
              await publicClient.request({
                method: 'anvil_setBalance' as never,
                params: [recipient, `0x${NATIVE_TOP_UP.toString(16)}`] as never,
              });
            }
            for (const token of tokens) {
              const amount = parseUnits(whole, token.decimals);
              const hash = await serial(chain.chainId, async () => {
                const sent = await withNonceRetry(() =>
                  wallet.writeContract({
                    address: token.address,
                    abi: sandboxStablecoinAbi,
                    functionName: 'mint',
                    args: [recipient, amount],
                    gas: 200_000n,
                  }),
                );
                const receipt = await receiptOf(publicClient, sent);
                if (receipt.status !== 'success') throw new Error(`mint of ${token.symbol} reverted`);
                return sent;
              });
              grants.push({ chain: chain.name, chainId: chain.chainId, token: token.symbol, amount: amount.toString(), txHash: hash });
            }
          } catch (error) {
            if (error instanceof InvalidRequestError) throw error;
            if (isRevert(error)) {
              // The chain answered and refused this recipient: a 400 naming it, not a 503 (the chain is up).
              throw new InvalidRequestError({
                code: 'parameter_invalid',
                param: 'address',
                message: `${chain.name} refused to mint to this address: ${(error as Error).message}`.slice(0, 300),
              });
            }
            throw new MaintenanceError({
              code: 'chain_unavailable',
              message: `The faucet could not mint on ${chain.name}: ${(error as Error).message}`.slice(0, 300),
              cause: error,
            });
          }
        }
        return { status: 200, body: { address: body.address, grants, nativeTopUp: NATIVE_TOP_UP.toString() } };
      },
    });
  }
}

/**
 * Several service instances share the minter: the queue above orders this process's mints, and another instance may
 * take the nonce between our count and our send. The chain then refuses ours as a nonce clash, and we send again with
 * a fresh count (anvil mines at once, so the next count is past theirs).
 */
async function withNonceRetry<T>(send: () => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await send();
    } catch (error) {
      const clash = error instanceof Error && /nonce|already known|replacement transaction/i.test(error.message);
      if (!clash || attempt >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, 10 * attempt));
    }
  }
}

/** A transaction or call the chain executed and reverted (as opposed to a chain that did not answer). */
function isRevert(error: unknown): boolean {
  if (error instanceof BaseError) return error.walk((e) => e instanceof ContractFunctionRevertedError) !== null;
  return error instanceof Error && /reverted/.test(error.message);
}

/**
 * EIP-55: a mixed-case address must carry its checksum. A typo is a 400 naming `address` here, not a 503 from viem
 * halfway through minting (found by the fuzz campaign).
 */
function checksummed(address: string): ViemAddress {
  const normalised = getAddress(address.toLowerCase());
  const digits = address.slice(2);
  const mixedCase = digits !== digits.toLowerCase() && digits !== digits.toUpperCase();
  if (mixedCase && address !== normalised) {
    throw new InvalidRequestError({
      code: 'parameter_invalid',
      param: 'address',
      message: 'The address has an invalid EIP-55 checksum; check it for typos or send it in lowercase.',
    });
  }
  return normalised;
}

function selectChains(chains: readonly ChainInfo[], wanted: string | number | undefined): ChainInfo[] {
  if (wanted === undefined) return [...chains];
  const found = chains.filter((c) => c.name === String(wanted) || c.chainId === Number(wanted));
  if (found.length === 0) {
    throw new InvalidRequestError({
      code: 'parameter_invalid',
      param: 'chain',
      message: `Unknown chain ${wanted}; known: ${chains.map((c) => `${c.name} (${c.chainId})`).join(', ')}.`,
    });
  }
  return found;
}

/** How long a mint may take to be mined before the faucet answers 503 (anvil mines it at once). */
const RECEIPT_TIMEOUT_MS = 30_000;

/**
 * The mint's receipt, asked for by hash until it is there. Not `waitForTransactionReceipt`: that one looks again only
 * when a new block appears, and a mint whose first look raced its own block waited for a block that nobody else
 * would mine while every other mint queued behind it (the soak saw the faucet stall for minutes).
 */
async function receiptOf(client: { getTransactionReceipt(args: { hash: Hex }): Promise<TransactionReceipt> }, hash: Hex) {
  const deadline = Date.now() + RECEIPT_TIMEOUT_MS;
  for (;;) {
    try {
      return await client.getTransactionReceipt({ hash });
    } catch (error) {
      if (!(error instanceof TransactionReceiptNotFoundError) || Date.now() > deadline) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
