import type { CheckContext } from '../../core/context.js';
import { check, ONLY_A, PHASE } from '../support/define.js';
import {
  CORRIDOR_ID,
  fieldProblems,
  isArray,
  isFiniteNumber,
  isIntegerString,
  isNonEmptyString,
  isObject,
  LOCK_TYPES,
} from '../support/shape.js';

const tokenProblems = (token: unknown, where: string) =>
  fieldProblems(
    token,
    [
      ['address', isNonEmptyString, 'an address'],
      ['symbol', isNonEmptyString, 'a symbol'],
      ['decimals', (v) => typeof v === 'number' && Number.isInteger(v) && v >= 0, 'a number'],
    ],
    where,
  );

export const corridorChecks = [
  check({
    id: 'corridors.list',
    title: 'GET /api/v1/corridors is public and lists complete corridor records with canonical ids',
    requirements: ['A-COR-001', 'A-COR-002', 'A-COR-003', 'A-COR-004', 'A-AUTH-001'],
    profiles: ONLY_A,
    tags: ['platform', 'corridors'],
    phase: PHASE.platform,
    async run(ctx: CheckContext) {
      const response = await ctx.api('GET', '/corridors', { label: 'corridors without credentials' });
      ctx.require('A-COR-001', response.status === 200, `GET /corridors answered ${response.status}`);
      const listed = isObject(response.json) ? response.json.corridors : undefined;
      if (!isArray(listed)) ctx.fail('the body has no `corridors` array');
      const corridors: unknown[] = listed;
      if (corridors.length === 0) ctx.warn('the deployment lists no corridors: nothing can be quoted');
      for (const [i, corridor] of corridors.entries()) {
        const where = `corridors[${i}]`;
        const problems = fieldProblems(
          corridor,
          [
            ['id', isNonEmptyString, 'a string'],
            ['originChainId', isFiniteNumber, 'a number'],
            ['destinationChainId', isFiniteNumber, 'a number'],
            ['inputToken', isObject, 'an object'],
            ['outputToken', isObject, 'an object'],
            ['solverCount', isFiniteNumber, 'a number'],
            ['minNotional', isIntegerString, 'an integer string'],
            ['maxNotional', isIntegerString, 'an integer string'],
            ['oracle', isNonEmptyString, 'a string'],
            ['lockTypes', (v) => isArray(v) && v.every((t) => (LOCK_TYPES as readonly unknown[]).includes(t)), 'an array of lock types'],
          ],
          where,
        );
        if (isObject(corridor)) {
          problems.push(
            ...tokenProblems(corridor.inputToken, `${where}.inputToken`),
            ...tokenProblems(corridor.outputToken, `${where}.outputToken`),
          );
        }
        ctx.expect('A-COR-002', problems.length === 0, problems.join('; '));
        if (!isObject(corridor)) continue;
        ctx.expect(
          'A-COR-003',
          typeof corridor.id === 'string' && CORRIDOR_ID.test(corridor.id),
          `${where}.id ${JSON.stringify(corridor.id)} is not <origin-chain>:<token>-<destination-chain>:<token>`,
        );
        if (typeof corridor.id === 'string' && isObject(corridor.inputToken) && isObject(corridor.outputToken)) {
          const [origin, destination] = corridor.id.split(/-(?=[^-]*:[^:]*$)/);
          ctx.expect(
            'A-COR-003',
            origin?.endsWith(`:${String(corridor.inputToken.symbol)}`) && destination?.endsWith(`:${String(corridor.outputToken.symbol)}`),
            `${where}.id ${corridor.id} does not name its tokens ${String(corridor.inputToken.symbol)} and ${String(corridor.outputToken.symbol)}`,
          );
        }
        if (isIntegerString(corridor.minNotional) && isIntegerString(corridor.maxNotional)) {
          ctx.expect(
            'A-COR-004',
            BigInt(corridor.minNotional) <= BigInt(corridor.maxNotional),
            `${where}: minNotional ${corridor.minNotional} exceeds maxNotional ${corridor.maxNotional}`,
          );
        }
      }
      ctx.note(`${corridors.length} corridor(s)`);
    },
  }),
];
