import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The service's own files inside the sandbox state folder. */
export function serviceLayout(stateDir: string) {
  const root = join(stateDir, 'service');
  return {
    root,
    store: join(root, 'service.sqlite'),
    log: join(root, 'service.log'),
    /** Workspace id and API keys handed out by `sandbox up`, reused on the next start (mode 0600). */
    access: join(root, 'access.json'),
  };
}

export interface SavedAccess {
  workspaceId: string;
  apiKeys: string[];
}

export function readSavedAccess(path: string): SavedAccess | undefined {
  if (!existsSync(path)) return undefined;
  try {
    const saved = JSON.parse(readFileSync(path, 'utf8')) as SavedAccess;
    return typeof saved.workspaceId === 'string' && Array.isArray(saved.apiKeys) ? saved : undefined;
  } catch {
    return undefined;
  }
}
