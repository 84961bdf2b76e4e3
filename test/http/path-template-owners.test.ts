// One rule for route path templates (shared/path-template.ts), fed through every place that once parsed
// templates itself: the spec loader, the runtime's route table and conflict check, each adapter's router,
// the generated client, the MCP tool request, OpenAPI paths and MCP tool names. A parameter is a whole
// segment named by the rest of it; a `:` inside a segment is literal; `*` is the whole last segment.
import { describe, expect, it } from 'vitest';
import { route, type Route } from 'svckit';
import {
  fillPathTemplate,
  openApiPath,
  pathShape,
  templateParameterNames,
} from '../../shared/path-template.js';
import { deriveToolName } from '../../shared/tool-name.js';
import { RouteTable } from '../../runtime/http/route-table.js';
import { checkRouteConflicts } from '../../runtime/http/meta-checks.js';
import { toolRequest } from '../../runtime/mcp/server/tool-request.js';
import type { ToolEntry } from '../../runtime/mcp/server/tool-set.js';
import { createClient } from '../generator/client-fixture/client.js';
import { HEAD, load } from '../spec/helpers.js';
import { adapters, call, withServer } from './harness.js';

describe('path templates: one reading everywhere', () => {
  it('the spec loader reads the names and shape the shared parser reads', async () => {
    const template = '/projects/:projectId/notes/:noteId';
    const params = '{ projectId: { type: string }, noteId: { type: string } }';
    const ir = await load(
      `${HEAD}routes:\n  getNote: { method: GET, path: '${template}', params: ${params} }\n`,
    );
    expect(ir.routes[0]?.pathParams).toEqual(templateParameterNames(template));
    // A malformed name is reported at its ':' (line 5 of the document, column of the colon).
    const line = `  bad: { method: GET, path: '/notes/:9x' }`;
    await expect(load(`${HEAD}routes:\n${line}\n`)).rejects.toThrow(
      `:5:${line.indexOf(':9x') + 1} error: invalid path parameter ':9x'`,
    );
    // The loader's duplicate check and the runtime's conflict check key routes by the same shape.
    expect(pathShape(template)).toBe('/projects/:/notes/:');
    const twice = [
      route({ method: 'GET', url: template, handler: () => 1 }),
      route({ method: 'GET', url: '/projects/:p/notes/:n', handler: () => 2 }),
    ];
    expect(() => checkRouteConflicts(twice)).toThrow(/repeats/);
  });

  it('the route table matches what the parser reads', () => {
    const table = new RouteTable([
      { method: 'GET', url: '/files/:file.name' },
      { method: 'PUT', url: '/assets/*' },
    ]);
    expect(table.allowedMethods('/files/x.txt')).toEqual(['GET', 'HEAD']);
    expect(table.allowedMethods('/files/')).toEqual([]);
    expect(table.allowedMethods('/assets/css/site.css')).toEqual(['PUT']);
  });

  const special: Route[] = [
    route({ method: 'GET', url: '/files/:file.name', handler: ({ params }) => ({ params }) }),
    route({ method: 'GET', url: '/notes/:noteId', handler: ({ params }) => ({ params }) }),
  ];

  describe.each(adapters)('on $name', (adapter) => {
    it('routes and names parameters as the parser reads the template', async () => {
      await withServer(adapter, { routes: special }, async (url) => {
        // The whole segment after `:` is the name, dots included (find-my-way alone would stop at the dot).
        const file = await call(`${url}${fillPathTemplate('/files/:file.name', { 'file.name': 'a b.txt' })}`);
        expect([file.status, file.json]).toEqual([200, { params: { 'file.name': 'a b.txt' } }]);
        const note = await call(`${url}${fillPathTemplate('/notes/:noteId', { noteId: 'x/y' })}`);
        expect([note.status, note.json]).toEqual([200, { params: { noteId: 'x/y' } }]);
      });
    });
  });

  it('the generated client and the MCP tool request build the path the parser builds', async () => {
    const value = 'a b/c?d';
    const expected = fillPathTemplate('/notes/:id', { id: value });
    let sent = '';
    const client = createClient({
      baseUrl: 'http://api.test',
      fetch: (input) => {
        sent = new URL(String(input instanceof Request ? input.url : input)).pathname;
        return Promise.resolve(
          new Response('{}', { status: 200, headers: { 'content-type': 'application/json' } }),
        );
      },
    });
    await client.getNote({ params: { id: value } });
    expect(sent).toBe(expected);

    const noteRoute = route({ method: 'GET', url: '/notes/:id', handler: () => 1 });
    const entry = {
      route: noteRoute,
      paramNames: ['id'],
      queryNames: new Set<string>(),
    } as unknown as ToolEntry;
    const request = toolRequest(entry, { id: value }, { ip: undefined, headers: {} }, undefined);
    expect(request.path).toBe(expected);
    expect(request.params).toEqual({ id: value });
  });

  it('OpenAPI paths and tool names read parameters as whole segments', () => {
    expect(openApiPath('/files/:file.name')).toBe('/files/{file.name}');
    expect(deriveToolName('GET', '/projects/:projectId/notes')).toBe('get_projects_by_projectId_notes');
    expect(deriveToolName('GET', '/')).toBe('get');
  });

  it('refuses templates the routers would read differently', () => {
    const one = () => 1;
    // A `:` inside a segment: find-my-way, Express and Hono each read it as a parameter, the spec refuses it.
    for (const url of ['/files/*/x', '/files/a*', '/x/:', '/x/:a*', '/a:b/c']) {
      expect(() => route({ method: 'GET', url, handler: one })).toThrow(
        expect.objectContaining({ code: 'HTTP_ROUTE_INVALID' }),
      );
    }
    expect(() => route({ method: 'GET', url: '/files/*', handler: one })).not.toThrow();
  });
});
