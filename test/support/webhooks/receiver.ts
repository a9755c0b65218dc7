import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  headers: IncomingHttpHeaders;
  body: string;
  /** When it arrived, by the clock the test passes (the service's test clock). */
  at: number;
}

/** What the receiver answers to the n-th request (0-based); `hang` never answers. */
export type Answer = { status: number; headers?: Record<string, string> } | 'hang';

/**
 * A real HTTP receiver on a free loopback port that records what arrives. Tests script its answers to play a
 * failing, slow or recovering endpoint.
 */
export class TestReceiver {
  readonly requests: ReceivedRequest[] = [];
  private readonly server: Server;
  private readonly hanging = new Set<ServerResponse>();
  answer: (index: number, request: ReceivedRequest) => Answer = () => ({ status: 200 });

  private constructor(
    server: Server,
    readonly url: string,
  ) {
    this.server = server;
  }

  static async start(now: () => number): Promise<TestReceiver> {
    let receiver: TestReceiver | undefined;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const request: ReceivedRequest = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: now() };
        const index = receiver!.requests.length;
        receiver!.requests.push(request);
        const answer = receiver!.answer(index, request);
        if (answer === 'hang') {
          receiver!.hanging.add(res);
          return;
        }
        res.writeHead(answer.status, { 'Content-Type': 'text/plain', ...answer.headers });
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    receiver = new TestReceiver(server, `http://127.0.0.1:${port}/hooks`);
    return receiver;
  }

  events(): Array<{ type: string; id: string; [key: string]: unknown }> {
    return this.requests.map((r) => JSON.parse(r.body));
  }

  async stop(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
