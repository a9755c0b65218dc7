import { createPublicClient, createWalletClient, defineChain, getAddress, hashTypedData, http, parseAbi, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { type LockType, type StandardOrder, addressToBytes32, orderIdentifier } from '../../src/contracts/order.js';
import { standardOrderFromWire } from '../../src/contracts/standard-order-wire.js';
import {
  type LockContracts,
  type TokenDomain,
  orderTypedData,
  typedDataFromJson,
  typedDataToJson,
} from '../../src/contracts/typed-data.js';
import type { CheckContext } from '../core/context.js';
import { chainById, takers, type CorridorRecord } from '../deployment/discover.js';
import type { SandboxFileAccount, SandboxFileChain } from '../deployment/sandbox-file.js';
import type { WireResponse } from '../wire/http.js';
import { isArray, isObject, type Json } from '../checks/support/shape.js';

/**
 * A taker driving the spec's flow over the wire: quote → quote detail → EIP-712 signature → order → status
 * until terminal. Signing uses the exact payload the quote detail hands out (`typedData`, the deployment's
 * documented extension beside `standardOrder`) with the taker's own key from sandbox.json.
 */

export interface FlowOptions {
  /** Lock type to request (the `lockType` extension of the quote request); default the corridor's first. */
  lockType?: string;
  settlementPath?: 'direct' | 'compliant';
  /** Index into the sandbox's takers: each flow its own taker, so nonces never race. */
  takerIndex: number;
  /** Take this solver's quote instead of the best one. */
  solverId?: string;
  /** Send the API key with the order (the direct path's recommendation). Default true. */
  withKey?: boolean;
  preference?: 'price' | 'speed' | 'reliability';
  /** Wait until a terminal status (Claimed or Refunded); default true. */
  waitTerminal?: boolean;
  timeoutMs?: number;
  /** Multiplier of the corridor's minNotional for the input amount (default 1.1). */
  amountFactor?: number;
  /** Use this corridor (default: the first usable one). */
  corridor?: CorridorRecord;
  /** Runs right after the order is created (e.g. subscribe to its topic). */
  afterCreate?(orderId: string): Promise<void>;
}

export interface StatusSample {
  status: string;
  /** ms since the order was created. */
  at: number;
  body: Json;
}

export interface OrderFlow {
  label: string;
  corridor: CorridorRecord;
  taker: SandboxFileAccount;
  lockType: string;
  settlementPath: string;
  quoteRequest: Json;
  quoteResponse: WireResponse;
  quote: Json;
  detail: WireResponse;
  typedData: unknown;
  nonce: string;
  signature: Hex;
  orderRequest: Json;
  orderResponse: WireResponse;
  order: Json;
  orderId: string;
  statuses: StatusSample[];
  final: Json;
  createdAtMs: number;
}

/** Corridors the flows can use: live solvers, the lock type offered, and both chains known in sandbox.json. */
export function usableCorridors(ctx: CheckContext, lockType?: string): CorridorRecord[] {
  return ctx.target.corridors.filter(
    (c) =>
      c.solverCount > 0 &&
      (lockType === undefined || (Array.isArray(c.lockTypes) && c.lockTypes.includes(lockType))) &&
      chainById(ctx.target, c.originChainId) !== undefined &&
      chainById(ctx.target, c.destinationChainId) !== undefined,
  );
}

export function taker(ctx: CheckContext, index: number): SandboxFileAccount {
  const all = takers(ctx.target);
  if (all.length === 0) ctx.skip(ctx.target.missing.fundedAccounts ?? 'no funded taker accounts');
  return all[index % all.length]!;
}

export function inputAmountFor(corridor: CorridorRecord, factor = 1.1): string {
  const min = BigInt(corridor.minNotional);
  const max = BigInt(corridor.maxNotional);
  const wanted = (min * BigInt(Math.round(factor * 1000))) / 1000n;
  return (wanted > max ? max : wanted).toString();
}

export function quoteRequestFor(corridor: CorridorRecord, extra: Json = {}): Json {
  return {
    inputToken: corridor.inputToken.address,
    outputToken: corridor.outputToken.address,
    inputAmount: inputAmountFor(corridor),
    originChainId: corridor.originChainId,
    destinationChainId: corridor.destinationChainId,
    ...extra,
  };
}

/** The project's quote request fields (`lockType`, `settlementPath`, `user`) the target documents; none otherwise. */
export function quoteExtras(ctx: CheckContext, wanted: { lockType?: string; settlementPath?: string; user?: string }): Json {
  const caps = ctx.target.capabilities;
  return {
    ...(wanted.lockType !== undefined && caps.has('quoteLockType') ? { lockType: wanted.lockType } : {}),
    ...(wanted.settlementPath !== undefined && caps.has('quoteSettlementPath') ? { settlementPath: wanted.settlementPath } : {}),
    ...(wanted.user !== undefined && caps.has('namedTaker') ? { user: wanted.user } : {}),
  };
}

/** A compliance attestation for `address` from the deployment's compliance status route. */
export async function freshAttestation(ctx: CheckContext, address: string): Promise<string | undefined> {
  const response = await ctx.api('GET', '/compliance/status', {
    query: { address },
    auth: ctx.target.apiKey,
    label: 'compliance attestation',
  });
  const attestation = isObject(response.json) ? response.json.attestation : undefined;
  return isObject(attestation) && typeof attestation.hash === 'string' ? attestation.hash : undefined;
}

export async function signTypedDataJson(account: SandboxFileAccount, typedData: unknown): Promise<Hex> {
  const signer = privateKeyToAccount(account.privateKey);
  const revived = typedDataFromJson(typedData);
  return signer.signTypedData(revived as Parameters<typeof signer.signTypedData>[0]);
}

function viemChain(chain: SandboxFileChain) {
  return defineChain({
    id: chain.chainId,
    name: chain.name,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [chain.rpcUrl] } },
  });
}

/** How long a taker's own transaction may wait for its receipt: a sandbox mines at once. */
const RECEIPT_TIMEOUT_MS = 30_000;

/** ResourceLock orders need the taker's tokens in the lock first: approve, then depositERC20 with the order's lock tag. */
export async function depositIntoLock(
  ctx: CheckContext,
  chain: SandboxFileChain,
  account: SandboxFileAccount,
  lockIdHex: string,
  amount: bigint,
): Promise<void> {
  const lock = chain.contracts.ResourceLock;
  if (!lock) ctx.fail(`sandbox.json lists no ResourceLock contract on ${chain.name}`);
  const id = BigInt(lockIdHex);
  const token = `0x${(id & ((1n << 160n) - 1n)).toString(16).padStart(40, '0')}` as Hex;
  const lockTag = `0x${(id >> 160n).toString(16).padStart(24, '0')}` as Hex;
  const transport = http(chain.rpcUrl);
  const wallet = createWalletClient({ account: privateKeyToAccount(account.privateKey), chain: viemChain(chain), transport });
  const reader = createPublicClient({ chain: viemChain(chain), transport, pollingInterval: 20 });
  const abi = parseAbi([
    'function approve(address spender, uint256 amount) returns (bool)',
    'function depositERC20(address token, bytes12 lockTag, uint256 amount, address recipient) returns (uint256)',
  ]);
  // Each transaction is noted as it is sent, and its receipt waited for a bounded time: a chain that never mines it
  // (halted, restarted with its pool lost) is then reported as such, not as a check that ran out of time.
  const mined = async (what: string, hash: Hex) => {
    ctx.note(`${what} sent (tx ${hash})`);
    try {
      return await reader.waitForTransactionReceipt({ hash, pollingInterval: 20, timeout: RECEIPT_TIMEOUT_MS });
    } catch (error) {
      const pending = await reader.getTransaction({ hash }).then(
        (tx) => (tx.blockNumber === null ? `in the node's pool with nonce ${tx.nonce}` : `in block ${tx.blockNumber}`),
        () => 'unknown to the node',
      );
      return ctx.fail(
        `${chain.name}: ${what} ${hash} got no receipt within ${RECEIPT_TIMEOUT_MS / 1000} s (${pending}): ${(error as Error).message.split('\n')[0]}`,
      );
    }
  };
  const approve = await wallet.writeContract({ address: token, abi, functionName: 'approve', args: [lock, amount], gas: 100_000n });
  await mined('the approval of the resource lock', approve);
  const deposit = await wallet.writeContract({
    address: lock,
    abi,
    functionName: 'depositERC20',
    args: [token, lockTag, amount, '0x0000000000000000000000000000000000000000'],
    gas: 300_000n,
  });
  const receipt = await mined('the resource-lock deposit', deposit);
  ctx.note(`deposited ${amount} into the resource lock (tx ${deposit}, ${receipt.status})`);
  if (receipt.status !== 'success') ctx.fail(`the resource-lock deposit ${deposit} reverted`);
}

/** Polls the public order route until a terminal status or the time limit; records each status change once. */
export async function followOrder(
  ctx: CheckContext,
  orderId: string,
  options: { until: readonly string[]; timeoutMs: number; since?: number },
): Promise<{ statuses: StatusSample[]; final: Json }> {
  const started = options.since ?? Date.now();
  const statuses: StatusSample[] = [];
  let last: WireResponse | undefined;
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const response = await ctx.api('GET', `/orders/${orderId}`, { record: false });
    last = response;
    const body = isObject(response.json) ? response.json : {};
    const status = typeof body.status === 'string' ? body.status : `HTTP ${response.status}`;
    if (statuses.at(-1)?.status !== status) {
      statuses.push({ status, at: Date.now() - started, body });
      ctx.evidence.push(response.evidence);
    }
    if (options.until.includes(status) || response.status >= 400) break;
    if (Date.now() > deadline) break;
    await ctx.sleep(60);
  }
  return { statuses, final: isObject(last?.json) ? last.json : {} };
}

/** A nonce above any this taker used before: the spec's nonces only have to rise per user. */
function takerNonce(ctx: CheckContext, account: SandboxFileAccount): bigint {
  const key = `nonce:${account.address.toLowerCase()}`;
  const last = ctx.state.values.get(key) as bigint | undefined;
  const next = last === undefined ? BigInt(Math.floor(Date.now() / 1_000)) * 1_000n : last + 1n;
  ctx.state.values.set(key, next);
  return next;
}

const ERC5267_ABI = parseAbi([
  'function eip712Domain() view returns (bytes1 fields, string name, string version, uint256 chainId, address verifyingContract, bytes32 salt, uint256[] extensions)',
]);

/**
 * The EIP-712 payload for the quote, built by the taker from the quote's `standardOrder` and `lockType` by the OIF
 * rules (Permit2 batch witness, ERC-3009 receive authorisation, Compact batch compact) with its own address and
 * nonce. Where the target also hands out `typedData` (this project's extension) for the same user and nonce, the two
 * must be the same message.
 */
async function signablePayload(
  ctx: CheckContext,
  label: string,
  input: { account: SandboxFileAccount; corridor: CorridorRecord; lockType: string; detailBody: Json; standardOrder: Json },
): Promise<{ typedData: unknown; nonce: string }> {
  const { account, corridor, lockType, detailBody, standardOrder } = input;
  const chain = chainById(ctx.target, corridor.originChainId)!;
  const offeredNonce = String(detailBody.nonce ?? standardOrder.nonce ?? '');
  const namesMe = typeof standardOrder.user === 'string' && standardOrder.user.toLowerCase() === account.address.toLowerCase();
  const nonce = namesMe && /^[1-9]\d*$/.test(offeredNonce) ? BigInt(offeredNonce) : takerNonce(ctx, account);
  let order: StandardOrder;
  try {
    const quoted = standardOrderFromWire(standardOrder);
    const me = getAddress(account.address);
    // A quote for an unnamed taker holds the zero address where the taker goes: as user and as the recipient.
    const unnamed = BigInt(quoted.user) === 0n;
    const outputs = quoted.outputs.map((o) => (unnamed && BigInt(o.recipient) === 0n ? { ...o, recipient: addressToBytes32(me) } : o));
    order = { ...quoted, user: me, nonce, outputs };
  } catch (error) {
    ctx.skip(
      `${label}: the quote's standardOrder cannot be turned into an OIF StandardOrder (${(error as Error).message}): the spec's fields alone do not carry the oracle, settler and recipient`,
    );
  }
  const contracts = {
    inputSettlerEscrow: chain.contracts.InputSettlerEscrow,
    inputSettlerCompact: chain.contracts.InputSettlerCompact,
    resourceLock: chain.contracts.ResourceLock,
  };
  const needed = lockType === 'ResourceLock' ? ['InputSettlerCompact', 'ResourceLock'] : ['InputSettlerEscrow'];
  for (const name of needed)
    if (!chain.contracts[name]) ctx.skip(`sandbox.json lists no ${name} on ${chain.name}: the ${lockType} payload names it`);
  let options: { token?: TokenDomain; orderId?: Hex } = {};
  if (lockType === 'EIP3009Escrow') {
    const token = getAddress(corridor.inputToken.address);
    const reader = createPublicClient({ chain: viemChain(chain), transport: http(chain.rpcUrl) });
    const domain = await reader.readContract({ address: token, abi: ERC5267_ABI, functionName: 'eip712Domain' }).catch(() => undefined);
    if (domain === undefined) ctx.skip(`the input token ${token} does not tell its EIP-712 domain (ERC-5267 eip712Domain())`);
    options = {
      token: { name: domain[1], version: domain[2], address: token },
      orderId: orderIdentifier(order, getAddress(contracts.inputSettlerEscrow!)),
    };
  }
  const built = typedDataToJson(orderTypedData(lockType as LockType, order, contracts as LockContracts, options));
  const offered = detailBody.typedData;
  if (isObject(offered) && namesMe && BigInt(offeredNonce || '0') === nonce) {
    const same =
      hashTypedData(typedDataFromJson(offered) as Parameters<typeof hashTypedData>[0]) ===
      hashTypedData(typedDataFromJson(built) as Parameters<typeof hashTypedData>[0]);
    ctx.expect('A-QUO-010', same, `${label}: the quote detail's typedData is not the OIF ${lockType} payload of its standardOrder`);
  } else if (!isObject(offered)) {
    ctx.note(`${label}: no typedData offered; the taker built the ${lockType} payload from standardOrder with nonce ${nonce}`);
  }
  return { typedData: built, nonce: nonce.toString() };
}

export interface QuoteToSign {
  detail: WireResponse;
  detailBody: Json;
  standardOrder: Json;
  /** The EIP-712 payload (JSON form) the taker signs. */
  typedData: unknown;
  nonce: string;
}

/** Reads the quote detail (naming the taker where the target documents how) and builds the payload to sign. */
export async function quoteToSign(
  ctx: CheckContext,
  label: string,
  account: SandboxFileAccount,
  corridor: CorridorRecord,
  quoteId: string,
  lockType: string,
): Promise<QuoteToSign> {
  const detail = await ctx.api('GET', `/quotes/${quoteId}`, {
    ...(ctx.target.capabilities.has('namedTaker') ? { query: { user: account.address } } : {}),
    label: `${label}: quote detail`,
  });
  if (detail.status !== 200) ctx.fail(`${label}: GET /quotes/${quoteId} answered ${detail.status}`);
  const detailBody = isObject(detail.json) ? detail.json : {};
  const standardOrder = isObject(detailBody.standardOrder) ? detailBody.standardOrder : {};
  const { typedData, nonce } = await signablePayload(ctx, label, { account, corridor, lockType, detailBody, standardOrder });
  return { detail, detailBody, standardOrder, typedData, nonce };
}

/** Runs one taker flow; fails (or skips, when the target lacks what it needs) with the reason. */
export async function runOrderFlow(ctx: CheckContext, label: string, options: FlowOptions): Promise<OrderFlow> {
  const account = taker(ctx, options.takerIndex);
  const corridors = options.corridor ? [options.corridor] : usableCorridors(ctx, options.lockType);
  if (corridors.length === 0) {
    ctx.skip(
      usableCorridors(ctx).length === 0
        ? (ctx.target.missing.solvers ?? 'no corridor with live solvers and known chains')
        : `no corridor with live solvers offers ${options.lockType}`,
    );
  }
  const corridor = corridors[0]!;
  const lockType = options.lockType ?? corridor.lockTypes[0] ?? 'Permit2Escrow';
  const settlementPath = options.settlementPath ?? 'direct';
  const caps = ctx.target.capabilities;
  // Extensions of the quote request go out only where the target documents them (the spec's request has none).
  if (options.lockType !== undefined && !caps.has('quoteLockType') && lockType !== (corridor.lockTypes[0] ?? 'Permit2Escrow'))
    ctx.skip(`${ctx.target.missing.quoteLockType}: a ${lockType} quote cannot be asked for`);
  if (settlementPath !== 'direct' && !caps.has('quoteSettlementPath'))
    ctx.skip(`${ctx.target.missing.quoteSettlementPath}: a ${settlementPath} quote cannot be asked for`);
  const quoteRequest = quoteRequestFor(corridor, {
    preference: options.preference ?? 'price',
    ...quoteExtras(ctx, { lockType, settlementPath, user: account.address }),
  });
  const quoteResponse = await ctx.api('POST', '/quotes', { body: quoteRequest, label: `${label}: quote` });
  if (quoteResponse.status !== 200)
    ctx.fail(`${label}: POST /quotes answered ${quoteResponse.status}: ${quoteResponse.text.slice(0, 200)}`);
  const quotes = isObject(quoteResponse.json) && isArray(quoteResponse.json.quotes) ? (quoteResponse.json.quotes as Json[]) : [];
  const quote = options.solverId === undefined ? quotes[0] : quotes.find((q) => q.solverId === options.solverId);
  if (quote === undefined || typeof quote.quoteId !== 'string') {
    ctx.fail(`${label}: no usable quote${options.solverId ? ` from ${options.solverId}` : ''} among ${quotes.length}`);
  }
  if (quote.lockType !== lockType) ctx.skip(`${label}: the target quoted ${String(quote.lockType)}, not ${lockType}`);
  const { detail, standardOrder, typedData, nonce } = await quoteToSign(ctx, label, account, corridor, String(quote.quoteId), lockType);

  if (lockType === 'ResourceLock') {
    const chain = chainById(ctx.target, corridor.originChainId)!;
    const input = isArray(standardOrder.inputs) && isArray(standardOrder.inputs[0]) ? (standardOrder.inputs[0] as unknown[]) : [];
    await depositIntoLock(ctx, chain, account, String(input[0]), BigInt(String(input[1] ?? quoteRequest.inputAmount)));
  }
  const signature = await signTypedDataJson(account, typedData);
  // `user` names the signer: the spec's order request has no field for it, the deployment documents this one.
  const orderRequest: Json = {
    quoteId: quote.quoteId,
    signature,
    nonce: Number.isSafeInteger(Number(nonce)) ? Number(nonce) : nonce,
    user: account.address,
  };
  const headers: Record<string, string> = {};
  if (settlementPath === 'compliant') {
    const attestation = await freshAttestation(ctx, account.address);
    if (attestation === undefined) ctx.fail(`${label}: no compliance attestation for ${account.address}`);
    headers['X-Service-Attestation'] = attestation;
  }
  const orderResponse = await ctx.api('POST', '/orders', {
    body: orderRequest,
    headers,
    ...(options.withKey === false ? {} : { auth: ctx.target.apiKey }),
    label: `${label}: order`,
    timeoutMs: 30_000,
  });
  const createdAtMs = Date.now();
  if (orderResponse.status !== 201)
    ctx.fail(`${label}: POST /orders answered ${orderResponse.status}: ${orderResponse.text.slice(0, 300)}`);
  const order = isObject(orderResponse.json) ? orderResponse.json : {};
  const orderId = String(order.orderId ?? '');
  await options.afterCreate?.(orderId);
  let statuses: StatusSample[] = [];
  let final: Json = order;
  if (options.waitTerminal !== false) {
    ({ statuses, final } = await followOrder(ctx, orderId, {
      until: ['Claimed', 'Refunded'],
      timeoutMs: options.timeoutMs ?? 30_000,
      since: createdAtMs,
    }));
  }
  return {
    label,
    corridor,
    taker: account,
    lockType,
    settlementPath,
    quoteRequest,
    quoteResponse,
    quote,
    detail,
    typedData,
    nonce,
    signature,
    orderRequest,
    orderResponse,
    order,
    orderId,
    statuses,
    final,
    createdAtMs,
  };
}
