import { FUNDING } from './deployment.js';
import type { AccountRole, ChainInfo, SandboxManifest } from '../contracts/deployment.js';

/** Text styling supplied by the caller (the CLI colours a terminal, tests and logs use plain text). */
export interface SummaryStyle {
  heading(text: string): string;
  muted(text: string): string;
}

const PLAIN: SummaryStyle = { heading: (t) => t, muted: (t) => t };

const ROLE_LABELS: Record<AccountRole, string> = {
  deployer: 'deployer',
  serviceRelayer: 'service relayer',
  oracleRelayer: 'oracle relayer',
  solvers: 'solver',
  takers: 'taker',
};

/** The human summary `sandbox up` prints: chains, RPC URLs, addresses, funding, accounts and keys. */
export function formatSandboxSummary(
  manifest: SandboxManifest,
  options: { style?: SummaryStyle; manifestPath?: string; readyMs?: number } = {},
): string {
  const style = options.style ?? PLAIN;
  const lines: string[] = [];
  const section = (title: string) => lines.push('', style.heading(title));
  const rows = (cells: string[][]) => lines.push(alignRows(cells));

  lines.push(
    style.heading(`Sandbox ready${options.readyMs === undefined ? '' : ` in ${(options.readyMs / 1000).toFixed(2)} s`}`) +
      style.muted(`  (environment ${manifest.environment}, state ${manifest.stateDir})`),
  );

  section('Chains');
  rows(manifest.chains.map((c) => [c.name, String(c.chainId), c.rpcUrl, c.wsUrl]));

  const [first] = manifest.chains;
  const sameEverywhere = (pick: (c: ChainInfo) => unknown) =>
    manifest.chains.every((c) => JSON.stringify(pick(c)) === JSON.stringify(pick(first as ChainInfo)));
  const perChain = first === undefined ? [] : sameEverywhere((c) => [c.contracts, c.tokens]) ? [first] : manifest.chains;
  for (const chain of perChain) {
    const where = perChain.length === 1 ? 'same address on every chain' : `chain ${chain.name}`;
    section(`Contracts ${style.muted(`(${where})`)}`);
    rows(Object.entries(chain.contracts).map(([name, address]) => [name, address]));
    section(`Tokens ${style.muted(`(${where})`)}`);
    rows(
      chain.tokens.map((t) => [
        t.symbol,
        t.address,
        `${t.decimals} decimals`,
        t.eip3009 ? 'ERC-3009 + Permit2' : 'Permit2 only',
        style.muted(t.name),
      ]),
    );
  }

  section(`Accounts ${style.muted(`(mnemonic "${manifest.mnemonic ?? 'custom'}")`)}`);
  const accountRows: string[][] = [];
  for (const [role, accounts] of Object.entries(manifest.accounts) as Array<[AccountRole, SandboxManifest['accounts'][AccountRole]]>) {
    accounts.forEach((account, i) => {
      const label = accounts.length > 1 ? `${ROLE_LABELS[role] ?? role} ${i + 1}` : (ROLE_LABELS[role] ?? role);
      accountRows.push([label, account.address, style.muted(account.privateKey)]);
    });
  }
  rows(accountRows);
  const symbols = first?.tokens.map((t) => t.symbol).join(' + ') ?? 'tokens';
  lines.push(
    style.muted(
      `  Funding on every chain: ${grouped(FUNDING.etherPerAccount)} ETH each; takers ` +
        `${grouped(FUNDING.tokensPerTaker)} ${symbols} (Permit2 approved), solvers ` +
        `${grouped(FUNDING.tokensPerSolver)} ${symbols}.`,
    ),
  );

  if (manifest.api) {
    section('Service');
    rows([
      ['REST', manifest.api.url],
      ['WebSocket', manifest.api.wsUrl],
      ['Dashboard', `${manifest.api.url}/`],
      ['Workspace', manifest.api.workspaceId],
      ...(manifest.api.store === undefined ? [] : [['Store', `${manifest.api.store.kind} ${manifest.api.store.location}`]]),
      ...(manifest.api.instances === undefined
        ? []
        : [['Instances', `${manifest.api.instances} service processes behind ${manifest.api.url}`]]),
      ...manifest.api.apiKeys.map((key, i) => [i === 0 ? 'API key' : '', key]),
    ]);
  }
  if (options.manifestPath) lines.push('', style.muted(`Everything above is in ${options.manifestPath}`));
  return lines.join('\n');
}

/**
 * 1234567 → "1,234,567". Not `toLocaleString`: its first call loads the ICU locale data, about 20 ms that
 * `sandbox up --detach` would spend right before it exits.
 */
export function grouped(value: number | bigint): string {
  return String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

function alignRows(rows: string[][]): string {
  const widths: number[] = [];
  // eslint-disable-next-line no-control-regex
  const visible = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '').length;
  for (const row of rows)
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, visible(cell));
    });
  return rows
    .map(
      (row) => '  ' + row.map((cell, i) => (i === row.length - 1 ? cell : cell + ' '.repeat((widths[i] ?? 0) - visible(cell)))).join('  '),
    )
    .join('\n');
}
