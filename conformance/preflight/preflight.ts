import { BaseError } from '../../src/contracts/errors/base-error.js';
import { createPublicClient, createWalletClient, defineChain, http as viemHttp, maxUint256, parseAbi, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { redactSecret } from '../core/redact.js';
import type { Capability, Evidence } from '../core/types.js';
import { API_PREFIX, type CorridorRecord, type Target } from '../deployment/discover.js';
import type { SandboxFileAccount, SandboxFileChain } from '../deployment/sandbox-file.js';
import { inputAmountFor } from '../flows/taker.js';
import { HttpClient } from '../wire/http.js';
import { rpcCall } from '../wire/rpc.js';

/**
 * Before any check: are the caller's inputs right? A refused API key, a chain that does not answer at the URL the
 * run would use, or a taker without funds would make checks fail for the caller's mistake and a report blame the
 * deployment. Each of these ends the run here (exit 2) with what to fix; nothing is judged.
 */

/** The caller's inputs are wrong: the run stops before any check (exit 2). */
export class PreflightRefused extends BaseError {
  override readonly name = 'PreflightRefused';
  override readonly code = 'usage_error';
}

export interface PreflightOutcome {
  /** The target with what pre-flight added (faucet-funded takers). */
  target: Target;
  /** One line per thing established, for the console and the report. */
  lines: string[];
  evidence: Evidence[];
}

/** Takers the run makes and funds itself when the caller gave none and the target has a faucet. */
const FAUCET_TAKERS = 5;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/** A route every generation guards with the API key and that changes nothing. */
async function checkApiKey(http: HttpClient, key: string, evidence: Evidence[]): Promise<string> {
  const response = await http
    .request({ method: 'GET', path: `${API_PREFIX}/webhooks`, auth: key, label: 'pre-flight: API key', timeoutMs: 10_000 })
    .catch((error: Error) => {
      throw new PreflightRefused(`the target did not answer the API key check (GET ${API_PREFIX}/webhooks): ${error.message}`);
    });
  evidence.push(response.evidence);
  if (response.status === 401 || response.status === 403) {
    const body = isObject(response.json) ? response.json : {};
    const error = isObject(body.error) ? body.error : body;
    const code = typeof error.code === 'string' ? error.code : typeof error.error === 'string' ? error.error : '';
    const message = typeof error.message === 'string' ? error.message : response.text.slice(0, 160);
    throw new PreflightRefused(
      `the target refused the API key: ${response.status}${code ? ` ${code}` : ''}${message ? `: ${message}` : ''} (key ${redactSecret(key, key.startsWith('svc_') ? 11 : 4)}; pass a key of the target's environment with --api-key)`,
    );
  }
  return `API key accepted (GET ${API_PREFIX}/webhooks answered ${response.status})`;
}

async function checkChain(chain: SandboxFileChain, evidence: Evidence[]): Promise<string> {
  const { result, error, evidence: rpc } = await rpcCall<string>(chain.rpcUrl, 'eth_chainId', [], chain.chainId);
  evidence.push(rpc);
  if (error !== undefined || typeof result !== 'string')
    throw new PreflightRefused(
      `chain ${chain.name} (${chain.chainId}) does not answer at ${chain.rpcUrl}: ${error ?? 'no chain id'}; pass --rpc ${chain.chainId}=URL with an RPC endpoint you can reach`,
    );
  if (Number.parseInt(result, 16) !== chain.chainId)
    throw new PreflightRefused(
      `the RPC endpoint for chain ${chain.name} (${chain.chainId}) at ${chain.rpcUrl} answers chain id ${Number.parseInt(result, 16)}; pass --rpc ${chain.chainId}=URL for the right chain`,
    );
  return `chain ${chain.name} (${chain.chainId}) answers`;
}

function balanceCall(token: string, holder: string): { to: string; data: string } {
  return { to: token, data: `0x70a08231${holder.slice(2).toLowerCase().padStart(64, '0')}` };
}

/** The corridors the flows will use: live solvers and both chains known. */
function flowCorridors(target: Target): CorridorRecord[] {
  const known = new Set((target.sandbox?.chains ?? []).map((c) => c.chainId));
  return target.corridors.filter((c) => c.solverCount > 0 && known.has(c.originChainId) && known.has(c.destinationChainId));
}

async function checkTakerFunded(target: Target, account: SandboxFileAccount, evidence: Evidence[]): Promise<string[]> {
  const problems: string[] = [];
  const chains = target.sandbox?.chains ?? [];
  const seen = new Set<string>();
  for (const corridor of flowCorridors(target)) {
    const chain = chains.find((c) => c.chainId === corridor.originChainId)!;
    const key = `${chain.chainId}:${corridor.inputToken.address.toLowerCase()}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const needed = BigInt(inputAmountFor(corridor));
    const token = await rpcCall<string>(
      chain.rpcUrl,
      'eth_call',
      [balanceCall(corridor.inputToken.address, account.address), 'latest'],
      chain.chainId,
    );
    evidence.push(token.evidence);
    const held = token.result !== undefined && /^0x[0-9a-f]*$/i.test(token.result) && token.result.length > 2 ? BigInt(token.result) : 0n;
    if (held < needed)
      problems.push(
        `${account.address} holds ${held} of ${corridor.inputToken.symbol} on ${chain.name}, one trade on ${corridor.id} needs ${needed}`,
      );
    const native = await rpcCall<string>(chain.rpcUrl, 'eth_getBalance', [account.address, 'latest'], chain.chainId);
    evidence.push(native.evidence);
    if (native.result === undefined || BigInt(native.result) === 0n)
      problems.push(`${account.address} has no native coin for gas on ${chain.name}`);
  }
  return problems;
}

/** Permit2's canonical address (the same on every chain), unless the chain names its own. */
const CANONICAL_PERMIT2 = '0x000000000022D473030F116dDEE9F6B43aC78BA3';
const ERC20 = parseAbi([
  'function approve(address spender, uint256 amount) returns (bool)',
  'function allowance(address owner, address spender) view returns (uint256)',
]);

/**
 * A Permit2 taker signs transfers that Permit2 pulls: its one-time ERC-20 approval of Permit2 is the taker's own set-up
 * (as a wallet does on first use), not the target's job. Approves where the allowance is short; returns how many.
 */
async function approvePermit2(target: Target, account: SandboxFileAccount): Promise<number> {
  let approved = 0;
  const chains = target.sandbox?.chains ?? [];
  const seen = new Set<string>();
  for (const corridor of flowCorridors(target)) {
    if (Array.isArray(corridor.lockTypes) && !corridor.lockTypes.includes('Permit2Escrow')) continue;
    const chain = chains.find((c) => c.chainId === corridor.originChainId)!;
    const token = corridor.inputToken.address as Hex;
    if (seen.has(`${chain.chainId}:${token.toLowerCase()}`)) continue;
    seen.add(`${chain.chainId}:${token.toLowerCase()}`);
    const permit2 = (chain.contracts.Permit2 ?? CANONICAL_PERMIT2) as Hex;
    const viemChain = defineChain({
      id: chain.chainId,
      name: chain.name,
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [chain.rpcUrl] } },
    });
    const reader = createPublicClient({ chain: viemChain, transport: viemHttp(chain.rpcUrl), pollingInterval: 20 });
    const allowance = await reader.readContract({
      address: token,
      abi: ERC20,
      functionName: 'allowance',
      args: [account.address, permit2],
    });
    if (allowance >= BigInt(inputAmountFor(corridor)) * 1_000n) continue;
    const wallet = createWalletClient({
      account: privateKeyToAccount(account.privateKey),
      chain: viemChain,
      transport: viemHttp(chain.rpcUrl),
    });
    const hash = await wallet.writeContract({
      address: token,
      abi: ERC20,
      functionName: 'approve',
      args: [permit2, maxUint256],
      gas: 100_000n,
    });
    const receipt = await reader.waitForTransactionReceipt({ hash, pollingInterval: 20 });
    if (receipt.status !== 'success')
      throw new PreflightRefused(
        `the taker ${account.address} could not approve Permit2 for ${corridor.inputToken.symbol} on ${chain.name} (tx ${hash} reverted)`,
      );
    approved += 1;
  }
  return approved;
}

/** Mints test tokens and gas to fresh taker keys through the target's faucet; undefined (with the reason) when it cannot. */
async function faucetTakers(
  http: HttpClient,
  key: string,
  evidence: Evidence[],
): Promise<{ takers?: SandboxFileAccount[]; reason?: string }> {
  const takers: SandboxFileAccount[] = [];
  for (let i = 0; i < FAUCET_TAKERS; i += 1) {
    const privateKey = generatePrivateKey();
    const address = privateKeyToAccount(privateKey).address;
    const response = await http
      .request({
        method: 'POST',
        path: `${API_PREFIX}/sandbox/faucet`,
        auth: key,
        body: { address },
        label: 'pre-flight: fund a taker',
        timeoutMs: 30_000,
      })
      .catch(() => undefined);
    if (response) evidence.push(response.evidence);
    if (response?.status !== 200) return { reason: `the faucet answered ${response?.status ?? 'nothing'} when funding a taker` };
    takers.push({ address, privateKey });
  }
  return { takers };
}

/**
 * Checks the caller's inputs against the target (key, chains, takers' funds). When the caller gave no takers and the
 * target has a faucet, makes and funds its own takers so the flows run.
 */
export async function preflight(target: Target): Promise<PreflightOutcome> {
  const http = new HttpClient(target.url);
  const evidence: Evidence[] = [];
  const lines: string[] = [];
  if (target.apiKey !== undefined) lines.push(await checkApiKey(http, target.apiKey, evidence));
  const chains = target.sandbox?.chains ?? [];
  const used = new Set(target.corridors.flatMap((c) => [c.originChainId, c.destinationChainId]));
  for (const chain of chains) if (used.has(chain.chainId) || used.size === 0) lines.push(await checkChain(chain, evidence));

  const capabilities = new Set<Capability>(target.capabilities);
  const missing = { ...target.missing };
  let sandbox = target.sandbox;
  const given = target.sandbox?.accounts?.takers ?? [];
  if (given.length > 0 && capabilities.has('chains')) {
    const problems = (await Promise.all(given.map((account) => checkTakerFunded(target, account, evidence)))).flat();
    if (problems.length > 0)
      throw new PreflightRefused(`the taker accounts are not funded: ${problems.join('; ')}; fund them or pass other --taker-key keys`);
    lines.push(`${given.length} taker account(s) funded for ${flowCorridors(target).length} corridor(s)`);
    const approvals = (await Promise.all(given.map((account) => approvePermit2(target, account)))).reduce((a, b) => a + b, 0);
    if (approvals > 0) lines.push(`${approvals} Permit2 approval(s) sent by the takers (a Permit2 user's one-time set-up)`);
  } else if (given.length === 0 && capabilities.has('chains') && capabilities.has('faucet') && target.apiKey !== undefined) {
    const funded = await faucetTakers(http, target.apiKey, evidence);
    if (funded.takers) {
      sandbox = { ...sandbox, accounts: { ...(sandbox?.accounts ?? {}), takers: funded.takers } };
      capabilities.add('fundedAccounts');
      delete missing.fundedAccounts;
      const withTakers: Target = { ...target, sandbox };
      for (const account of funded.takers) await approvePermit2(withTakers, account);
      lines.push(
        `${funded.takers.length} fresh taker accounts funded through the target's faucet (no --taker-key given), Permit2 approved`,
      );
    } else
      missing.fundedAccounts = `no funded taker accounts: ${funded.reason}; pass --taker-key 0x… (repeatable) or --taker-keys-file FILE`;
  }
  return {
    target: {
      ...target,
      capabilities,
      missing,
      ...(sandbox === undefined ? {} : { sandbox }),
      discovery: [...target.discovery, ...evidence],
    },
    lines,
    evidence,
  };
}
