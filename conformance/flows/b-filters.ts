import type { CheckContext } from '../core/context.js';
import { usableCorridors } from './taker.js';
import { isRefusal, WsSession } from '../wire/ws.js';

/**
 * Two taker WebSockets opened before Reference B's success flow to see its subscription filters at work: one
 * subscribed to `settlement.*` of the flow's corridor, one to every channel of another corridor. What each then
 * receives of the flow shows whether channels and corridors filter.
 */
export interface FilterSessions {
  corridor: string;
  otherCorridor: string;
  settlementsOnly: WsSession | undefined;
  otherCorridorOnly: WsSession | undefined;
  problem?: string;
}

async function subscribed(ctx: CheckContext, label: string, subscribe: Record<string, unknown>): Promise<WsSession | undefined> {
  const session = await WsSession.open(`${ctx.target.wsUrl}?token=${encodeURIComponent(ctx.key)}`, { label });
  if (isRefusal(session)) return undefined;
  session.autoPong();
  await session.nextOfType('auth.ok', 3_000);
  session.send(subscribe);
  await session.nextOfType('subscribe.ok', 3_000);
  ctx.state.persistentSockets += 1;
  ctx.state.keepOpen(() => session.close());
  return session;
}

export function bFilterSessions(ctx: CheckContext): Promise<FilterSessions> {
  return ctx.fixture('b-filter-sessions', async () => {
    const corridor = usableCorridors(ctx, 'Permit2Escrow')[0]?.id ?? ctx.target.corridors[0]?.id ?? '';
    // A corridor id of the canonical shape that no flow of the run uses (another listed one, else a made-up one).
    const otherCorridor = ctx.target.corridors.find((c) => c.id !== corridor)?.id ?? 'nowhere:NONE-elsewhere:NONE';
    const settlementsOnly = await subscribed(ctx, 'settlement.* of the flow corridor', {
      type: 'subscribe',
      channels: ['settlement.*'],
      corridors: [corridor],
    });
    const otherCorridorOnly = await subscribed(ctx, `every channel of ${otherCorridor}`, {
      type: 'subscribe',
      channels: ['rfq.*', 'quote.*', 'settlement.*', 'audit.recorded'],
      corridors: [otherCorridor],
    });
    return {
      corridor,
      otherCorridor,
      settlementsOnly,
      otherCorridorOnly,
      ...(settlementsOnly && otherCorridorOnly ? {} : { problem: 'a filtered subscription was refused' }),
    };
  });
}
