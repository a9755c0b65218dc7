import { BaseError } from '../contracts/errors/base-error.js';
/**
 * Errors of the devnet carry a short message for people, a stable `code` for scripts (`--json` output) and
 * the docs section that explains the fix.
 */
export class SandboxError extends BaseError {
  override name = 'SandboxError';
  override readonly code: string;
  override readonly docsPath: string;

  constructor(message: string, options: { code: string; docsPath?: string; cause?: unknown }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = options.code;
    this.docsPath = options.docsPath ?? 'docs/devnet.md';
  }
}

export class PortInUseError extends SandboxError {
  override name = 'PortInUseError';
  readonly port: number;

  constructor(port: number, what: string, flag: string) {
    super(`Port ${port} is already in use (${what}). Choose other ports with ${flag}.`, {
      code: 'port_in_use',
      docsPath: 'docs/devnet.md#ports',
    });
    this.port = port;
  }
}

export class SandboxAlreadyRunningError extends SandboxError {
  override name = 'SandboxAlreadyRunningError';
  readonly pid: number;

  constructor(stateDir: string, pid: number) {
    super(
      `A sandbox is already running on state folder ${stateDir} (pid ${pid}). ` +
        `Stop it with \`sandbox down --state-dir ${stateDir}\`, or use another --state-dir.`,
      { code: 'already_running', docsPath: 'docs/devnet.md#state-folder' },
    );
    this.pid = pid;
  }
}

export class SandboxNotRunningError extends SandboxError {
  override name = 'SandboxNotRunningError';

  constructor(stateDir: string) {
    super(`No sandbox is running on state folder ${stateDir}.`, {
      code: 'not_running',
      docsPath: 'docs/devnet.md#state-folder',
    });
  }
}

export class ArtifactMissingError extends SandboxError {
  override name = 'ArtifactMissingError';

  constructor(names: readonly string[]) {
    super(
      `Contract artifacts missing: ${names.join(', ')}. Build them with \`npm run build:contracts\` ` +
        `(contracts are never compiled when a sandbox starts).`,
      { code: 'artifacts_missing', docsPath: 'docs/devnet.md#contracts' },
    );
  }
}

export class StateMismatchError extends SandboxError {
  override name = 'StateMismatchError';

  constructor(stateDir: string, chain: string, reason: string) {
    super(
      `The saved state of chain ${chain} in ${stateDir} does not match this sandbox (${reason}). ` +
        `Start clean with \`sandbox up --fresh\` (balances are reset), or use another --state-dir.`,
      { code: 'state_mismatch', docsPath: 'docs/devnet.md#state-folder' },
    );
  }
}

export class ChainStartError extends SandboxError {
  override name = 'ChainStartError';

  constructor(chain: string, detail: string, cause?: unknown) {
    super(`Chain ${chain} failed to start: ${detail}`, { code: 'chain_start_failed', cause });
  }
}

export class DeploymentError extends SandboxError {
  override name = 'DeploymentError';

  constructor(chain: string, step: string, detail: string, cause?: unknown) {
    super(`Deployment on chain ${chain} failed at ${step}: ${detail}`, {
      code: 'deployment_failed',
      docsPath: 'docs/devnet.md#contracts',
      cause,
    });
  }
}
