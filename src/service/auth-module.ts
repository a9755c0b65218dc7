import { randomBytes } from 'node:crypto';
import type { Clock } from '../clock/index.js';
import type { ResolvedServiceConfig } from './resolved-config.js';
import type { RunningContext, ServiceContext, ServiceModule } from './module.js';
import type { PlatformRepositories } from './store/repositories.js';
import type { Store } from './store/store.js';
import { AccessService } from './auth/access.js';
import { Authenticator } from './auth/authenticator.js';
import { MfaService } from './auth/mfa.js';
import { mountAuthRoutes, mountSandboxKeyRoutes } from './auth/routes.js';
import { SessionTokens } from './auth/session-tokens.js';
import { WalletSignIn } from './auth/wallet-sign-in.js';
import { defaultRelyingParty, type RelyingParty, WebAuthnService } from './auth/webauthn.js';
import { mountWebAuthnRoutes } from './auth/webauthn-routes.js';

/**
 * Who is calling: workspaces and API keys (AccessService), session tokens, wallet sign-in, MFA and passkeys, and
 * the sandbox's key routes. Its services exist from construction (the authentication middleware and every other
 * module use them); sign-in messages and passkeys name the service's own origin, known once it listens.
 */
export class AuthModule implements ServiceModule {
  readonly name = 'auth';
  readonly access: AccessService;
  readonly authenticator: Authenticator;
  private readonly tokens: SessionTokens;
  private readonly mfa: MfaService;
  private signInOrigin = { domain: 'localhost', uri: 'http://localhost' };
  private relyingParty: RelyingParty;

  constructor(private readonly deps: { store: Store; repos: PlatformRepositories; clock: Clock; config: ResolvedServiceConfig }) {
    const { store, repos, clock, config } = deps;
    this.access = new AccessService(store, repos, clock, {
      environment: config.environment,
      rotationGraceMs: config.keyRotationGraceMs,
    });
    const secret =
      config.auth.jwtSecret !== undefined
        ? Buffer.from(config.auth.jwtSecret, 'utf8')
        : repos.secrets.getOrCreate('jwt-signing-key', () => randomBytes(32), clock.now());
    this.tokens = new SessionTokens(secret, clock);
    this.authenticator = new Authenticator(this.access, this.tokens, repos, clock);
    this.mfa = new MfaService(store, repos, clock, 'Settlement Sandbox');
    this.relyingParty = defaultRelyingParty(config.auth.webauthn, 'http://localhost', 0);
  }

  setup(context: ServiceContext): void {
    const { store, repos, clock, config } = this.deps;
    const api = context.routes();
    mountAuthRoutes(api, context.openapi, {
      signIn: new WalletSignIn(store, repos, clock, this.tokens, {
        // Sign-in messages name the service's own origin, known once the server listens.
        origin: () => this.signInOrigin,
        challengeTtlMs: config.auth.challengeTtlMs,
        sessionTtlMs: config.auth.sessionTtlMs,
        statement: 'Sign in to the settlement service dashboard.',
      }),
      mfa: this.mfa,
      repos,
      now: () => clock.now(),
      defaultChainId: config.chains[0]?.chainId ?? 1,
    });
    mountWebAuthnRoutes(api, context.openapi, {
      webauthn: new WebAuthnService(store, repos, clock, this.mfa, () => this.relyingParty),
      repos,
    });
    if (config.environment === 'sandbox') mountSandboxKeyRoutes(api, context.openapi, this.access);
  }

  /** The origin is known: sign-in messages and passkeys name it (the public URL when one is configured). */
  start(context: RunningContext): void {
    const publicUrl = context.config.publicUrl ?? context.url;
    this.signInOrigin = { domain: new URL(publicUrl).host, uri: publicUrl };
    this.relyingParty = defaultRelyingParty(context.config.auth.webauthn, publicUrl, listeningPort(context.url));
  }
}

/** The port in the service's own URL (a URL leaves out its scheme's default port: 80 for http). */
function listeningPort(url: string): number {
  return Number(new URL(url).port) || 80;
}
