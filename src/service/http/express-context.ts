import type { Express } from 'express';

/**
 * The express side of the module context. The kernel's ServiceContext (module.ts) is express-free; this adapter
 * adds the raw app for the adapters that need it (the dashboard page), so express stays inside the adapters.
 */
export interface ExpressContext {
  /** Raw express app, for what ApiRouter cannot express. Mount under the API base, before the 404. */
  app: Express;
}

declare module '../module.js' {
  interface ServiceContext extends ExpressContext {}
}
