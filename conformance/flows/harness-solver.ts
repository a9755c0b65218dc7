import type { CheckContext } from '../core/context.js';
import type { CorridorRecord } from '../deployment/discover.js';
import { usableCorridors } from './taker.js';
import { isRefusal, WsSession, type WsMessage } from '../wire/ws.js';
import { hasPrefix, isObject, type Json } from '../checks/support/shape.js';

/**
 * The harness's own solver on the deployment's solver stream: registered through the spec's route, it
 * authenticates with its wsToken, subscribes to `rfq.*` and answers every RFQ with a deliberately poor quote
 * (so that it never outranks the deployment's solvers) — and it never fills. A taker who picks its quote on
 * purpose gets an order nobody fills: the refund path, on any deployment.
 *
 * The RFQ broadcast and the quote message are not shown in the spec; this follows the deployment's documented
 * dialogue (`rfq.created` with an `rfq` object; `{type: quote, rfqId, outputAmount}` answered `quote.ack`).
 */
export interface HarnessSolver {
  solverId: string;
  registration: Json;
  registrationStatus: number;
  session: WsSession;
  authOk: WsMessage | undefined;
  subscribeOk: WsMessage | undefined;
  corridor: CorridorRecord;
  rfqs: WsMessage[];
  answers: WsMessage[];
  /** Quote (true) or decline (false) from now on. */
  quoting: boolean;
}

/**
 * Output the harness solver offers: the least the RFQ accepts (`minOutputAmount`, when the deployment states
 * one), else half the input scaled to the output token's decimals.
 */
function poorOutput(rfq: Json, corridor: CorridorRecord): string | undefined {
  if (typeof rfq.minOutputAmount === 'string' && /^\d+$/.test(rfq.minOutputAmount)) return rfq.minOutputAmount;
  const input = typeof rfq.inputAmount === 'string' ? BigInt(rfq.inputAmount) : undefined;
  if (input === undefined) return undefined;
  const scale = BigInt(corridor.outputToken.decimals) - BigInt(corridor.inputToken.decimals);
  const scaled = scale >= 0n ? input * 10n ** scale : input / 10n ** -scale;
  return (scaled / 2n).toString();
}

export function harnessSolver(ctx: CheckContext): Promise<HarnessSolver> {
  const key = ctx.key;
  return ctx.fixture('harness-solver', async () => {
    const corridor = usableCorridors(ctx)[0] ?? ctx.target.corridors[0];
    if (!corridor) ctx.skip('the target lists no corridors');
    const registration = await ctx.api('POST', '/solvers/register', {
      auth: key,
      body: { name: `conformance-harness-${ctx.seed}`, corridors: [corridor.id], callbackUrl: 'https://conformance.invalid/solver' },
      label: 'register the harness solver',
    });
    const body = isObject(registration.json) ? registration.json : {};
    if (registration.status !== 201 || !hasPrefix(body.solverId, 'slv_') || typeof body.wsToken !== 'string') {
      ctx.fail(`POST /solvers/register answered ${registration.status}: ${registration.text.slice(0, 200)}`);
    }
    const url = typeof body.wsUrl === 'string' && /^wss?:\/\//.test(body.wsUrl) ? body.wsUrl : ctx.target.solverStreamUrl;
    const opened = await WsSession.open(url, { label: 'harness solver stream' });
    if (isRefusal(opened)) ctx.fail(`the solver stream at ${url} refused the connection: ${opened.error}`);
    const session = opened;
    ctx.state.keepOpen(() => session.close());
    session.autoPong();
    session.send({ type: 'auth', token: body.wsToken });
    const authOk = await session.nextOfType('auth.ok', 5_000);
    session.send({ type: 'subscribe', channels: ['rfq.*'] });
    const subscribeOk = await session.nextOfType('subscribe.ok', 5_000);
    const solver: HarnessSolver = {
      solverId: body.solverId,
      registration: body,
      registrationStatus: registration.status,
      session,
      authOk,
      subscribeOk,
      corridor,
      rfqs: [],
      answers: [],
      quoting: true,
    };
    let seen = 0;
    const pump = setInterval(() => {
      for (const message of session.messages.slice(seen)) {
        seen += 1;
        if (message.type === 'quote.ack' || message.type === 'quote.rejected' || message.type === 'decline.ack')
          solver.answers.push(message);
        if (typeof message.type !== 'string' || !message.type.startsWith('rfq')) continue;
        solver.rfqs.push(message);
        const rfq = isObject(message.rfq) ? message.rfq : message;
        const rfqId = rfq.id ?? rfq.rfqId;
        const output = poorOutput(rfq, corridor);
        if (!solver.quoting || output === undefined) session.send({ type: 'decline', rfqId });
        else
          session.send({
            type: 'quote',
            rfqId,
            outputAmount: output,
            ...(typeof rfq.lockType === 'string' ? { lockType: rfq.lockType } : {}),
            ...(typeof rfq.settlementPath === 'string' ? { settlementPath: rfq.settlementPath } : {}),
          });
      }
    }, 5);
    ctx.state.onFinish(async () => clearInterval(pump));
    return solver;
  });
}
