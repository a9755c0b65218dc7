import { Ajv2020 } from 'ajv/dist/2020.js';
import { generate } from 'json-schema-faker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOwnSandbox, type OwnSandbox } from '../support/conformance/own-sandbox.js';

/**
 * An outside, schema-driven client: json-schema-faker generates requests from the served OpenAPI document alone
 * (path parameters, queries, bodies) and sends them with the sandbox's key. What the document calls valid must not
 * be refused as malformed (400), must not hit an undocumented business-rule status (422 not declared) and must never
 * be a 5xx. Left out by design (docs/service-platform.md, "Schema-driven fuzzing"): `after` and `before` cursors
 * (only cursors the service issued are accepted, and never both), and routes that move the clock, rotate keys or
 * end sessions (they would change what later requests see), and the `service.restart` fault switch, which stops the
 * service under the requests that follow (a client would retry; this one counts every answer).
 */
type Json = Record<string, any>;
const CASES_PER_OPERATION = 6;
const SKIPPED_PATHS = /sandbox\/clock|sandbox\/keys\/rotate|faucet|revoke|\/mfa\/|webauthn|auth\/verify/;
const BY_DESIGN_QUERY = new Set(['after', 'before']);

let own: OwnSandbox;
let doc: Json;
/** The generator does not honour every keyword (`not` inside `if`/`then`): what it makes is checked first. */
const ajv = new Ajv2020({ strict: false, validateFormats: false });
beforeAll(async () => {
  own = await startOwnSandbox();
  doc = (await (await fetch(`${own.url}/api/v1/openapi.json`)).json()) as Json;
}, 120_000);
afterAll(() => own?.stop());

describe('schema-driven positive fuzz of the served OpenAPI document', () => {
  it('sends generated valid requests to every operation: no 5xx, no 400, no undeclared 422', async () => {
    const problems: string[] = [];
    let sent = 0;
    let generatorMisses = 0;
    ajv.addSchema({ $id: 'doc', components: doc.components });
    const valid = (schema: Json, value: unknown) =>
      ajv.validate(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"doc#/components/')), value);
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
      if (SKIPPED_PATHS.test(path)) continue;
      for (const [method, operation] of Object.entries(item)) {
        for (let i = 0; i < CASES_PER_OPERATION; i++) {
          const seed = i * 7_919 + path.length * 31 + method.length;
          const pathValues: Record<string, string> = {};
          const query = new URLSearchParams();
          for (const parameter of (operation.parameters ?? []) as Json[]) {
            if (parameter.in === 'header' || BY_DESIGN_QUERY.has(parameter.name)) continue;
            if (parameter.in === 'query' && parameter.required !== true && i % 2 === 0) continue;
            const value = await generate({ ...parameter.schema, components: doc.components }, { seed: seed + parameter.name.length });
            if (parameter.in === 'path') pathValues[parameter.name] = String(value);
            else query.set(parameter.name, String(value));
          }
          let url = path.replace(/\{([^}]+)\}/g, (_m, name: string) => encodeURIComponent(pathValues[name] ?? 'x'));
          if ([...query.keys()].length > 0) url += `?${query}`;
          const schema = operation.requestBody?.content?.['application/json']?.schema;
          const body =
            schema === undefined
              ? undefined
              : await generate({ ...schema, components: doc.components }, { seed, optionalsProbability: i % 3 === 0 ? 0 : 0.7 });
          if (body !== undefined && !valid(schema, body)) {
            generatorMisses += 1;
            continue;
          }
          if (path.endsWith('/sandbox/faults') && (body as Json | undefined)?.kind === 'service.restart') continue;
          const response = await fetch(`${own.url}${url}`, {
            method: method.toUpperCase(),
            headers: { Authorization: `Bearer ${own.apiKey}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
            ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          });
          sent += 1;
          const text = await response.text();
          const undeclared422 = response.status === 422 && operation.responses['422'] === undefined;
          if (response.status >= 500 || response.status === 400 || undeclared422)
            problems.push(
              `${response.status} ${method.toUpperCase()} ${url} ${JSON.stringify(body)?.slice(0, 160)} → ${text.slice(0, 200)}`,
            );
        }
      }
    }
    console.info(
      `positive fuzz: ${sent} generated requests (${generatorMisses} generated bodies left out as invalid), ${problems.length} refused`,
    );
    expect(sent).toBeGreaterThan(300);
    expect(problems).toEqual([]);
  }, 300_000);

  it("POST /quotes' example in the document works as it stands: ranked quotes from the deployment's solvers", async () => {
    const example = doc.paths['/api/v1/quotes'].post.requestBody.content['application/json'].example;
    expect(example).toMatchObject({ inputToken: expect.any(String), inputAmount: expect.any(String) });
    const response = await fetch(`${own.url}/api/v1/quotes`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(example),
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { quotes: unknown[] }).quotes.length).toBeGreaterThan(0);
  });
});
