import { createServer } from 'node:net';
import { PortInUseError } from './errors.js';

/**
 * Fails with a message naming the port and the flag that changes it. Checked before any chain starts, so a
 * busy port never leaves half a sandbox running; anvil's own bind error is mapped the same way for the race
 * that remains. Port 0 (pick any) needs no check.
 */
export async function assertPortFree(port: number, what: string, flag: string): Promise<void> {
  if (port === 0) return;
  const free = await new Promise<boolean>((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => server.close(() => resolve(true)));
  });
  if (!free) throw new PortInUseError(port, what, flag);
}
