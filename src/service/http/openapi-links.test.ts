import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../../test/support/service/service.js';

/**
 * The document's links (OpenAPI `links`) lead a client from what an operation creates to the operations that take
 * its id: every link names a real operation and exactly that operation's path parameters, its body pointers exist
 * in the response schema, and following the links from real responses reaches 2xx answers.
 */
type Json = Record<string, any>;
let t: TestService;
let doc: Json;

beforeAll(async () => {
  t = await startTestService();
  doc = (await t.request('GET', '/api/v1/openapi.json', { key: null })).body;
});
afterAll(() => t.stop());

function operations(): Array<{ path: string; method: string; op: Json }> {
  return Object.entries(doc.paths as Record<string, Record<string, Json>>).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ path, method, op })),
  );
}

function resolve(schema: Json | undefined): Json | undefined {
  let current = schema;
  for (let i = 0; i < 10 && current?.$ref !== undefined; i++) current = doc.components.schemas[String(current.$ref).split('/').pop()!];
  return current;
}

/** Does the JSON pointer name a property the schema declares (through $refs, arrays and compositions)? */
function pointerExists(schema: Json | undefined, pointer: string[]): boolean {
  const node = resolve(schema);
  if (pointer.length === 0) return node !== undefined;
  if (node === undefined) return false;
  for (const key of ['allOf', 'oneOf', 'anyOf'])
    if (Array.isArray(node[key]) && node[key].some((s: Json) => pointerExists(s, pointer))) return true;
  const [head, ...rest] = pointer;
  if (/^\d+$/.test(head!) && node.items !== undefined) return pointerExists(node.items, rest);
  return node.properties?.[head!] !== undefined && pointerExists(node.properties[head!], rest);
}

function links(): Array<{ from: string; status: string; name: string; link: Json; response: Json; path: string }> {
  return operations().flatMap(({ op, path }) =>
    Object.entries(op.responses as Record<string, Json>).flatMap(([status, response]) =>
      Object.entries((response.links ?? {}) as Record<string, Json>).map(([name, link]) => ({
        from: op.operationId,
        status,
        name,
        link,
        response,
        path,
      })),
    ),
  );
}

describe('OpenAPI links', () => {
  it('every creating operation links to the reads of what it created, and every link is well-formed', () => {
    const all = links();
    const byId = new Map(operations().map((o) => [o.op.operationId as string, o]));
    const from = new Set(all.map((l) => l.from));
    for (const creating of [
      'createQuotes',
      'createOrder',
      'createWebhook',
      'registerSolver',
      'registerCounterparty',
      'addMember',
      'depositDeferredCredit',
      'withdrawDeferredCredit',
      'verifyAuthSignature',
      'createRfq',
    ])
      expect(from, creating).toContain(creating);
    for (const { from: source, name, link, response, path } of all) {
      const target = byId.get(link.operationId);
      expect(target, `${source}.${name} → ${link.operationId}`).toBeDefined();
      const pathParams = [...target!.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      expect(Object.keys(link.parameters).sort(), `${source}.${name} parameters`).toEqual(pathParams.sort());
      const sourceParams = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      for (const expression of Object.values(link.parameters) as string[]) {
        if (expression.startsWith('$request.path.'))
          expect(sourceParams, `${source}.${name}: ${expression}`).toContain(expression.slice(14));
        else {
          const pointer = expression.replace('$response.body#/', '').split('/');
          expect(pointerExists(response.content['application/json'].schema, pointer), `${source}.${name}: ${expression}`).toBe(true);
        }
      }
    }
  });

  it('following the links from real responses reaches the linked operations', async () => {
    const linksOf = (operationId: string, status: string) => links().filter((l) => l.from === operationId && l.status === status);
    const operation = (id: string) => operations().find((o) => o.op.operationId === id)!;
    const evaluate = (expression: string, body: Json, pathParams: Record<string, string>): string => {
      if (expression.startsWith('$request.path.')) return pathParams[expression.slice(14)]!;
      let value: any = body;
      for (const part of expression.replace('$response.body#/', '').split('/')) value = value?.[part];
      return String(value);
    };
    const follow = async (operationId: string, status: string, body: Json, key?: string, pathParams: Record<string, string> = {}) => {
      const followed: string[] = [];
      for (const { link, name } of linksOf(operationId, status)) {
        const target = operation(link.operationId);
        // Destructive links (delete, remove, revoke, cancel) are followed last, by the caller, if at all.
        if (target.method === 'delete' || /^(remove|revoke|cancel|reject)/.test(link.operationId)) continue;
        // A link passes ids, not bodies: operations that also need a body of the client's choosing are left out.
        if (target.op.requestBody !== undefined) continue;
        let path = target.path;
        for (const [param, expression] of Object.entries(link.parameters) as Array<[string, string]>)
          path = path.replace(`{${param}}`, encodeURIComponent(evaluate(expression, body, pathParams)));
        const response = await t.request(target.method.toUpperCase(), path, {
          ...(key === undefined ? {} : { key }),
          ...(target.method === 'get' ? {} : { body: {} }),
        });
        expect(
          response.status,
          `${operationId}.${name} → ${target.method.toUpperCase()} ${path}: ${JSON.stringify(response.body)}`,
        ).toBeLessThan(300);
        followed.push(name);
      }
      return followed;
    };

    const webhook = await t.request('POST', '/api/v1/webhooks', { body: { url: 'http://127.0.0.1:9/hook', events: ['order.*'] } });
    expect(await follow('createWebhook', '201', webhook.body)).toEqual(['Webhook', 'TestWebhook', 'Deliveries']);

    const counterparty = await t.request('POST', '/api/v1/counterparties', {
      body: { name: 'Acme', jurisdiction: 'DE', addresses: [privateKeyToAccount(generatePrivateKey()).address] },
    });
    expect(await follow('registerCounterparty', '201', counterparty.body)).toEqual(['Counterparty']);

    const account = privateKeyToAccount(generatePrivateKey());
    const { message } = (await t.request('POST', '/api/v1/auth/challenge', { key: null, body: { address: account.address } })).body;
    const session = await t.request('POST', '/api/v1/auth/verify', {
      key: null,
      body: { message, signature: await account.signMessage({ message }) },
    });
    const member = await t.request('POST', `/api/v1/workspaces/${session.body.user.workspaceId}/members`, {
      key: session.body.token,
      body: { address: privateKeyToAccount(generatePrivateKey()).address, role: 'viewer' },
    });
    expect(member.status).toBe(201);
    expect(await follow('addMember', '201', member.body, session.body.token, { workspaceId: session.body.user.workspaceId })).toEqual([
      'Member',
    ]);
    // Sign-in's link ends the session it opened.
    const revoke = linksOf('verifyAuthSignature', '200')[0]!;
    const revoked = await t.request('DELETE', `/api/v1/auth/sessions/${evaluate(revoke.link.parameters.sessionId, session.body, {})}`, {
      key: session.body.token,
    });
    expect(revoked.body.active).toBe(false);
  });
});
