// The input and output parts of a route: params, query, body, response and its error codes, each
// normalised to the IR's shape (object schemas for params and query, a body wrapper, status → schema).
import type { BodyIR, JsonSchema, JsonSchemaObject, ResponseIR } from '../../shared/ir.js';
import { RESOURCE_REF_PREFIX } from '../../shared/ir.js';
import { isRedirectStatus } from '../../shared/success-status.js';
import { asMap, asString, entry, type LoadContext, type Path } from './context.js';
import {
  BINARY_BODY_METHODS,
  loadRawWrapper,
  loadStreamResponse,
  loadUploadWrapper,
} from './binary-parts.js';
import { at, describeNode } from './describe.js';
import { SVC_SCHEMA } from './package-files.js';
import type { PathParam } from './route-path.js';
import { checkResourceRef } from './schema-lint.js';
import { closest } from './suggest.js';
import { locWithin, setOwn, type MapNode, type Node, type ScalarNode } from './yaml-tree.js';

const SCALAR_TYPES = ['string', 'integer', 'number', 'boolean'];

/** `params: { id: { type: string } }` → an object schema requiring exactly the path's parameters. */
export function loadParams(
  ctx: LoadContext,
  node: Node | undefined,
  pathParams: PathParam[],
  pathNode: ScalarNode | undefined,
  where: Path,
): JsonSchemaObject | undefined {
  const map = asMap(node);
  const names = pathParams.map((param) => param.name);
  const properties: Record<string, JsonSchema> = {};
  if (map) {
    for (const item of map.entries) {
      const path = [...where, 'params', item.key];
      if (!names.includes(item.key)) {
        const match = closest(item.key, names);
        ctx.problems.add(
          item.keyLoc,
          path,
          `params.${item.key} is not a parameter of the path`,
          match
            ? `did you mean '${match}'? (the path names :${match})`
            : `remove it, or add /:${item.key} to the path`,
        );
        continue;
      }
      const schema = ctx.preCheckSchema(item.value, path);
      if (schema === undefined) continue;
      if (!isScalarSchema(ctx.deref(schema))) {
        ctx.problems.add(
          item.value.loc,
          path,
          `path parameter '${item.key}' must be a string, integer, number or boolean`,
          `write ${item.key}: { type: string }`,
        );
        continue;
      }
      setOwn(properties, item.key, schema);
    }
  }
  for (const param of pathParams) {
    if (map?.byKey.has(param.name)) continue;
    if (pathNode === undefined || (node !== undefined && !map)) continue; // wrong type: reported by the structure check
    ctx.problems.add(
      locWithin(pathNode, param.index),
      [...where, 'path'],
      `path parameter '${param.name}' is not declared in params`,
      map
        ? `add ${param.name}: { type: string } under params`
        : `add params: { ${param.name}: { type: string } }`,
    );
  }
  if (pathParams.length === 0) return undefined;
  const ordered: Record<string, JsonSchema> = {};
  for (const name of names) if (Object.hasOwn(properties, name)) setOwn(ordered, name, properties[name]);
  const schema = { type: 'object', properties: ordered, required: names, additionalProperties: false };
  if (map && Object.keys(ordered).length === names.length)
    ctx.compileAssembled(schema, map, [...where, 'params']);
  return schema;
}

/** `query:` as a shorthand map (name → schema) or a full object schema (it has `type:`). */
export function loadQuery(
  ctx: LoadContext,
  node: Node | undefined,
  where: Path,
): JsonSchemaObject | undefined {
  if (node === undefined) return undefined;
  const path = [...where, 'query'];
  const map = asMap(node);
  if (!map) {
    if (node.kind === 'scalar' && node.broken) return undefined;
    ctx.problems.add(
      node.loc,
      path,
      `${at(path)}expected a mapping of query parameters but got ${describeNode(node)}`,
      'write query: { limit: { type: integer } }',
    );
    return undefined;
  }
  const typeNode = entry(map, 'type');
  if (typeNode?.kind === 'scalar') {
    const schema = ctx.checkSchema(map, path);
    if (schema === undefined || typeof schema !== 'object') return undefined;
    if (schema.type !== 'object') {
      ctx.problems.add(
        typeNode.loc,
        [...path, 'type'],
        `${at(path)}a full query schema must have type: object`,
        'write type: object, or list the parameters directly: query: { limit: { type: integer } }',
      );
      return undefined;
    }
    const props = asMap(entry(map, 'properties'));
    for (const item of props?.entries ?? [])
      checkQueryParam(
        ctx,
        item.key,
        (schema.properties as Record<string, JsonSchema>)[item.key],
        item.value,
        [...path, 'properties', item.key],
      );
    return schema;
  }
  const properties: Record<string, JsonSchema> = {};
  for (const item of map.entries) {
    const paramPath = [...path, item.key];
    if (!/^[A-Za-z_][A-Za-z0-9_.-]*$/.test(item.key)) {
      ctx.problems.add(
        item.keyLoc,
        paramPath,
        `invalid query parameter name '${item.key}'`,
        'query parameter names are letters, digits and _ . -',
      );
      continue;
    }
    const schema = ctx.preCheckSchema(item.value, paramPath);
    if (schema === undefined) continue;
    if (checkQueryParam(ctx, item.key, schema, item.value, paramPath)) setOwn(properties, item.key, schema);
  }
  const schema = { type: 'object', properties, additionalProperties: false };
  ctx.compileAssembled(schema, map, path);
  return schema;
}

function checkQueryParam(
  ctx: LoadContext,
  name: string,
  schema: JsonSchema | undefined,
  node: Node,
  path: Path,
): boolean {
  const resolved = ctx.deref(schema);
  if (resolved === undefined) return false;
  if (isScalarSchema(resolved)) return true;
  if (
    typeof resolved === 'object' &&
    resolved.type === 'array' &&
    isScalarSchema(ctx.deref(resolved.items as JsonSchema | undefined))
  )
    return true;
  ctx.problems.add(
    node.loc,
    path,
    `query parameter '${name}' must be a scalar or a list of scalars`,
    `write ${name}: { type: string }, or { type: array, items: { type: string } }`,
  );
  return false;
}

function isScalarSchema(schema: JsonSchema | undefined): boolean {
  if (typeof schema !== 'object') return false;
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const real = types.filter((type) => type !== 'null');
  return real.length > 0 && real.every((type) => typeof type === 'string' && SCALAR_TYPES.includes(type));
}

/** How each body wrapper key is read. */
const BODY_WRAPPERS: Record<string, (ctx: LoadContext, map: MapNode, path: Path) => BodyIR | undefined> = {
  json: loadJsonWrapper,
  upload: loadUploadWrapper,
  raw: loadRawWrapper,
};

export function loadBody(
  ctx: LoadContext,
  node: Node | undefined,
  method: string | undefined,
  keyLoc: Node['loc'] | undefined,
  where: Path,
): BodyIR | undefined {
  if (node === undefined) return undefined;
  const path = [...where, 'body'];
  if (method === 'GET' || method === 'HEAD') {
    ctx.problems.add(
      keyLoc ?? node.loc,
      path,
      `${method} routes cannot have a body`,
      'move the fields to query:, or use POST',
    );
    return undefined;
  }
  const map = asMap(node);
  if (map) {
    const wrapper = Object.keys(BODY_WRAPPERS).find((key) => map.byKey.has(key));
    if (wrapper === undefined) return jsonBody(ctx, node, path);
    const body = BODY_WRAPPERS[wrapper]!(ctx, map, path);
    if (body?.kind !== 'json' && method !== undefined && !BINARY_BODY_METHODS.includes(method)) {
      ctx.problems.add(
        map.byKey.get(wrapper)!.keyLoc,
        [...path, wrapper],
        `${wrapper} bodies are only for POST, PUT and PATCH routes, not ${method}`,
        `use method: POST, or send the data another way`,
      );
      return undefined;
    }
    return body;
  }
  return jsonBody(ctx, node, path);
}

function jsonBody(ctx: LoadContext, node: Node, path: Path): BodyIR | undefined {
  const schema = loadSchemaOrResource(ctx, node, path);
  return schema === undefined ? undefined : { kind: 'json', schema, required: true };
}

function loadJsonWrapper(ctx: LoadContext, map: MapNode, path: Path): BodyIR | undefined {
  const jsonBody = ctx.structure.schemaAt(SVC_SCHEMA, '/$defs/jsonBody');
  const findings = ctx.structure.checkWith(map, jsonBody, SVC_SCHEMA, path);
  ctx.report(findings);
  const schema = loadSchemaOrResource(ctx, map.byKey.get('json')!.value, [...path, 'json']);
  const required = entry(map, 'required');
  if (schema === undefined || findings.length > 0) return undefined;
  return { kind: 'json', schema, required: !(required?.kind === 'scalar' && required.value === false) };
}

/** A resource name (`Note`) becomes `{ $ref: '#/resources/Note' }`; a mapping is an inline schema. */
export function loadSchemaOrResource(ctx: LoadContext, node: Node, path: Path): JsonSchema | undefined {
  if (node.kind === 'scalar' && typeof node.value === 'string' && !node.broken) {
    const name = node.value;
    if (!/^[A-Z][A-Za-z0-9]*$/.test(name)) {
      const match = closest(name, ctx.resourceNames);
      const hint = match
        ? `did you mean '${match}'?`
        : 'name a resource declared under resources: (PascalCase), or write an inline schema';
      ctx.problems.add(node.loc, path, `${at(path)}'${name}' is not a resource name`, hint);
      return undefined;
    }
    const problem = checkResourceRef(RESOURCE_REF_PREFIX + name, ctx.resourceNames);
    if (problem) {
      const match = closest(name, ctx.resourceNames);
      ctx.problems.add(
        node.loc,
        path,
        `unknown resource '${name}'`,
        match ? `did you mean '${match}'?` : `declare ${name} under resources:`,
      );
      return undefined;
    }
    return { $ref: RESOURCE_REF_PREFIX + name };
  }
  return ctx.checkSchema(node, path);
}

/**
 * `response: { 200: Note, 204: null, 206: { stream: video/mp4 } }`. No 2xx status means `200: true` (a JSON
 * body of any shape), unless the route declares a redirect (301, 302, 303, 307, 308): one that only redirects
 * answers no body.
 */
export function loadResponses(
  ctx: LoadContext,
  node: Node | undefined,
  where: Path,
): Record<string, ResponseIR> {
  const responses: Record<string, ResponseIR> = {};
  const map = asMap(node);
  for (const item of map?.entries ?? []) {
    if (!/^[1-5][0-9][0-9]$/.test(item.key)) continue; // reported by the structure check
    const path = [...where, 'response', item.key];
    const value = item.value;
    if (value.kind === 'scalar' && value.value === null) {
      responses[item.key] = null;
      continue;
    }
    if (item.key === '204' || item.key === '304') {
      ctx.problems.add(value.loc, path, `status ${item.key} never has a body`, `write ${item.key}: null`);
      continue;
    }
    if (value.kind === 'scalar' && value.value === true) {
      responses[item.key] = true;
      continue;
    }
    if (value.kind === 'map' && value.byKey.has('stream')) {
      const stream = loadStreamResponse(ctx, value, item.key, path);
      if (stream !== undefined) responses[item.key] = stream;
      continue;
    }
    if (value.kind === 'scalar' && typeof value.value !== 'string' && !value.broken) {
      ctx.problems.add(
        value.loc,
        path,
        `${at(path)}expected a resource name, a schema, true or null but got ${describeNode(value)}`,
        `write ${item.key}: <Resource>, or ${item.key}: null for no body`,
      );
      continue;
    }
    const schema = loadSchemaOrResource(ctx, value, path);
    if (schema !== undefined) responses[item.key] = schema;
  }
  const answers = Object.keys(responses);
  if (!answers.some((status) => status.startsWith('2') || isRedirectStatus(status))) responses['200'] = true;
  return responses;
}

/** `errors: [NOTE_NOT_FOUND]`: each declared by the document or built in, and answerable over HTTP. */
export function loadRouteErrors(ctx: LoadContext, node: Node | undefined, where: Path): string[] {
  if (node?.kind !== 'seq') return [];
  const codes: string[] = [];
  node.items.forEach((item, index) => {
    const code = asString(item);
    if (code === undefined || !/^[A-Z][A-Z0-9_]*$/.test(code)) return;
    const path = [...where, 'errors', index];
    const declared = ctx.ownErrors.get(code) ?? ctx.catalog.get(code);
    if (!declared) {
      const known = [
        ...ctx.ownErrors.keys(),
        ...[...ctx.catalog.values()].filter((e) => e.status !== 'boot').map((e) => e.code),
      ];
      const match = closest(code, known);
      ctx.problems.add(
        item.loc,
        path,
        `unknown error code '${code}'`,
        match
          ? `did you mean '${match}'?`
          : `declare it under errors:, e.g. errors: { ${code}: { status: 400, message: ... } }`,
      );
      return;
    }
    if (declared.status === 'boot') {
      ctx.problems.add(
        item.loc,
        path,
        `'${code}' is a boot-time error and is never answered over HTTP`,
        `remove ${code} from the route's errors`,
      );
      return;
    }
    if (!codes.includes(code)) codes.push(code);
  });
  return codes;
}
