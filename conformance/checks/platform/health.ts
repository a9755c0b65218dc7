import type { CheckContext } from '../../core/context.js';
import { rpcCall } from '../../wire/rpc.js';
import { BOTH, check, ONLY_A, PHASE } from '../support/define.js';
import { fieldProblems, isBoolean, isFiniteNumber, isNonEmptyString, isObject, oneOf } from '../support/shape.js';

/** Chain ids of public mainnets a sandbox must never settle on (a devnet signature must not be valid there). */
const MAINNET_CHAIN_IDS = new Set([
  1, 10, 56, 100, 137, 250, 324, 1101, 5000, 8453, 34443, 42161, 42220, 43114, 59144, 81457, 534352, 7777777,
]);

async function health(ctx: CheckContext) {
  return ctx.api('GET', '/health', { label: 'health without credentials' });
}

export const healthChecks = [
  check({
    id: 'target.discovery',
    title: 'The target answers and its sandbox controls are detected',
    requirements: [],
    profiles: BOTH,
    tags: ['platform', 'discovery'],
    phase: PHASE.discovery,
    async run(ctx: CheckContext) {
      ctx.evidence.push(...ctx.target.discovery);
      const on = [...ctx.target.capabilities].sort();
      const off = Object.entries(ctx.target.missing)
        .filter(([name]) => !ctx.target.capabilities.has(name as never))
        .map(([name, why]) => `${name}: ${why}`);
      ctx.note(`environment ${ctx.target.environment}; capabilities: ${on.join(', ') || 'none'}`, { missing: off });
    },
  }),

  check({
    id: 'health.shape',
    title: 'GET /api/v1/health is public and reports ok, environment, version and uptime',
    requirements: ['A-HLT-001', 'A-AUTH-001'],
    profiles: ONLY_A,
    tags: ['platform', 'health'],
    phase: PHASE.platform,
    async run(ctx: CheckContext) {
      const response = await health(ctx);
      ctx.expect('A-AUTH-001', response.status !== 401 && response.status !== 403, `health without a key answered ${response.status}`);
      ctx.require('A-HLT-001', response.status === 200, `health answered ${response.status}, expected 200 from a running deployment`);
      const problems = fieldProblems(
        response.json,
        [
          ['ok', isBoolean, 'a boolean'],
          ['environment', oneOf('sandbox', 'production'), '`sandbox` or `production`'],
          ['version', isNonEmptyString, 'a string'],
          ['uptimeSeconds', isFiniteNumber, 'a number'],
        ],
        'health',
      );
      ctx.expect('A-HLT-001', problems.length === 0, problems.join('; '));
      ctx.note(`health: ${JSON.stringify(response.json).slice(0, 200)}`);
    },
  }),

  check({
    id: 'health.status-matches-ok',
    title: 'Health answers 200 exactly when ok is true (503 when unavailable, same shape)',
    requirements: ['A-HLT-002'],
    profiles: ONLY_A,
    tags: ['platform', 'health'],
    phase: PHASE.platform,
    async run(ctx: CheckContext) {
      const response = await health(ctx);
      ctx.require(
        'A-HLT-002',
        response.status === 200 || response.status === 503,
        `health answered ${response.status}, neither 200 nor 503`,
      );
      const ok = isObject(response.json) ? response.json.ok : undefined;
      ctx.expect(
        'A-HLT-002',
        (response.status === 200) === (ok === true),
        `health answered ${response.status} with ok=${JSON.stringify(ok)}`,
      );
    },
  }),

  check({
    id: 'versioning.path-and-label',
    title: 'The version is in the path (/api/v1) and health reports the version label',
    requirements: ['X-VER-001'],
    profiles: BOTH,
    tags: ['platform', 'versioning'],
    phase: PHASE.platform,
    async run(ctx: CheckContext) {
      const response = await health(ctx);
      ctx.require('X-VER-001', response.status === 200 || response.status === 503, `GET /api/v1/health answered ${response.status}`);
      const version = isObject(response.json) ? response.json.version : undefined;
      ctx.expect('X-VER-001', isNonEmptyString(version), `health.version is ${JSON.stringify(version)}, not a label`);
      ctx.expect(
        'X-VER-001',
        typeof version === 'string' && /^v?1(\b|\.)/.test(version),
        `health.version ${JSON.stringify(version)} does not name v1, the version in the path`,
      );
    },
  }),

  check({
    id: 'auth.environment-matches-key',
    title: 'The key prefix matches the environment health reports (svc_test_ sandbox, svc_live_ production)',
    requirements: ['X-AUTH-006'],
    profiles: BOTH,
    tags: ['platform', 'auth'],
    needs: ['apiKey'],
    phase: PHASE.platform,
    async run(ctx: CheckContext) {
      const key = ctx.key;
      const response = await health(ctx);
      const environment = isObject(response.json) ? response.json.environment : undefined;
      const expected = environment === 'sandbox' ? 'svc_test_' : environment === 'production' ? 'svc_live_' : undefined;
      if (expected === undefined) ctx.fail(`health.environment is ${JSON.stringify(environment)}`);
      ctx.expect(
        'X-AUTH-006',
        key.startsWith(expected),
        `the ${String(environment)} deployment issued a key starting ${key.slice(0, 9)}, expected ${expected}`,
      );
      const accepted = await ctx.api('GET', '/corridors', { auth: key, label: 'the key is accepted' });
      ctx.expect('X-AUTH-006', accepted.status !== 401, `the deployment refuses its own key (${accepted.status})`);
    },
  }),

  check({
    id: 'auth.key-format',
    title: 'API keys look like svc_{env}_{key_id}_{random_hex}',
    requirements: ['X-AUTH-002'],
    profiles: BOTH,
    tags: ['platform', 'auth'],
    needs: ['apiKey'],
    phase: PHASE.platform,
    async run(ctx: CheckContext) {
      const key = ctx.key;
      ctx.expect(
        'X-AUTH-002',
        /^svc_(test|live)_[A-Za-z0-9]+_[0-9a-fA-F]+$/.test(key),
        `the key ${key.slice(0, 12)}… does not have the form svc_{env}_{key_id}_{random_hex}`,
      );
    },
  }),

  check({
    id: 'environment.testnet-chains',
    title: 'A sandbox settles on test chains, never on a mainnet chain id',
    requirements: ['X-AUTH-007'],
    profiles: BOTH,
    tags: ['platform', 'chains'],
    needs: ['chains'],
    phase: PHASE.platform,
    async run(ctx: CheckContext) {
      if (ctx.target.environment !== 'sandbox') ctx.skip('only a sandbox deployment is held to test chains');
      for (const chain of ctx.target.sandbox?.chains ?? []) {
        const { result, error, evidence } = await rpcCall<string>(chain.rpcUrl, 'eth_chainId', [], chain.chainId);
        ctx.evidence.push(evidence);
        ctx.require('X-AUTH-007', error === undefined, `chain ${chain.name} does not answer eth_chainId: ${error}`);
        const id = Number(result);
        ctx.expect('X-AUTH-007', id === chain.chainId, `chain ${chain.name} answers chain id ${id}, sandbox.json says ${chain.chainId}`);
        ctx.expect('X-AUTH-007', !MAINNET_CHAIN_IDS.has(id), `chain ${chain.name} has the mainnet chain id ${id}`);
      }
    },
  }),
];
