import { ApiKeyRepository } from './api-keys.js';
import { AuthChallengeRepository } from './auth-challenges.js';
import { IdempotencyRepository } from './idempotency.js';
import { MemberRepository } from './members.js';
import { MfaRepository } from './mfa.js';
import { SecretRepository } from './secrets.js';
import { SessionRepository } from './sessions.js';
import type { Store } from './store.js';
import { UserRepository } from './users.js';
import { WebAuthnRepository } from './webauthn.js';
import { WorkspaceRepository } from './workspaces.js';

export interface PlatformRepositories {
  workspaces: WorkspaceRepository;
  apiKeys: ApiKeyRepository;
  users: UserRepository;
  sessions: SessionRepository;
  challenges: AuthChallengeRepository;
  mfa: MfaRepository;
  idempotency: IdempotencyRepository;
  secrets: SecretRepository;
  webauthn: WebAuthnRepository;
  members: MemberRepository;
}

export function createRepositories(store: Store): PlatformRepositories {
  return {
    workspaces: new WorkspaceRepository(store),
    apiKeys: new ApiKeyRepository(store),
    users: new UserRepository(store),
    sessions: new SessionRepository(store),
    challenges: new AuthChallengeRepository(store),
    mfa: new MfaRepository(store),
    idempotency: new IdempotencyRepository(store),
    secrets: new SecretRepository(store),
    webauthn: new WebAuthnRepository(store),
    members: new MemberRepository(store),
  };
}
