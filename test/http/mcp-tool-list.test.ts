// The tools an app exposes, on every adapter (docs/mcp.md, "Marking routes as tools"): derived names, descriptions, input schemas and
// annotations, the tools document overriding them, tools/list order and visibility (listVisibleOnly),
// boot refusals, and the option checks of mcpRoutes and mcpPlugin.
import { describe, expect, it } from 'vitest';
import { mcpPlugin, mcpRoutes, route, type HandlerInput, type Route } from 'svckit';
import { adapters, type AdapterUnderTest } from './harness.js';
import {
  envelope,
  fakeAuth,
  openSession,
  resultOf,
  rpcError,
  toolResult,
  withMcp,
  type McpServerInput,
  PROJECT_BODY,
  NOTE_VIEW,
  removeNote,
  toolRoute,
  unlisted,
} from './mcp-helpers.js';

const view = route({
  ...NOTE_VIEW,
  handler: ({ params }) => ({ params }),
});
const createOptions = {
  method: 'POST' as const,
  url: '/projects',
  meta: { mcp: { description: 'Create a project' } },
  body: PROJECT_BODY,
  successStatus: 201,
  handler: ({ body }: HandlerInput) => ({ created: body }),
};

let privateRuns = 0;
const routes: Route[] = [
  view,
  route(createOptions),
  removeNote(),
  unlisted(),
  toolRoute('/count', () => 3),
  toolRoute(
    '/private',
    ({ context }) => {
      privateRuns++;
      return { user: context.user };
    },
    { auth: true },
  ),
];

function serve(
  adapter: AdapterUnderTest,
  input: McpServerInput,
  body: (url: string) => Promise<void>,
): Promise<void> {
  return withMcp(adapter, { routes, ...input, plugins: [fakeAuth(), ...(input.plugins ?? [])] }, body);
}

describe.each(adapters)('tools on $name', (adapter) => {
  describe('tools/list', () => {
    it('lists one tool per meta.mcp route in name order, derived from the route', async () => {
      await serve(adapter, {}, async (url) => {
        const session = await openSession(url, { headers: { authorization: 'Bearer alice' } });
        const tools = resultOf(await session.list()).tools as Array<Record<string, unknown>>;
        expect(tools.map((tool) => tool.name)).toEqual([
          'get_count',
          'get_notes_by_id',
          'get_private',
          'post_projects',
          'remove_note',
        ]);
        const byName = new Map(tools.map((tool) => [tool.name, tool]));
        expect(byName.get('get_notes_by_id')).toEqual({
          name: 'get_notes_by_id',
          title: 'Read a note',
          description: 'Read a note',
          inputSchema: {
            type: 'object',
            properties: {
              id: { type: 'string' },
              limit: { type: 'integer' },
              tags: { type: 'array', items: { type: 'string' } },
            },
            required: ['id'],
          },
          annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
        });
        expect(byName.get('post_projects')).toEqual({
          name: 'post_projects',
          description: 'Create a project',
          inputSchema: {
            type: 'object',
            properties: { name: { type: 'string', minLength: 1 } },
            required: ['name'],
            // The body refuses other properties, so the tool does (the generator's rule too).
            additionalProperties: false,
          },
          annotations: {
            readOnlyHint: false,
            destructiveHint: false,
            idempotentHint: false,
            openWorldHint: false,
          },
        });
        expect(byName.get('remove_note')).toMatchObject({
          description: 'DELETE /notes/:id',
          inputSchema: { properties: { id: { type: 'string' } }, required: ['id'] },
          annotations: { destructiveHint: true, idempotentHint: true },
        });
      });
    });

    it('takes name, description, schema and annotations from the tools document', async () => {
      const document = {
        tools: [
          {
            name: 'create_project',
            title: 'Create project',
            description: 'From the document',
            inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
            annotations: { readOnlyHint: false, openWorldHint: true },
            route: 'createProject',
          },
        ],
      };
      const documented = route({ ...createOptions, id: 'createProject' });
      const input = { routes: [documented], mcp: { tools: document } };
      await withMcp(adapter, input, async (url) => {
        const session = await openSession(url);
        expect(resultOf(await session.list()).tools).toEqual([
          {
            name: 'create_project',
            title: 'Create project',
            description: 'From the document',
            inputSchema: document.tools[0]?.inputSchema,
            annotations: { readOnlyHint: false, openWorldHint: true },
          },
        ]);
        const created = toolResult(await session.call('create_project', { name: 'x' }));
        expect(created.structuredContent).toMatchObject({ created: { name: 'x' } });
        // The derived name is not a second way in.
        expect(rpcError(await session.call('post_projects', { name: 'x' }))?.code).toBe(-32602);
      });
    });

    it('hides tools the caller cannot see (listVisibleOnly) but still runs every guard on calls', async () => {
      await serve(adapter, {}, async (url) => {
        privateRuns = 0;
        const anonymous = await openSession(url);
        const names = (resultOf(await anonymous.list()).tools as Array<{ name: string }>).map(
          (tool) => tool.name,
        );
        expect(names).not.toContain('get_private');
        expect(names).toContain('get_notes_by_id');
        const refused = toolResult(await anonymous.call('get_private', {}));
        expect(refused.isError).toBe(true);
        expect(refused.structuredContent).toEqual(envelope('AUTH_REQUIRED', 'Authentication required.'));
        expect(privateRuns).toBe(0);

        const alice = await openSession(url, { headers: { authorization: 'Bearer alice' } });
        const visible = (resultOf(await alice.list()).tools as Array<{ name: string }>).map(
          (tool) => tool.name,
        );
        expect(visible).toContain('get_private');
        const allowed = toolResult(await alice.call('get_private', {}));
        expect(allowed.isError).toBeUndefined();
        expect(allowed.structuredContent).toEqual({ user: { id: 'alice' } });
        expect(privateRuns).toBe(1);
      });
    });

    it('listVisibleOnly: false lists every tool', async () => {
      await serve(adapter, { endpoint: { listVisibleOnly: false } }, async (url) => {
        const anonymous = await openSession(url);
        const names = (resultOf(await anonymous.list()).tools as Array<{ name: string }>).map(
          (tool) => tool.name,
        );
        expect(names).toContain('get_private');
        expect(names).toHaveLength(5);
      });
    });
  });

  describe('boot refusals', () => {
    it('refuses a tools document naming an unknown route, duplicate names and a non-document', async () => {
      const missing = { tools: [{ name: 'x', route: 'missingRouteId', inputSchema: { type: 'object' } }] };
      await expect(serve(adapter, { mcp: { tools: missing } }, async () => {})).rejects.toMatchObject({
        code: 'MCP_TOOLS_INVALID',
        details: { problems: [expect.stringContaining('missingRouteId')] },
      });
      const twins = [
        toolRoute('/a', () => 1, { mcp: { name: 'same' } }),
        toolRoute('/b', () => 2, { mcp: { name: 'same' } }),
      ];
      await expect(withMcp(adapter, { routes: twins }, async () => {})).rejects.toMatchObject({
        code: 'MCP_TOOLS_INVALID',
        details: { problems: ['two tools are named same'] },
      });
      // Derived names collide too: `/a.b` and `/a_b` both become get_a_b.
      const derived = [toolRoute('/a.b', () => 1), toolRoute('/a_b', () => 2)];
      await expect(withMcp(adapter, { routes: derived }, async () => {})).rejects.toMatchObject({
        code: 'MCP_TOOLS_INVALID',
        details: { problems: ['two tools are named get_a_b'] },
      });
      const notADocument = { tools: 'all' } as never;
      await expect(serve(adapter, { mcp: { tools: notADocument } }, async () => {})).rejects.toMatchObject({
        code: 'MCP_TOOLS_INVALID',
      });
    });
  });
});

describe('endpoint and plugin options', () => {
  it('mcpRoutes refuses bad options with a TypeError', () => {
    const bad: unknown[] = [
      { path: 'mcp' },
      { sessions: { ttlMs: 0 } },
      { sessions: { maxSessions: 1.5 } },
      { allowedOrigins: 'https://app.example.com' },
      { allowedHosts: [42] },
      { rateLimit: { limit: 0, windowMs: 1000 } },
      { rateLimit: { limit: 1, windowMs: -1 } },
    ];
    for (const options of bad) expect(() => mcpRoutes(options as never)).toThrow(TypeError);
    expect(mcpRoutes({ path: '/x', sessions: { ttlMs: 1, maxSessions: 1 } })).toHaveLength(2);
    expect(mcpRoutes({ sessions: false })).toHaveLength(1);
  });

  it('mcpPlugin refuses bad options with a TypeError', () => {
    const bad: unknown[] = [
      { forwardHeaders: 'x-trace' },
      { forwardHeaders: [''] },
      { redactErrorDetails: true },
      { reportError: 'stderr' },
      { serverInfo: { name: 'x' } },
    ];
    for (const options of bad) expect(() => mcpPlugin(options as never)).toThrow(TypeError);
  });
});
