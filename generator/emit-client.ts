// client.ts: a dependency-free typed fetch client. Types come from the generated types.ts (type-only
// import); result unions are built from the declared responses and routeErrorsByStatus(), so a status or
// code the spec does not declare is never given a declared type.
import { idempotencyHeader, routeIdempotency } from './idempotency.js';
import { isStreamResponse, type ResponseIR, type RouteIR, type SpecIR } from '../shared/ir.js';
import { parsePathTemplate } from '../shared/path-template.js';
import { pascalCase, routeTypeNames } from './names.js';
import { declaredResponses } from '../shared/openapi/operation.js';
import { resolveRootRef } from './openapi/schema-refs.js';
import { routeErrorsByStatus } from './route-errors.js';
import { renderTemplate } from './templates.js';
import { apiSurface } from './modules.js';

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

type BodyKind = 'json' | 'json-or-text' | 'empty' | 'stream';

interface RouteView {
  id: string;
  doc: string;
  inputName: string;
  inputDeclaration: string;
  inputOptional: boolean;
  responseName: string;
  members: string[];
  /** The route's entry in the client's route table, as a JS object literal. */
  table: string;
}

/** One method per route of the application and of the modules it enables (apiSurface). */
export function emitClient(appIr: SpecIR, options: { header: string }): string {
  const ir = apiSurface(appIr);
  const routes = ir.routes.map((route) => routeView(route, ir));
  // The upload, raw and stream helpers are written only into clients whose routes need them.
  const uses = {
    usesUpload: ir.routes.some((route) => route.body?.kind === 'upload'),
    usesRaw: ir.routes.some((route) => route.body?.kind === 'raw'),
    usesStream: ir.routes.some((route) => Object.values(route.responses).some(isStreamResponse)),
  };
  const usesBytes = uses.usesUpload || uses.usesRaw;
  return renderTemplate('generated/client.ts.hbs', {
    header: options.header,
    title: (ir.title ?? ir.name).replace(/\s+/g, ' '),
    usesTypes: routes.some((route) => /\bT\./.test(route.inputDeclaration + route.members.join(''))),
    ...uses,
    usesBytes,
    bodyHelpers: usesBytes ? renderTemplate('generated/client-bodies.ts.hbs', { ...uses, usesBytes }) : '',
    streamHelpers: uses.usesStream ? renderTemplate('generated/client-streams.ts.hbs', {}) : '',
    routes,
  });
}

function routeView(route: RouteIR, ir: SpecIR): RouteView {
  if (!IDENTIFIER.test(route.id)) {
    throw new Error(`route id '${route.id}' is not a valid identifier, so it cannot name a client method`);
  }
  const names = routeTypeNames(route.id);
  const base = pascalCase(route.id);
  const input = inputType(route, names);
  const responses: Record<number, BodyKind> = {};
  const members: { status: number; type: string }[] = [];
  const streamTypes = new Set<string>();

  for (const { status, schema } of declaredResponses(route.responses)) {
    const kind = bodyKind(route, schema, ir);
    responses[status] = kind;
    if (isStreamResponse(schema)) streamTypes.add(schema.stream);
    const data =
      kind === 'empty' ? 'undefined' : kind === 'stream' ? 'StreamedBody' : `T.${names.response(status)}`;
    members.push({
      status,
      type: status < 400 ? `Success<${status}, ${data}>` : `Failure<${status}, ${data}>`,
    });
  }
  const errors: Record<number, string[]> = {};
  for (const group of routeErrorsByStatus(route, ir)) {
    const codes = group.errors.map((error) => error.code);
    errors[group.status] = codes;
    if (codes.includes('HTTP_VALIDATION'))
      members.push({ status: group.status, type: `Failure<${group.status}, ValidationError>` });
    const others = codes.filter((code) => code !== 'HTTP_VALIDATION');
    if (others.length > 0) {
      const union = others.map((code) => JSON.stringify(code)).join(' | ');
      members.push({ status: group.status, type: `Failure<${group.status}, ApiError<${union}>>` });
    }
  }

  const table = `{ ${[
    `method: ${JSON.stringify(route.method)}`,
    `path: ${JSON.stringify(route.path)}`,
    `parts: ${JSON.stringify(pathParts(route.path))}`,
    ...requestTable(route, streamTypes, ir),
    `responses: ${JSON.stringify(responses)}`,
    `errors: ${JSON.stringify(errors)}`,
  ].join(', ')} }`;
  return {
    id: route.id,
    doc: docComment(route),
    inputName: `${base}Input`,
    inputDeclaration:
      input.fields.length === 0
        ? `type ${base}Input = RequestOptions;`
        : `interface ${base}Input extends RequestOptions {\n${input.fields.join('\n')}\n}`,
    inputOptional: !input.required,
    responseName: `${base}Response`,
    // Stable sort: at one status, declared bodies come before the validation and coded error members.
    members: members.sort((a, b) => a.status - b.status).map((member) => member.type),
    table,
  };
}

/**
 * The path as the client builds it: literal segments as text, parameters as `{ param }`. Parsed here by the
 * one template rule, so the generated client never parses a path itself.
 */
function pathParts(path: string): (string | { param: string })[] {
  return parsePathTemplate(path).map((segment) => {
    if (segment.kind === 'literal') return segment.text;
    if (segment.kind === 'param') return { param: segment.name };
    throw new Error(`svc build: the client cannot address the wildcard route ${path}`);
  });
}

function inputType(
  route: RouteIR,
  names: ReturnType<typeof routeTypeNames>,
): { fields: string[]; required: boolean } {
  const fields: string[] = [];
  let required = false;
  if (route.params) {
    fields.push(`params: T.${names.params};`);
    required = true;
  }
  if (route.query) {
    const queryRequired = Array.isArray(route.query.required) && route.query.required.length > 0;
    fields.push(`query${queryRequired ? '' : '?'}: T.${names.query};`);
    required ||= queryRequired;
  }
  switch (route.body?.kind) {
    case 'json':
      fields.push(`body${route.body.required ? '' : '?'}: T.${names.body};`);
      required ||= route.body.required;
      break;
    case 'upload':
      fields.push(
        `body: UploadRequest${route.body.fields === undefined ? '' : `<T.${names.fields}>`} | FormData;`,
      );
      required = true;
      break;
    case 'raw':
      fields.push('body: RawBodyValue;', 'contentType?: string;');
      required = true;
      break;
  }
  return { fields, required };
}

/**
 * How the request is sent, beside method and path: the body's encoding (JSON when unset), a raw body's
 * default content type, an Accept header naming the streamed types a route answers with, and the header of
 * the idempotency key the client sends on a route with `meta.idempotency`.
 */
function requestTable(route: RouteIR, streamTypes: ReadonlySet<string>, ir: SpecIR): string[] {
  const entries: string[] = [];
  if (route.body?.kind === 'upload' || route.body?.kind === 'raw')
    entries.push(`body: ${JSON.stringify(route.body.kind)}`);
  // The first declared type, when it is one type and not a range, is what the route usually receives.
  const contentType = route.body?.kind === 'raw' ? route.body.contentTypes?.[0] : undefined;
  if (contentType !== undefined && !contentType.includes('*'))
    entries.push(`contentType: ${JSON.stringify(contentType)}`);
  if (streamTypes.size > 0)
    entries.push(`accept: ${JSON.stringify([...streamTypes, 'application/json'].join(', '))}`);
  if (routeIdempotency(route) !== undefined)
    entries.push(`idempotencyKey: ${JSON.stringify(idempotencyHeader(ir))}`);
  return entries;
}

/** What the body of a declared status must be for the client to accept it as that status. */
function bodyKind(route: RouteIR, schema: ResponseIR, ir: SpecIR): BodyKind {
  if (isStreamResponse(schema)) return 'stream';
  if (schema === null || route.method === 'HEAD') return 'empty';
  // A handler returning a string answers text/plain, so a string schema accepts a text body too.
  const resolved = resolveRootRef(schema, ir.resources);
  const type = typeof resolved === 'object' ? resolved.type : undefined;
  const allowsString = type === 'string' || (Array.isArray(type) && type.includes('string'));
  return allowsString ? 'json-or-text' : 'json';
}

function docComment(route: RouteIR): string {
  const lines = [`${route.method} ${route.path}${route.meta.summary ? `: ${route.meta.summary}` : ''}`];
  if (route.meta.description) lines.push('', ...route.meta.description.split('\n'));
  if (route.meta.deprecated === true) lines.push('@deprecated');
  if (lines.length === 1) return `/** ${commentText(lines[0] ?? '')} */`;
  return `/**\n${lines.map((line) => ` * ${commentText(line)}`.trimEnd()).join('\n')}\n */`;
}

/** Text safe inside a block comment. */
function commentText(text: string): string {
  return text.replace(/\*\//g, '*\\/');
}
