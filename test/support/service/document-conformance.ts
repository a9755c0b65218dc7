import { validateJson } from './json-schema.js';

/**
 * Holds every response a test sees against the service's published OpenAPI document: the operation for the
 * method and path must exist (for a 2xx or 405), the status must be documented (or `default`), and the JSON body
 * must match the documented schema. Violations are collected, and the harness fails the test file on stop, so the
 * document and the code cannot drift apart unnoticed.
 */
type Schema = Record<string, unknown> | boolean;
interface Operation {
  responses: Record<string, { content?: Record<string, { schema?: Schema }> }>;
}
interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

export class DocumentConformance {
  readonly violations: string[] = [];
  private readonly routes: Array<{ method: string; pattern: RegExp; template: string; operation: Operation }>;

  constructor(private readonly document: OpenApiDocument) {
    this.routes = Object.entries(document.paths).flatMap(([template, item]) =>
      Object.entries(item).map(([method, operation]) => ({
        method: method.toUpperCase(),
        template,
        operation,
        pattern: new RegExp(
          `^${template
            .split(/(\{[^}]+\})/)
            .map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
            .join('')}/?$`,
        ),
      })),
    );
    // Literal templates first: `/quotes/rfq_…` style prefixes and fixed names win over parameters.
    this.routes.sort((a, b) => a.template.split('{').length - b.template.split('{').length);
  }

  check(method: string, url: string, status: number, body: unknown): void {
    const path = new URL(url).pathname;
    const route = this.routes.find((r) => r.method === method.toUpperCase() && r.pattern.test(path));
    if (route === undefined) return; // Not a documented operation (unknown routes, WebSocket paths, pages).
    const response = route.operation.responses[String(status)] ?? route.operation.responses.default;
    if (response === undefined) {
      this.violations.push(`${method} ${route.template} answered ${status}, which the document does not list`);
      return;
    }
    const schema = response.content?.['application/json']?.schema;
    if (schema === undefined || body === undefined) return;
    const errors = validateJson(body, schema, (ref) => {
      const found = this.document.components.schemas[ref.replace('#/components/schemas/', '')];
      if (found === undefined) throw new Error(`unresolved ${ref}`);
      return found;
    });
    for (const error of errors.slice(0, 3)) this.violations.push(`${method} ${route.template} ${status}: ${error}`);
  }
}
