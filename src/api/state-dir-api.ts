import { SandboxAdminClient } from '../clients/sandbox-admin-client.js';
import { readServiceManifest } from '../devnet/manifest-file.js';

/**
 * Calls the API of the sandbox of a state folder with the keys its sandbox.json lists. The manifest is read on
 * every call: `sandbox keys rotate` changes the keys between two calls of one command (or of one demo).
 */
export function stateDirApi<T>(stateDir: string, method: string, path: string, body?: unknown): Promise<{ data: T; usedKey: string }> {
  const { api } = readServiceManifest(stateDir);
  return new SandboxAdminClient({ url: api.url, apiKeys: api.apiKeys }).request<T>(method, path, body);
}
