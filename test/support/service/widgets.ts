import { z } from 'zod';
import { newId } from '../../../src/service/store/ids.js';
import { keysetPage } from '../../../src/service/store/pagination.js';
import { pageEnvelope, PageQuery, pageSchema, toPageRequest } from '../../../src/service/api/pagination.js';
import type { ServiceModule } from '../../../src/service/module.js';

/**
 * A minimal resource module for platform tests, built the way later modules are: its own migration,
 * a creating POST (idempotent by default) and a paginated list, scoped to the caller's workspace.
 */
export const Widget = z.object({ id: z.string(), name: z.string(), createdAt: z.number().int() });
export const CreateWidget = z.strictObject({ name: z.string().min(1).max(50), delayMs: z.number().int().min(0).max(2_000).optional() });

interface WidgetRow {
  id: string;
  workspace_id: string;
  name: string;
  created_at: number;
}

export function widgetsModule(): ServiceModule & { created(): number } {
  let created = 0;
  return {
    name: 'widgets',
    created: () => created,
    migrations: {
      module: 'widgets',
      migrations: [
        {
          name: '001_widgets',
          up: (db) =>
            db.exec(`CREATE TABLE widgets (id TEXT PRIMARY KEY, workspace_id TEXT NOT NULL, name TEXT NOT NULL, created_at INTEGER NOT NULL);
                     CREATE INDEX widgets_by_workspace ON widgets (workspace_id, created_at, id);`),
        },
      ],
    },
    setup(ctx) {
      const WidgetPage = ctx.openapi.schema('WidgetPage', pageSchema(ctx.openapi.schema('Widget', Widget)));
      const api = ctx.routes();
      api.route({
        method: 'post',
        path: '/test/widgets',
        operationId: 'createWidget',
        summary: 'Create a widget (test module).',
        auth: 'required',
        body: CreateWidget,
        responses: { 201: { description: 'Created.', schema: Widget } },
        handler: async ({ body, auth }) => {
          // Simulates work that takes time (a chain transaction) between the claim and the response.
          if (body.delayMs !== undefined) await new Promise((resolve) => setTimeout(resolve, body.delayMs));
          const widget = { id: newId('wdg'), name: body.name, createdAt: ctx.clock.now() };
          ctx.store.db
            .prepare('INSERT INTO widgets (id, workspace_id, name, created_at) VALUES (?, ?, ?, ?)')
            .run(widget.id, auth!.workspaceId, widget.name, widget.createdAt);
          created += 1;
          return { status: 201, body: widget };
        },
      });
      api.route({
        method: 'get',
        path: '/test/widgets',
        operationId: 'listWidgets',
        summary: 'List widgets, newest first (test module).',
        auth: 'required',
        query: PageQuery,
        responses: { 200: { description: 'A page.', schema: WidgetPage } },
        handler: ({ query, auth }) => {
          const page = keysetPage<WidgetRow>(ctx.store.db, {
            from: 'widgets',
            where: 'workspace_id = ?',
            params: [auth!.workspaceId],
            sortColumn: 'created_at',
            order: 'desc',
            request: toPageRequest(query),
            position: (row) => ({ key: row.created_at, id: row.id }),
          });
          return {
            status: 200,
            body: pageEnvelope(page, (row) => ({ id: row.id, name: row.name, createdAt: row.created_at })),
          };
        },
      });
    },
  };
}
