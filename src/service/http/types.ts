import type { Logger } from 'pino';
import type { AuthContext, AuthFailure } from '../api/auth-context.js';

/** What the platform middlewares add to every express request. */
declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** `req_…`, also in the `X-Request-Id` response header and every log line of the request. */
      requestId: string;
      log: Logger;
      /** The credential of the request, once `authenticate` resolved a valid one. */
      auth?: AuthContext;
      /** Why the presented credential was rejected; `requireAuth`/`optionalAuth` turn it into a 401. */
      authFailure?: AuthFailure;
      /** The exact bytes of a JSON body, as received (idempotency fingerprints, signatures). */
      rawBody?: Buffer;
    }
  }
}
