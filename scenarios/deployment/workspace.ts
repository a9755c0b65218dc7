import type { Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { RestClient } from '../../src/clients/rest-client.js';
import type { Workspace } from './target.js';

/**
 * A workspace of its own over the wire: Sign-In with Ethereum from a new wallet creates the user and its workspace;
 * in the sandbox the session then creates an API key (keys outlive the 8 h session, which a 31 h clock advance
 * would end). In production the session token is the credential.
 */
export async function signInWorkspace(
  baseUrl: string,
  chainId: number,
  environment: 'sandbox' | 'production',
  key: Hex = generatePrivateKey(),
): Promise<Workspace> {
  const account = privateKeyToAccount(key);
  const rest = new RestClient({ baseUrl });
  const challenge = await rest.request<{ message: string }>('POST', '/api/v1/auth/challenge', { address: account.address, chainId });
  const signature = await account.signMessage({ message: challenge.message });
  const session = await rest.request<{ token: string; user: { workspaceId: string } }>('POST', '/api/v1/auth/verify', {
    message: challenge.message,
    signature,
  });
  if (environment === 'production') return { workspaceId: session.user.workspaceId, apiKey: session.token };
  const issued = await rest.request<{ key: string; workspaceId: string }>('POST', '/api/v1/sandbox/keys', undefined, {
    apiKey: session.token,
  });
  return { workspaceId: issued.workspaceId, apiKey: issued.key };
}
