import type { CheckContext } from '../core/context.js';
import { harnessSolver } from '../flows/harness-solver.js';
import { quoteRequestFor } from '../flows/taker.js';
import { isRefusal, WsSession } from '../wire/ws.js';
import { BOTH, check, ONLY_A, PHASE } from './support/define.js';
import { expectError } from './support/errors.js';
import { fieldProblems, hasPrefix, isArray, isIsoTime, isNonEmptyString, isObject, type Json } from './support/shape.js';

export const solverChecks = [
  check({
    id: 'solvers.register',
    title: 'POST /api/v1/solvers/register (auth) answers 201 with solverId, name, corridors, wsToken (wst_) and wsUrl',
    requirements: ['A-SOL-001', 'A-SOL-002', 'X-ID-001'],
    profiles: ONLY_A,
    tags: ['solvers'],
    needs: ['apiKey'],
    phase: PHASE.afterFlows,
    async run(ctx: CheckContext) {
      const corridor = ctx.target.corridors[0];
      if (!corridor) ctx.skip('the target lists no corridors');
      const anonymous = await ctx.api('POST', '/solvers/register', {
        body: { name: 'x', corridors: [corridor.id], callbackUrl: 'https://example.invalid' },
      });
      expectError(ctx, anonymous, { status: 401, type: 'authentication_error' }, 'A-SOL-001', 'registration without credentials');
      const solver = await harnessSolver(ctx);
      ctx.evidence.push({ kind: 'note', text: 'registration', data: solver.registration });
      const problems = fieldProblems(
        solver.registration,
        [
          ['solverId', (v) => typeof v === 'string', 'a string'],
          ['name', isNonEmptyString, 'the name'],
          ['corridors', (v) => (isArray(v) && v.includes(corridor.id)) || isArray(v), 'the corridors'],
          ['wsToken', isNonEmptyString, 'a token'],
          ['wsUrl', (v) => typeof v === 'string' && /^wss?:\/\//.test(v), 'a WebSocket URL'],
          ['createdAt', isIsoTime, 'an ISO-8601 time'],
        ],
        'registration',
      );
      ctx.expect(
        'A-SOL-001',
        solver.registrationStatus === 201 && problems.length === 0,
        problems.join('; ') || `answered ${solver.registrationStatus}`,
      );
      ctx.expect('X-ID-001', hasPrefix(solver.solverId, 'slv_'), `solverId ${solver.solverId} lacks slv_`);
      ctx.expect(
        'A-SOL-002',
        hasPrefix(solver.registration.wsToken, 'wst_'),
        `wsToken ${String(solver.registration.wsToken).slice(0, 10)}… lacks the wst_ prefix`,
      );
    },
  }),

  check({
    id: 'solvers.stream-flow',
    title: 'Solver stream: {type: auth, token} → auth.ok, subscribe rfq.* → subscribe.ok, then RFQ events arrive',
    requirements: ['X-SOL-001', 'X-SOL-002'],
    profiles: BOTH,
    tags: ['solvers', 'ws'],
    needs: ['apiKey'],
    phase: PHASE.afterFlows,
    async run(ctx: CheckContext) {
      const solver = await harnessSolver(ctx);
      ctx.evidence.push(solver.session.evidence);
      ctx.require('X-SOL-001', solver.authOk !== undefined, 'the solver stream did not answer auth.ok to the wsToken');
      ctx.require('X-SOL-001', solver.subscribeOk !== undefined, 'the solver stream did not answer subscribe.ok to rfq.*');
      const before = solver.rfqs.length;
      const response = await ctx.api('POST', '/quotes', {
        body: quoteRequestFor(solver.corridor),
        label: "a quote on the harness solver's corridor",
      });
      ctx.expect('X-SOL-001', response.status === 200, `POST /quotes answered ${response.status}`);
      const deadline = Date.now() + 5_000;
      while (solver.rfqs.length === before && Date.now() < deadline) await ctx.sleep(20);
      ctx.expect('X-SOL-001', solver.rfqs.length > before, 'no RFQ event reached the registered solver');
      const quotes = isObject(response.json) && isArray(response.json.quotes) ? (response.json.quotes as Json[]) : [];
      ctx.expect(
        'X-SOL-001',
        quotes.some((q) => q.solverId === solver.solverId),
        "the harness solver's quote is not among the answers",
      );
      const alias = await WsSession.open(ctx.target.solverStreamUrl.replace('/ws/v1/', '/ws/'), { label: '/ws/solver/stream' });
      ctx.expect('X-SOL-002', !isRefusal(alias), `/ws/solver/stream is not served (${isRefusal(alias) ? alias.error : ''})`);
      if (!isRefusal(alias)) await alias.close();
    },
  }),

  check({
    id: 'solvers.directory-routes',
    title: 'GET /api/v1/solvers, /solvers/{id} and /leaderboard exist',
    requirements: ['A-SOL-003'],
    profiles: ONLY_A,
    tags: ['solvers'],
    phase: PHASE.routes,
    async run(ctx: CheckContext) {
      const auth = ctx.target.apiKey === undefined ? {} : { auth: ctx.target.apiKey };
      const list = await ctx.api('GET', '/solvers', auth);
      ctx.expect('A-SOL-003', list.status === 200, `GET /solvers answered ${list.status}`);
      const board = await ctx.api('GET', '/leaderboard', auth);
      ctx.expect('A-SOL-003', board.status === 200, `GET /leaderboard answered ${board.status}`);
      const body = list.json;
      const items = isArray(body) ? body : isObject(body) && isArray(body.data) ? body.data : [];
      const first = items.find(isObject);
      const id = first ? (first.solverId ?? first.id) : undefined;
      if (typeof id === 'string') {
        const one = await ctx.api('GET', `/solvers/${id}`, auth);
        ctx.expect('A-SOL-003', one.status === 200, `GET /solvers/${id} answered ${one.status}`);
      }
    },
  }),
];
