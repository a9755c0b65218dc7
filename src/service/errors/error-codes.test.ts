import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { API_ERROR_CODES, CLI_ERROR_CODES, ERROR_TYPES, type ErrorType } from '../../contracts/errors/error-codes.js';
import { ApiError, formatBCode } from './api-errors.js';
import { errorCodes } from './error-codes.js';

/**
 * Every error code the source throws is in the registry (src/contracts/errors/error-codes.ts). The codes are
 * found in the TypeScript syntax tree, not by running code: each `new X({ code })` and `super(…, { code })` of a
 * class that descends from BaseError (or Error), each `readonly code = '…'` of such a class, and each raw wire
 * error `{ type: '<error type>', code }` (the WebSocket and handshake paths that render without a class).
 */

const ROOT = join(import.meta.dirname, '../../..');
const FOLDERS = ['src', 'scenarios', 'conformance', 'hardening'];
/** Names a class of ours may extend to be an error (solver-wallet imports the root as ProjectError beside viem's). */
const ERROR_ROOTS = new Set(['BaseError', 'ProjectError', 'Error']);
/** Codes that are not literals on purpose: relayed from another process that threw a registered code. */
// The daemon passes on the supervisor process's code; the admin client passes on the code the service answered.
const RELAYED = new Set(['src/sandbox/daemon.ts', 'src/clients/sandbox-admin-client.ts']);

interface Thrown {
  code: string;
  surface: 'api' | 'cli';
  /** Format A type it is thrown with (api codes). */
  type: ErrorType | undefined;
  where: string;
}

function productionFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'artifacts' ? [] : productionFiles(path);
    return entry.name.endsWith('.ts') && !/\.(test|d)\.ts$/.test(entry.name) ? [path] : [];
  });
}

const isErrorType = (text: string): text is ErrorType => Object.hasOwn(ERROR_TYPES, text);

/** The string literals an expression can be (both arms of a conditional), or undefined when it is computed. */
function literals(node: ts.Expression): string[] | undefined {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return [node.text];
  if (ts.isParenthesizedExpression(node)) return literals(node.expression);
  if (ts.isConditionalExpression(node)) {
    const [a, b] = [literals(node.whenTrue), literals(node.whenFalse)];
    return a && b ? [...a, ...b] : undefined;
  }
  return undefined;
}

function property(object: ts.ObjectLiteralExpression, name: string): ts.Expression | undefined {
  for (const p of object.properties) if (ts.isPropertyAssignment(p) && p.name.getText() === name) return p.initializer;
  return undefined;
}

/** The object literals an argument can be: itself, both arms of a conditional, or a local `const` it names. */
function objectLiterals(node: ts.Expression): ts.ObjectLiteralExpression[] {
  if (ts.isObjectLiteralExpression(node)) return [node];
  if (ts.isParenthesizedExpression(node)) return objectLiterals(node.expression);
  if (ts.isConditionalExpression(node)) return [...objectLiterals(node.whenTrue), ...objectLiterals(node.whenFalse)];
  if (ts.isIdentifier(node)) {
    const scope = ts.findAncestor(node, ts.isFunctionLike) ?? node.getSourceFile();
    let found: ts.ObjectLiteralExpression[] = [];
    const visit = (n: ts.Node): void => {
      if (ts.isVariableDeclaration(n) && n.name.getText() === node.text && n.initializer) found = objectLiterals(n.initializer);
      else ts.forEachChild(n, visit);
    };
    visit(scope);
    return found;
  }
  return [];
}

function scanThrownCodes(): { thrown: Thrown[]; computed: string[] } {
  const sources = FOLDERS.flatMap((folder) => productionFiles(join(ROOT, folder))).map((file) =>
    ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true),
  );
  // Class name → the class it extends, and the Format A type a class passes up (`super('conflict', …)`).
  const bases = new Map<string, string>();
  const ownType = new Map<string, ErrorType>();
  for (const source of sources) {
    const visit = (node: ts.Node): void => {
      if (ts.isClassDeclaration(node) && node.name) {
        const base = node.heritageClauses?.find((h) => h.token === ts.SyntaxKind.ExtendsKeyword)?.types[0]?.expression;
        if (base && ts.isIdentifier(base)) bases.set(node.name.text, base.text);
      }
      if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.SuperKeyword) {
        const name = ts.findAncestor(node, ts.isClassDeclaration)?.name?.text;
        const first = node.arguments[0];
        if (name && first && ts.isStringLiteral(first) && isErrorType(first.text)) ownType.set(name, first.text);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  const lineage = (name: string): string[] => {
    const names = [name];
    for (let base = bases.get(name); base !== undefined && names.length < 20; base = bases.get(base)) names.push(base);
    return names;
  };
  const isError = (name: string) => lineage(name).some((n) => ERROR_ROOTS.has(n));
  const surfaceOf = (name: string) => (lineage(name).includes('ApiError') ? 'api' : 'cli');
  const typeOf = (name: string) =>
    lineage(name)
      .map((n) => ownType.get(n))
      .find((t) => t !== undefined);

  const thrown: Thrown[] = [];
  const computed: string[] = [];
  for (const source of sources) {
    const file = relative(ROOT, source.fileName);
    const at = (node: ts.Node) => `${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
    const add = (init: ts.Expression, surface: 'api' | 'cli', type: ErrorType | undefined) => {
      const codes = literals(init);
      if (codes === undefined) computed.push(at(init));
      else for (const code of codes) thrown.push({ code, surface, type: surface === 'api' ? type : undefined, where: at(init) });
    };
    const fromArguments = (name: string, args: readonly ts.Expression[], type: ErrorType | undefined) => {
      for (const object of args.flatMap(objectLiterals)) {
        const code = property(object, 'code');
        if (code) add(code, surfaceOf(name), type ?? typeOf(name));
      }
    };
    const visit = (node: ts.Node): void => {
      if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && isError(node.expression.text)) {
        const first = node.arguments?.[0];
        const explicit = first && ts.isStringLiteral(first) && isErrorType(first.text) ? first.text : undefined;
        fromArguments(node.expression.text, node.arguments ?? [], explicit);
      } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.SuperKeyword) {
        const name = ts.findAncestor(node, ts.isClassDeclaration)?.name?.text;
        if (name && isError(name)) fromArguments(name, node.arguments, undefined);
      } else if (ts.isPropertyDeclaration(node) && node.name.getText() === 'code' && node.initializer) {
        const name = ts.findAncestor(node, ts.isClassDeclaration)?.name?.text;
        if (name && isError(name)) add(node.initializer, surfaceOf(name), typeOf(name));
      } else if (ts.isObjectLiteralExpression(node)) {
        const type = property(node, 'type');
        const types = type && literals(type);
        const code = property(node, 'code');
        if (code && types?.length === 1 && isErrorType(types[0]!)) add(code, 'api', types[0]);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return { thrown, computed };
}

describe('error code registry', () => {
  const { thrown, computed } = scanThrownCodes();

  it('finds the codes the source throws (the scan is not vacuous)', () => {
    expect(thrown).toContainEqual(expect.objectContaining({ code: 'port_in_use', surface: 'cli' }));
    expect(thrown).toContainEqual(expect.objectContaining({ code: 'rate_limit_exceeded', type: 'rate_limit_error' }));
    expect(thrown).toContainEqual(expect.objectContaining({ code: 'url_not_allowed', type: 'validation_error' }));
    expect(thrown).toContainEqual(expect.objectContaining({ code: 'jwt_required', type: 'authentication_error' }));
    expect(thrown).toContainEqual(expect.objectContaining({ code: 'topic_invalid', type: 'invalid_request' }));
    expect(thrown.length).toBeGreaterThan(200);
  });

  it('every thrown API code is registered, with the type it is thrown with', () => {
    const missing = thrown
      .filter((t) => t.surface === 'api')
      .filter((t) => {
        const entry: { types: readonly ErrorType[] } | undefined = (API_ERROR_CODES as Record<string, { types: readonly ErrorType[] }>)[
          t.code
        ];
        return entry === undefined || t.type === undefined || !entry.types.includes(t.type);
      })
      .map((t) => `${t.where}: ${t.code} (${t.type ?? 'no type'})`);
    expect(missing).toEqual([]);
  });

  it('every thrown CLI code is registered', () => {
    const missing = thrown.filter((t) => t.surface === 'cli' && !Object.hasOwn(CLI_ERROR_CODES, t.code));
    expect(missing.map((t) => `${t.where}: ${t.code}`)).toEqual([]);
  });

  it('codes are literals, except where a registered code is relayed from another process', () => {
    expect(computed.filter((where) => !RELAYED.has(where.split(':')[0]!))).toEqual([]);
  });

  it('every API entry carries what the renderers need: a status per type and a Format B code', () => {
    const apiThrown = new Set(thrown.filter((t) => t.surface === 'api').map((t) => t.code));
    for (const [code, entry] of Object.entries(API_ERROR_CODES) as [string, { types: readonly ErrorType[]; reserved?: true }][]) {
      expect(/^[a-z][a-z0-9_]*$/.test(code), code).toBe(true);
      if (entry.reserved) {
        expect(apiThrown.has(code), `${code} is thrown: give it its types instead of reserved`).toBe(false);
        continue;
      }
      expect(entry.types.length, code).toBeGreaterThan(0);
      for (const type of entry.types) {
        expect(ERROR_TYPES[type], `${code}: ${type}`).toBeGreaterThanOrEqual(400);
        expect(formatBCode(new ApiError(type, { code, message: code })), `${code}: ${type}`).toMatch(/^[A-Z][A-Z0-9_]*$/);
      }
    }
  });

  it('the docs page lists exactly the API codes of the registry', () => {
    expect([...errorCodes().keys()].sort()).toEqual(Object.keys(API_ERROR_CODES).sort());
    for (const [code, entry] of Object.entries(API_ERROR_CODES)) expect(errorCodes().get(code)).toBe(entry.description);
  });
});
