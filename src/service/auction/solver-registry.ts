import { checksummed } from '../api/wire.js';
import { BaseError } from '../../contracts/errors/base-error.js';
/**
 * Solvers: registration for corridors, their stream credential (wsToken), and who a stream credential speaks for.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Address } from 'viem';
import type { Clock } from '../../clock/index.js';
import type { Environment } from '../../contracts/deployment.js';
import type { Authenticator } from '../auth/authenticator.js';
import type { CorridorCatalogue } from '../corridors/catalogue.js';
import { ApiError, InvalidRequestError, NotFoundError } from '../errors/api-errors.js';
import { newId } from '../store/ids.js';
import { LOOPBACK_HOSTS } from '../../contracts/wire/urls.js';
import type { SolverRecord, SolverRepository } from './solver-repository.js';
import type { SolverKeyResolver } from './types.js';

const WS_TOKEN_PATTERN = /^wst_(test|live)_([0-9a-f]{48})$/;
const SOLVER_KEY_PATTERN = /^sk_(test|live)_[A-Za-z0-9_]{8,200}$/;

export interface SolverIdentity {
  solverId: string;
  /** Corridors the solver registered for: it is invited to RFQs on these only. */
  corridors: readonly string[];
  /** What the per-key connection cap counts against. */
  limitKey: string;
  via: 'wsToken' | 'apiKey' | 'solverKey';
}

export type SolverAuthCode = 'invalid_token' | 'wrong_environment' | 'solver_required' | 'solver_not_found';

/** Why a stream credential was refused; the stream closes with 1008 and this message. */
export class SolverAuthError extends BaseError {
  override readonly name = 'SolverAuthError';
  constructor(
    override readonly code: SolverAuthCode,
    message: string,
  ) {
    super(message);
  }
}

export interface RegistrationInput {
  name: string;
  corridors: string[];
  callbackUrl?: string | undefined;
  address?: string | undefined;
}

export interface SolverRegistryOptions {
  environment: Environment;
  corridors: CorridorCatalogue;
  authenticator: Authenticator;
  solverKeys?: SolverKeyResolver | undefined;
  /**
   * Other instances share the store and register solvers too: the per-corridor counts are read from the store again
   * when older than this many ms of wall time (undefined: this process is the only writer, counting as it goes).
   */
  recountAfterMs?: number | undefined;
}

function hashToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

export class SolverRegistry {
  private corridorCounts = new Map<string, number>();
  private countedAt = Date.now();
  private solverKeys: SolverKeyResolver | undefined;

  constructor(
    private readonly repo: SolverRepository,
    private readonly clock: Clock,
    private readonly options: SolverRegistryOptions,
  ) {
    this.solverKeys = options.solverKeys;
    for (const solver of repo.all()) this.count(solver.corridors);
  }

  /** Issue 8 plugs in Reference B solver keys here. */
  useSolverKeys(resolver: SolverKeyResolver): void {
    this.solverKeys = resolver;
  }

  get keyEnvironment(): 'test' | 'live' {
    return this.options.environment === 'production' ? 'live' : 'test';
  }

  newWsToken(): string {
    return `wst_${this.keyEnvironment}_${randomBytes(24).toString('hex')}`;
  }

  /** Registers a solver of `workspaceId`; the wsToken is returned once and stored only as a hash. */
  register(workspaceId: string, input: RegistrationInput): { solver: SolverRecord; wsToken: string } {
    const corridors = [...new Set(input.corridors)];
    corridors.forEach((id, i) => {
      if (this.options.corridors.get(id) === undefined) {
        throw new InvalidRequestError({
          code: 'parameter_invalid',
          param: `corridors.${input.corridors.indexOf(id, i)}`,
          message: `Unknown corridor \`${id}\`; GET /api/v1/corridors lists them.`,
        });
      }
    });
    if (input.callbackUrl !== undefined) this.checkCallbackUrl(input.callbackUrl);
    const solver: SolverRecord = {
      id: newId('slv'),
      workspaceId,
      name: input.name,
      corridors,
      callbackUrl: input.callbackUrl ?? null,
      address: input.address === undefined ? null : (checksummed(input.address) as Address),
      createdAt: this.clock.now(),
    };
    const wsToken = this.newWsToken();
    this.repo.insert(solver, hashToken(wsToken));
    this.count(solver.corridors);
    return { solver, wsToken };
  }

  /** Replaces a solver's wsToken (the old one stops working; open connections stay). */
  rotateToken(workspaceId: string, solverId: string): string {
    const solver = this.ownedBy(workspaceId, solverId);
    const wsToken = this.newWsToken();
    this.repo.replaceTokenHash(solver.id, hashToken(wsToken));
    return wsToken;
  }

  get(solverId: string): SolverRecord | undefined {
    return this.repo.get(solverId);
  }

  /** The solver, if it belongs to `workspaceId`; another workspace's solver is a 404 as if it did not exist. */
  ownedBy(workspaceId: string, solverId: string): SolverRecord {
    const solver = this.repo.get(solverId);
    if (solver === undefined || solver.workspaceId !== workspaceId) {
      throw new NotFoundError({ code: 'resource_not_found', param: 'solverId', message: `No solver ${solverId} in this workspace.` });
    }
    return solver;
  }

  /** Solvers registered for a corridor (the corridor's `solverCount`). */
  corridorCount(corridorId: string): number {
    const recount = this.options.recountAfterMs;
    if (recount !== undefined && Date.now() - this.countedAt > recount) {
      this.corridorCounts = new Map();
      for (const solver of this.repo.all()) this.count(solver.corridors);
      this.countedAt = Date.now();
    }
    return this.corridorCounts.get(corridorId) ?? 0;
  }

  /**
   * Who a stream credential speaks for: a wsToken names its solver; a workspace API key names one of the
   * workspace's solvers (`solverId`, or the only one); a Reference B solver key goes through the resolver.
   */
  async authenticateStream(token: string, solverIdHint?: string): Promise<SolverIdentity> {
    const wsToken = WS_TOKEN_PATTERN.exec(token);
    if (wsToken !== null) {
      this.checkEnvironment(wsToken[1]!, 'wst');
      const solver = this.repo.byTokenHash(hashToken(token));
      if (solver === undefined) throw new SolverAuthError('invalid_token', 'unknown or rotated wsToken');
      return { solverId: solver.id, corridors: solver.corridors, limitKey: `wst:${solver.id}`, via: 'wsToken' };
    }
    if (token.startsWith('sk_')) {
      const match = SOLVER_KEY_PATTERN.exec(token);
      if (match === null) throw new SolverAuthError('invalid_token', 'malformed solver key');
      this.checkEnvironment(match[1]!, 'sk');
      const resolved = this.solverKeys?.resolve(token);
      const solver = resolved && this.repo.get(resolved.solverId);
      if (solver === undefined) throw new SolverAuthError('invalid_token', 'unknown solver key');
      return { solverId: solver.id, corridors: solver.corridors, limitKey: `sk:${hashToken(token).toString('hex')}`, via: 'solverKey' };
    }
    let workspaceId: string;
    let keyId: string;
    try {
      const auth = await this.options.authenticator.fromToken(token);
      workspaceId = auth.workspaceId;
      keyId = auth.keyId;
    } catch (error) {
      if (error instanceof ApiError) throw new SolverAuthError('invalid_token', error.message);
      throw error;
    }
    const owned = this.repo.byWorkspace(workspaceId);
    let solver: SolverRecord | undefined;
    if (solverIdHint !== undefined) {
      solver = owned.find((candidate) => candidate.id === solverIdHint);
      if (solver === undefined) throw new SolverAuthError('solver_not_found', `solver ${solverIdHint} is not registered by this workspace`);
    } else if (owned.length === 1) {
      solver = owned[0];
    } else {
      throw new SolverAuthError(
        owned.length === 0 ? 'solver_not_found' : 'solver_required',
        owned.length === 0 ? 'this workspace has no registered solver' : 'this workspace has several solvers: send solverId',
      );
    }
    return { solverId: solver!.id, corridors: solver!.corridors, limitKey: `key:${keyId}`, via: 'apiKey' };
  }

  private checkEnvironment(environment: string, prefix: string): void {
    if (environment !== this.keyEnvironment) {
      throw new SolverAuthError(
        'wrong_environment',
        `a ${prefix}_${environment}_ credential is not valid on this ${this.options.environment} deployment (use ${prefix}_${this.keyEnvironment}_)`,
      );
    }
  }

  private checkCallbackUrl(text: string): void {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw new InvalidRequestError({ code: 'parameter_invalid', param: 'callbackUrl', message: 'callbackUrl must be an absolute URL.' });
    }
    // The request schema states the same rule as a pattern; this is the check that knows the environment.
    const loopback = LOOPBACK_HOSTS.includes(url.hostname);
    const allowed = url.protocol === 'https:' || (url.protocol === 'http:' && loopback && this.options.environment === 'sandbox');
    if (!allowed) {
      throw new InvalidRequestError({
        code: 'parameter_invalid',
        param: 'callbackUrl',
        message: 'callbackUrl must use https (http is accepted for loopback hosts in the sandbox).',
      });
    }
  }

  private count(corridors: readonly string[]): void {
    for (const id of corridors) this.corridorCounts.set(id, (this.corridorCounts.get(id) ?? 0) + 1);
  }
}
