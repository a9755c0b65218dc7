import type { CheckContext } from '../core/context.js';
import { eventCapture } from '../flows/capture.js';
import { eventsAtHand } from './events-at-hand.js';
import { quoteRequestFor, usableCorridors } from '../flows/taker.js';
import { isRefusal, type WsSession, type WsRefusal } from '../wire/ws.js';
import { BOTH, check, ONLY_A, ONLY_B, PHASE } from './support/define.js';
import { dedupeById } from './values/agreement.js';

const KNOWN_EVENT_TYPES: Record<'A' | 'B', readonly string[]> = {
  A: ['order.created', 'order.settled', 'order.failed', 'compliance.event', 'credit.updated', 'member.added', 'member.removed'],
  B: [
    'rfq.created',
    'quote.received',
    'quote.accepted',
    'settlement.pending',
    'settlement.complete',
    'settlement.failed',
    'audit.recorded',
  ],
};
import { hasPrefix, isArray, isDecimalString, isFiniteNumber, isNonEmptyString, isObject, oneOf, fieldProblems } from './support/shape.js';

function withToken(url: string, token: string): string {
  return `${url}${url.includes('?') ? '&' : '?'}token=${encodeURIComponent(token)}`;
}

/** Opens and authenticates by query string; fails the check when the server refuses. */
async function openAuthed(ctx: CheckContext, key: string, label: string): Promise<WsSession> {
  const session = await ctx.ws(withToken(ctx.target.wsUrl, key), { label });
  if (isRefusal(session)) ctx.fail(`${label}: the WebSocket refused the connection (${session.error})`);
  const ok = await session.nextOfType('auth.ok', 5_000);
  if (!ok) ctx.fail(`${label}: no auth.ok`);
  return session;
}

async function healthEnvironment(ctx: CheckContext): Promise<unknown> {
  const health = await ctx.api('GET', '/health', { record: false });
  return isObject(health.json) ? health.json.environment : undefined;
}

/** The refusal of a connection: HTTP status on upgrade, an error message, or a close soon after. */
async function refused(session: WsSession | WsRefusal, timeoutMs = 3_000): Promise<{ refused: boolean; how: string; authOk: boolean }> {
  if (isRefusal(session)) return { refused: true, how: session.status ? `HTTP ${session.status}` : session.error, authOk: false };
  const authOk = (await session.nextOfType('auth.ok', 500)) !== undefined;
  const closed = await session.closesWithin(timeoutMs);
  const error = session.messages.find((m) => m.type === 'error');
  return {
    refused: closed || error !== undefined,
    how: closed
      ? `closed ${session.evidence.close?.code} ${session.evidence.close?.reason ?? ''}`
      : error
        ? `error ${JSON.stringify(error).slice(0, 120)}`
        : 'still open',
    authOk,
  };
}

export const wsChecks = [
  check({
    id: 'ws.auth-query-token',
    title: 'The taker WebSocket at /api/v1/ws authenticates ?token= with {type: auth.ok, environment}',
    requirements: ['X-WS-001', 'X-WS-008'],
    profiles: BOTH,
    tags: ['ws'],
    needs: ['apiKey'],
    phase: PHASE.routes,
    async run(ctx: CheckContext) {
      const session = await ctx.ws(withToken(ctx.target.wsUrl, ctx.key), { label: 'query token' });
      ctx.require('X-WS-008', !isRefusal(session), `ws ${ctx.target.wsUrl} refused: ${isRefusal(session) ? session.error : ''}`);
      const ok = await session.nextOfType('auth.ok', 5_000);
      ctx.require('X-WS-001', ok !== undefined, 'no {type: auth.ok} after connecting with ?token=');
      ctx.expect(
        'X-WS-001',
        ok.environment === (await healthEnvironment(ctx)),
        `auth.ok says environment ${JSON.stringify(ok.environment)}, health another`,
      );
    },
  }),

  check({
    id: 'ws.auth-message',
    title: 'The taker WebSocket authenticates {type: auth, token} with {type: auth.ok, environment}',
    requirements: ['X-WS-002'],
    profiles: BOTH,
    tags: ['ws'],
    needs: ['apiKey'],
    phase: PHASE.routes,
    async run(ctx: CheckContext) {
      const session = await ctx.ws(ctx.target.wsUrl, { label: 'auth message' });
      if (isRefusal(session))
        ctx.fail(`the WebSocket refused an unauthenticated connect: ${session.error} (the auth message is a spec method)`);
      session.send({ type: 'auth', token: ctx.key });
      const ok = await session.nextOfType('auth.ok', 5_000);
      ctx.require('X-WS-002', ok !== undefined, 'no {type: auth.ok} after {type: auth, token}');
      ctx.expect(
        'X-WS-002',
        ok.environment === (await healthEnvironment(ctx)),
        `auth.ok says environment ${JSON.stringify(ok.environment)}`,
      );
    },
  }),

  check({
    id: 'ws.auth-refused',
    title: 'A bad token is never answered auth.ok, by query string or by message',
    requirements: ['X-WS-003'],
    profiles: BOTH,
    tags: ['ws', 'negative'],
    phase: PHASE.routes,
    async run(ctx: CheckContext) {
      const bad = 'svc_test_conformance_00000000000000000000000000000000';
      const byQuery = await refused(await ctx.ws(withToken(ctx.target.wsUrl, bad), { label: 'bad query token' }));
      ctx.expect(
        'X-WS-003',
        !byQuery.authOk && byQuery.refused,
        `a bad ?token= was ${byQuery.authOk ? 'answered auth.ok' : `not refused (${byQuery.how})`}`,
      );
      const session = await ctx.ws(ctx.target.wsUrl, { label: 'bad auth message' });
      if (!isRefusal(session)) session.send({ type: 'auth', token: bad });
      const byMessage = await refused(session);
      ctx.expect(
        'X-WS-003',
        !byMessage.authOk && byMessage.refused,
        `a bad auth message was ${byMessage.authOk ? 'answered auth.ok' : `not refused (${byMessage.how})`}`,
      );
      const silent = await ctx.ws(ctx.target.wsUrl, { label: 'subscribe without auth' });
      if (!isRefusal(silent)) {
        silent.send({ type: 'subscribe', topics: ['orders:*'], channels: ['settlement.*'] });
        ctx.expect(
          'X-WS-003',
          (await silent.nextOfType('subscribe.ok', 1_000)) === undefined,
          'a connection that never authenticated was subscribed',
        );
      }
    },
  }),

  check({
    id: 'ws.subscribe-topics',
    title: '{type: subscribe, topics} is answered {type: subscribe.ok, topics}',
    requirements: ['A-WS-001'],
    profiles: ONLY_A,
    tags: ['ws'],
    needs: ['apiKey'],
    phase: PHASE.routes,
    async run(ctx: CheckContext) {
      const session = await openAuthed(ctx, ctx.key, 'subscribe');
      const topics = ['orders:*'];
      const corridor = ctx.target.corridors[0];
      if (corridor) topics.push(`prices:${corridor.id}`);
      session.send({ type: 'subscribe', topics });
      const ok = await session.nextOfType('subscribe.ok', 5_000);
      ctx.require('A-WS-001', ok !== undefined, 'no subscribe.ok');
      ctx.expect(
        'A-WS-001',
        isArray(ok.topics) && topics.every((t) => (ok.topics as unknown[]).includes(t)),
        `subscribe.ok lists topics ${JSON.stringify(ok.topics)}, sent ${JSON.stringify(topics)}`,
      );
    },
  }),

  check({
    id: 'ws.subscribe-channels',
    title: '{type: subscribe, channels, corridors} is answered {type: subscribe.ok, channels}',
    requirements: ['B-WS-001'],
    profiles: ONLY_B,
    tags: ['ws', 'reference-b'],
    needs: ['apiKey'],
    phase: PHASE.routes,
    async run(ctx: CheckContext) {
      const session = await openAuthed(ctx, ctx.key, 'subscribe channels');
      const channels = ['rfq.*', 'settlement.*', 'audit.recorded'];
      const corridor = ctx.target.corridors[0];
      session.send({ type: 'subscribe', channels, ...(corridor ? { corridors: [corridor.id] } : {}) });
      const ok = await session.nextOfType('subscribe.ok', 5_000);
      ctx.require('B-WS-001', ok !== undefined, 'no subscribe.ok');
      ctx.expect(
        'B-WS-001',
        isArray(ok.channels) && channels.every((c) => (ok.channels as unknown[]).includes(c)),
        `subscribe.ok lists channels ${JSON.stringify(ok.channels)}`,
      );
    },
  }),

  check({
    id: 'ws.ping-pong',
    title: 'The server pings every 30 s; a client that pongs stays, one that does not is dropped',
    requirements: ['X-WS-004', 'X-WS-005'],
    profiles: BOTH,
    tags: ['ws', 'timing'],
    needs: ['apiKey'],
    needsAnyOf: ['clock', 'long'],
    phase: PHASE.timing,
    timeoutMs: 150_000,
    async run(ctx: CheckContext) {
      const answering = await openAuthed(ctx, ctx.key, 'answers pings');
      answering.autoPong();
      const silent = await openAuthed(ctx, ctx.key, 'never answers');
      const useClock = ctx.target.capabilities.has('clock');
      const step = async () => {
        if (useClock) {
          await ctx.advanceClock(31);
          await ctx.sleep(150);
        } else await ctx.sleep(31_000);
      };
      await step();
      const firstPing = await answering.nextOfType('ping', useClock ? 2_000 : 5_000);
      ctx.require('X-WS-004', firstPing !== undefined, `no {type: ping} within 31 s${useClock ? ' of sandbox clock' : ''}`);
      await step();
      await step();
      const pings = answering.messages.filter((m) => m.type === 'ping').length;
      // Three 31 s steps each span a 30 s interval: a ping in every one (liveness is judged per interval).
      ctx.expect('X-WS-004', pings >= 3, `${pings} ping(s) in 93 s; one is owed every 30 s`);
      ctx.expect('X-WS-004', !answering.isClosed, `the client answering pings was disconnected (${answering.evidence.close?.code})`);
      ctx.expect('X-WS-005', await silent.closesWithin(2_000), 'a client that never answered a ping is still connected after 93 s');
      ctx.note(
        `answering client saw ${pings} pings; silent client ${silent.isClosed ? `closed ${silent.evidence.close?.code} ${silent.evidence.close?.reason}` : 'still open'}`,
      );
    },
  }),

  check({
    id: 'ws.connection-limit',
    title: 'At most 5 WebSocket connections per API key: the 6th is refused',
    requirements: ['X-WS-006'],
    profiles: BOTH,
    tags: ['ws', 'limits'],
    needs: ['apiKey'],
    phase: PHASE.routes,
    async run(ctx: CheckContext) {
      let key = ctx.key;
      let alreadyOpen = ctx.state.persistentSockets;
      if (ctx.target.capabilities.has('keys')) {
        const created = await ctx.api('POST', '/sandbox/keys', { auth: ctx.key, label: 'a key of its own for the limit' });
        if (created.status === 201 && isObject(created.json) && typeof created.json.key === 'string') {
          key = created.json.key;
          alreadyOpen = 0;
        }
      }
      const allowed = 5 - alreadyOpen;
      for (let i = 0; i < allowed; i += 1) await openAuthed(ctx, key, `connection ${i + 1 + alreadyOpen} of 5`);
      const sixth = await refused(await ctx.ws(withToken(ctx.target.wsUrl, key), { label: 'connection 6' }));
      ctx.expect(
        'X-WS-006',
        sixth.refused && !sixth.authOk,
        `the 6th connection was ${sixth.authOk ? 'answered auth.ok' : `not refused (${sixth.how})`}`,
      );
      ctx.note(`6th connection: ${sixth.how}`);
    },
  }),

  check({
    id: 'ws.replay-by-cursor',
    title: 'Subscribing with a cursor (last seen event id) replays the events after it',
    requirements: ['X-WS-007'],
    profiles: BOTH,
    tags: ['ws', 'flow'],
    needs: ['apiKey', 'fundedAccounts', 'solvers'],
    phase: PHASE.afterFlows,
    async run(ctx: CheckContext) {
      const capture = await eventCapture(ctx);
      // Only events of the types the spec names are owed a replay: an unknown type is the deployment's own, and
      // a copy of one id (best effort may repeat) counts once.
      const known = () => dedupeById(capture.events()).unique.filter((e) => KNOWN_EVENT_TYPES[ctx.profile].includes(String(e.type)));
      // Selected without the flows (`--only`): the success flows run now for the events to replay.
      if (known().length < 2) await eventsAtHand(ctx, 2);
      const events = known();
      if (events.length < 2) ctx.skip(`the run captured ${events.length} event(s) of the spec's types; a replay needs 2`);
      const cursor = String(events[0]!.id);
      const later = events.slice(1).map((e) => String(e.id));
      const session = await openAuthed(ctx, ctx.key, 'replay');
      session.send(
        ctx.profile === 'A'
          ? { type: 'subscribe', topics: ['orders:*'], cursor }
          : { type: 'subscribe', channels: ['rfq.*', 'quote.*', 'settlement.*', 'audit.recorded'], cursor },
      );
      await session.nextOfType('subscribe.ok', 5_000);
      await session.next((m) => m.id === later.at(-1) || m.type === 'replay.done', 3_000);
      const replayed = [...new Set(session.messages.filter((m) => hasPrefix(m.id, 'evt_')).map((m) => String(m.id)))];
      // The spec does not show how a replay is asked for; `cursor` on subscribe, acknowledged by `replay.done`, is
      // this project's form. A target that neither acknowledges it nor replays anything does not offer that form.
      if (replayed.length === 0 && session.messages.every((m) => m.type !== 'replay.done'))
        ctx.skip('the target neither acknowledged a subscribe cursor (no replay.done) nor replayed anything: it offers no cursor replay');
      const missing = later.slice(-100).filter((id) => !replayed.includes(id));
      ctx.expect(
        'X-WS-007',
        missing.length === 0,
        `${missing.length} of ${Math.min(100, later.length)} events after the cursor were not replayed`,
      );
      ctx.expect('X-WS-007', !replayed.includes(cursor), 'the cursor event itself was replayed');
      // The replay keeps the order in which the events first came: by this run's capture, and by the timestamps of
      // everything replayed (the replay may reach back before this run).
      const stamps = session.messages
        .filter(
          (m) => hasPrefix(m.id, 'evt_') && typeof m.timestamp === 'string' && KNOWN_EVENT_TYPES[ctx.profile].includes(String(m.type)),
        )
        .map((m) => ({ id: String(m.id), at: Date.parse(String(m.timestamp)) }));
      const backwards = stamps.findIndex((s, i) => i > 0 && s.at < stamps[i - 1]!.at - 1_000);
      ctx.expect(
        'X-WS-007',
        backwards < 0,
        `the replay goes back in time at ${stamps[backwards]?.id}: ${new Date(stamps[backwards]?.at ?? 0).toISOString()} after ${new Date(stamps[backwards - 1]?.at ?? 0).toISOString()}`,
      );
      const firstOrder = later.filter((id) => replayed.includes(id));
      const replayOrder = replayed.filter((id) => later.includes(id));
      ctx.expect(
        'X-WS-007',
        firstOrder.join() === replayOrder.join(),
        `the replay reordered the events: ${replayOrder.slice(0, 6).join(', ')}… instead of ${firstOrder.slice(0, 6).join(', ')}…`,
      );
    },
  }),

  check({
    id: 'ws.price-feed',
    title: 'prices: topics deliver price messages (decimal price, tier, ms timestamp, source, ttlMs)',
    requirements: ['A-WS-003'],
    profiles: ONLY_A,
    tags: ['ws', 'prices'],
    needs: ['apiKey', 'solvers'],
    phase: PHASE.routes,
    async run(ctx: CheckContext) {
      const corridor = usableCorridors(ctx)[0] ?? ctx.target.corridors.find((c) => c.solverCount > 0);
      if (!corridor) ctx.skip('no corridor with live solvers');
      const session = await openAuthed(ctx, ctx.key, 'prices');
      session.send({ type: 'subscribe', topics: [`prices:${corridor.id}`] });
      await session.nextOfType('subscribe.ok', 5_000);
      await ctx.api('POST', '/quotes', { body: quoteRequestFor(corridor), label: 'a quote to move prices' });
      const price = await session.next((m) => m.type === 'price' || 'price' in m, 5_000);
      ctx.require('A-WS-003', price !== undefined, `no price message on prices:${corridor.id} after a quote`);
      const body = isObject(price.data) ? price.data : price;
      const problems = fieldProblems(
        body,
        [
          ['price', isDecimalString, 'a decimal string'],
          ['tier', oneOf('retail', 'standard', 'institutional'), 'retail, standard or institutional'],
          ['timestamp', (v) => isFiniteNumber(v) && v > 1e12, 'Unix milliseconds'],
          ['source', isNonEmptyString, 'a solver or aggregator id'],
          ['ttlMs', isFiniteNumber, 'a number'],
        ],
        'price',
      );
      ctx.expect('A-WS-003', problems.length === 0, problems.join('; '));
    },
  }),
];
