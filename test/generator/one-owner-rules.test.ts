// Rules the generator and the runtime both apply, each with one owner in shared/: the same route fed to the
// generator's call site and to the runtime's gets one answer.
import { describe, expect, it } from 'vitest';
import { emitMcpTools } from '../../generator/emit-mcp-tools.js';
import { successStatus } from '../../generator/emit-routes.js';
import type { CompiledRoute } from '../../runtime/http/pipeline.js';
import { route } from '../../runtime/http/route.js';
import { buildToolSet } from '../../runtime/mcp/server/tool-set.js';
import type { JsonSchemaObject } from '../../shared/ir.js';
import { route as routeIr, spec } from './fixtures.js';

const handler = () => ({});
const compile = () => ({}) as CompiledRoute;

describe('success status: routes.ts and route() agree', () => {
  const cases: Record<string, null>[] = [
    { '201': null, '400': null },
    { '202': null, '201': null },
    { '200': null, '201': null },
    { '404': null },
    {},
  ];
  it.each(cases)('%o', (responses) => {
    const generated = successStatus({ responses });
    const handwritten = route({ method: 'POST', url: '/a', response: responses, handler }).successStatus;
    expect(handwritten).toBe(generated);
  });
});

const idParams: JsonSchemaObject = {
  type: 'object',
  properties: { id: { type: 'string' } },
  required: ['id'],
  additionalProperties: false,
};
const closedBody: JsonSchemaObject = {
  type: 'object',
  properties: { title: { type: 'string' } },
  required: ['title'],
  additionalProperties: false,
};

/** The tool input schema the generator writes for a route with these parts. */
function generatedInput(parts: {
  params?: JsonSchemaObject;
  query?: JsonSchemaObject;
  body?: JsonSchemaObject;
}) {
  const ir = spec({
    routes: [
      routeIr({
        id: 'update',
        method: 'PUT',
        path: '/notes/:id',
        pathParams: ['id'],
        ...(parts.params ? { params: parts.params } : {}),
        ...(parts.query ? { query: parts.query } : {}),
        ...(parts.body ? { body: { kind: 'json', schema: parts.body, required: true } } : {}),
        meta: { mcp: true },
      }),
    ],
  });
  return emitMcpTools(ir, { header: '' }).tools[0]?.inputSchema;
}

/** The tool input schema the runtime derives for a handwritten route with the same parts. */
function runtimeInput(parts: {
  params?: JsonSchemaObject;
  query?: JsonSchemaObject;
  body?: JsonSchemaObject;
}) {
  const handwritten = route({
    method: 'PUT',
    url: '/notes/:id',
    ...(parts.params ? { params: parts.params } : {}),
    ...(parts.query ? { query: parts.query } : {}),
    ...(parts.body ? { body: parts.body } : {}),
    meta: { mcp: true },
    handler,
  });
  return [...buildToolSet([handwritten], undefined, false, compile).values()][0]?.tool.inputSchema;
}

describe('MCP tool input schema: mcp-tools.json and the runtime agree', () => {
  it('merges params and a closed body into one closed object', () => {
    const parts = { params: idParams, body: closedBody };
    expect(runtimeInput(parts)).toEqual(generatedInput(parts));
    expect(generatedInput(parts)).toEqual({
      type: 'object',
      properties: { id: { type: 'string' }, title: { type: 'string' } },
      required: ['id', 'title'],
      additionalProperties: false,
    });
  });

  it('stays open when a part accepts other properties', () => {
    const parts = { params: idParams, body: { type: 'object', properties: { title: { type: 'string' } } } };
    expect(runtimeInput(parts)).toEqual(generatedInput(parts));
    expect(generatedInput(parts)).not.toHaveProperty('additionalProperties');
  });

  it('closes the input of a route that takes none, as mcp-tools.json always did', () => {
    const ir = spec({
      routes: [routeIr({ id: 'count', method: 'GET', path: '/count', meta: { mcp: true } })],
    });
    const generated = emitMcpTools(ir, { header: '' }).tools[0]?.inputSchema;
    const handwritten = route({ method: 'GET', url: '/count', meta: { mcp: true }, handler });
    const derived = [...buildToolSet([handwritten], undefined, false, compile).values()][0]?.tool.inputSchema;
    expect(derived).toEqual(generated);
    expect(generated).toEqual({ type: 'object', properties: {}, additionalProperties: false });
  });

  it('refuses a property in both params and body: at build, and at boot for a handwritten route', () => {
    const parts = {
      params: idParams,
      body: { ...closedBody, properties: { id: { type: 'integer' }, title: { type: 'string' } } },
    };
    const message = "property 'id' is in both params and body; an MCP tool takes one flat object";
    expect(() => generatedInput(parts)).toThrow(message);
    let bootError: unknown;
    try {
      runtimeInput(parts);
    } catch (error) {
      bootError = error;
    }
    expect(bootError).toMatchObject({
      code: 'MCP_TOOLS_INVALID',
      details: { problems: [`route PUT /notes/:id: ${message}`] },
    });
  });
});
