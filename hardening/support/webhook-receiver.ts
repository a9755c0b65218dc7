/**
 * A real webhook endpoint on loopback: verifies every delivery's signature and age (by the sandbox clock, which
 * runs ahead of the wall clock once advanced) with the project's verifier, answers 2xx to good ones and 401 to
 * bad ones, and keeps the event ids it accepted.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhook, WebhookVerificationError } from '../../src/clients/webhook-verifier.js';

export class WebhookReceiver {
  /** Event id → times delivered (at least once is the contract; more is allowed). */
  readonly received = new Map<string, number>();
  readonly rejected: Array<{ code: string; at: number }> = [];
  deliveries = 0;
  secret = '';
  /** Seconds the sandbox clock runs ahead of this machine's clock. */
  clockOffsetSeconds = 0;
  /**
   * Reads the sandbox clock again. A clock advance moves the service's time at once; a delivery signed just after
   * it may reach us before we heard of the advance, so an age check that fails is judged once more on fresh time.
   */
  resyncClock: (() => Promise<void>) | undefined;
  private server: Server | undefined;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', async () => {
        this.deliveries += 1;
        const verify = () =>
          verifyWebhook({
            secret: this.secret,
            rawBody: Buffer.concat(chunks),
            headers: req.headers,
            nowSeconds: Math.floor(Date.now() / 1_000) + this.clockOffsetSeconds,
          });
        try {
          let verified: ReturnType<typeof verify>;
          try {
            verified = verify();
          } catch (error) {
            const stale =
              error instanceof WebhookVerificationError && (error.code === 'timestamp_too_old' || error.code === 'timestamp_in_future');
            if (!stale || this.resyncClock === undefined) throw error;
            await this.resyncClock().catch(() => undefined);
            verified = verify();
          }
          const { event } = verified;
          this.received.set(event.id, (this.received.get(event.id) ?? 0) + 1);
          res.writeHead(204).end();
        } catch (error) {
          const code = error instanceof WebhookVerificationError ? error.code : 'receiver_error';
          this.rejected.push({ code, at: Date.now() });
          res.writeHead(error instanceof WebhookVerificationError ? error.status : 500).end();
        }
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}/hooks`;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (server === undefined) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
