// The parts of a route that are bytes rather than JSON: `body: { upload: ... }` (multipart/form-data, read
// as a stream), `body: { raw: ... }` (the bytes as received) and streamed responses (`200: { stream: ... }`).
// Their shape (keys, required keys, counts) is checked against svc.schema.json; sizes, media types and the
// upload's fields schema are checked here, where the messages can say exactly what is wrong.
import {
  UPLOAD_FILES_PROPERTY,
  type JsonSchema,
  type JsonSchemaObject,
  type RawBodyIR,
  type StreamResponseIR,
  type UploadBodyIR,
  type UploadLimitsIR,
} from '../../shared/ir.js';
import { formatSize, parseSize, SIZE_FORMS, sizeUnitLike } from '../../shared/size.js';
import { asMap, entry, type LoadContext, type Path } from './context.js';
import { at, describeNode } from './describe.js';
import { SVC_SCHEMA } from './package-files.js';
import { loadSchemaOrResource } from './route-parts.js';
import type { MapNode, Node } from './yaml-tree.js';

/** Methods whose requests carry an upload or raw body (DELETE and OPTIONS bodies have no defined meaning). */
export const BINARY_BODY_METHODS: readonly string[] = ['POST', 'PUT', 'PATCH'];

// RFC 9110 token characters, without '*' (which only stands for a whole type or subtype).
const TOKEN = "[!#$%&'+.^_`|~0-9A-Za-z-]+";
const MEDIA_RANGE = new RegExp(`^(?:\\*/\\*|${TOKEN}/(?:\\*|${TOKEN}))$`);

/** `body: { upload: { maxBytes: 25MiB, maxFiles: 5, ... } }`. */
export function loadUploadWrapper(ctx: LoadContext, map: MapNode, path: Path): UploadBodyIR | undefined {
  const findings = ctx.structure.checkWith(map, schemaAt(ctx, 'uploadBody'), SVC_SCHEMA, path);
  ctx.report(findings);
  const options = asMap(entry(map, 'upload'));
  if (!options) return undefined;
  const where = [...path, 'upload'];
  let ok = findings.length === 0;
  const size = (key: keyof UploadLimitsIR): number | undefined => {
    const node = entry(options, key);
    if (node === undefined) return undefined;
    const bytes = checkSize(ctx, node, [...where, key]);
    if (bytes === undefined) ok = false;
    return bytes;
  };
  const count = (key: keyof UploadLimitsIR): number | undefined => {
    const node = entry(options, key);
    return node?.kind === 'scalar' && typeof node.value === 'number' ? node.value : undefined;
  };
  const limits: Partial<UploadLimitsIR> = {};
  const maxBytes = size('maxBytes');
  const maxFileBytes = size('maxFileBytes');
  const maxFieldBytes = size('maxFieldBytes');
  const maxHeaderBytes = size('maxHeaderBytes');
  for (const [key, value] of [
    ['maxBytes', maxBytes],
    ['maxFiles', count('maxFiles')],
    ['maxFileBytes', maxFileBytes],
    ['maxFields', count('maxFields')],
    ['maxFieldBytes', maxFieldBytes],
    ['maxHeaderBytes', maxHeaderBytes],
  ] as const) {
    if (value !== undefined) limits[key] = value;
  }
  for (const [key, value] of [
    ['maxFileBytes', maxFileBytes],
    ['maxFieldBytes', maxFieldBytes],
  ] as const) {
    if (value === undefined || maxBytes === undefined || value <= maxBytes) continue;
    ok = false;
    ctx.problems.add(
      entry(options, key)!.loc,
      [...where, key],
      `${at([...where, key])}${formatSize(value)} is more than maxBytes (${formatSize(maxBytes)}), so this limit can never apply`,
      `lower ${key} to at most maxBytes, or remove it`,
    );
  }
  const typesNode = entry(options, 'allowedTypes');
  if (typesNode !== undefined) {
    const types = mediaRanges(ctx, typesNode, [...where, 'allowedTypes']);
    if (types === undefined) ok = false;
    else limits.allowedTypes = types;
  }
  const fieldsNode = entry(options, 'fields');
  const fields =
    fieldsNode === undefined ? undefined : loadUploadFields(ctx, fieldsNode, [...where, 'fields']);
  if (fieldsNode !== undefined && fields === undefined) ok = false;
  if (!ok || limits.maxBytes === undefined || limits.maxFiles === undefined) return undefined;
  return { kind: 'upload', limits: limits as UploadLimitsIR, ...(fields !== undefined && { fields }) };
}

/** `body: { raw: {} }` or `body: { raw: { maxBytes: 1MiB, contentTypes: [application/json] } }`. */
export function loadRawWrapper(ctx: LoadContext, map: MapNode, path: Path): RawBodyIR | undefined {
  const findings = ctx.structure.checkWith(map, schemaAt(ctx, 'rawBody'), SVC_SCHEMA, path);
  ctx.report(findings);
  const options = asMap(entry(map, 'raw'));
  if (!options) return undefined;
  const where = [...path, 'raw'];
  let ok = findings.length === 0;
  const body: RawBodyIR = { kind: 'raw' };
  const sizeNode = entry(options, 'maxBytes');
  if (sizeNode !== undefined) {
    const bytes = checkSize(ctx, sizeNode, [...where, 'maxBytes']);
    if (bytes === undefined) ok = false;
    else body.maxBytes = bytes;
  }
  const typesNode = entry(options, 'contentTypes');
  if (typesNode !== undefined) {
    const types = mediaRanges(ctx, typesNode, [...where, 'contentTypes']);
    if (types === undefined) ok = false;
    else body.contentTypes = types;
  }
  return ok ? body : undefined;
}

/** `200: { stream: application/pdf }`: a streamed 2xx body of that media type. */
export function loadStreamResponse(
  ctx: LoadContext,
  map: MapNode,
  status: string,
  path: Path,
): StreamResponseIR | undefined {
  const findings = ctx.structure.checkWith(map, schemaAt(ctx, 'streamResponse'), SVC_SCHEMA, path);
  ctx.report(findings);
  const typeNode = entry(map, 'stream');
  const mediaType = typeNode === undefined ? undefined : mediaRange(ctx, typeNode, [...path, 'stream']);
  if (!status.startsWith('2')) {
    ctx.problems.add(
      map.byKey.get('stream')?.keyLoc ?? map.loc,
      path,
      `status ${status} cannot be streamed: only success (2xx) responses can`,
      `declare the stream under 200, and describe the ${status} body with a schema`,
    );
    return undefined;
  }
  return findings.length > 0 || mediaType === undefined ? undefined : { stream: mediaType };
}

/**
 * The fields schema of an upload: an object schema whose every property is a string schema, since
 * multipart text fields always arrive as text. Checked and compiled like any embedded schema.
 */
function loadUploadFields(ctx: LoadContext, node: Node, path: Path): JsonSchema | undefined {
  const schema = loadSchemaOrResource(ctx, node, path);
  if (schema === undefined) return undefined;
  const resolved = ctx.deref(schema);
  if (resolved === undefined) return undefined; // a broken resource, already reported
  if (typeof resolved !== 'object' || resolved.type !== 'object') {
    ctx.problems.add(
      node.loc,
      path,
      `${at(path)}the upload's fields must be an object schema`,
      'write fields: { type: object, properties: { title: { type: string } } }',
    );
    return undefined;
  }
  let ok = true;
  const properties = (resolved.properties ?? {}) as Record<string, JsonSchema>;
  for (const [name, property] of Object.entries(properties)) {
    // Located in the spec only when the fields are written inline; a resource is reported where it is used.
    const loc = asMap(entry(asMap(node), 'properties'))?.byKey.get(name)?.keyLoc ?? node.loc;
    const propertyPath = [...path, 'properties', name];
    if (name === UPLOAD_FILES_PROPERTY) {
      ok = false;
      ctx.problems.add(
        loc,
        propertyPath,
        `upload field '${name}' is reserved: openapi.json documents the file parts under '${name}'`,
        'rename the text field',
      );
      continue;
    }
    const type = (ctx.deref(property) as JsonSchemaObject | boolean | undefined) ?? {};
    if (typeof type !== 'object' || type.type !== 'string') {
      ok = false;
      ctx.problems.add(
        loc,
        propertyPath,
        `upload field '${name}' must be a string schema: multipart text fields always arrive as text`,
        `write ${name}: { type: string }, with a pattern or enum for the values you accept`,
      );
    }
  }
  return ok ? schema : undefined;
}

/** A size in bytes (an integer, or `25MiB`/`10MB`), at least one byte; reports what was written otherwise. */
function checkSize(ctx: LoadContext, node: Node, path: Path): number | undefined {
  if (node.kind === 'scalar' && node.broken) return undefined;
  const key = String(path[path.length - 1]);
  const bytes = node.kind === 'scalar' ? parseSize(node.value) : undefined;
  if (bytes === 0) {
    ctx.problems.add(
      node.loc,
      path,
      `${at(path)}expected a size of at least 1 byte but got 0`,
      'write a size of at least one byte, e.g. 64KiB',
    );
    return undefined;
  }
  if (bytes !== undefined) return bytes;
  const unit =
    node.kind === 'scalar' && typeof node.value === 'string' ? sizeUnitLike(node.value) : undefined;
  const number = node.kind === 'scalar' ? /^[0-9.]+/.exec(String(node.value))?.[0] : undefined;
  ctx.problems.add(
    node.loc,
    path,
    `${at(path)}expected ${SIZE_FORMS} but got ${describeNode(node)}`,
    unit !== undefined && number !== undefined
      ? `units are case-sensitive: write ${key}: ${number}${unit}`
      : `write e.g. ${key}: 25MiB (1024-based units KiB, MiB, GiB; 1000-based KB, MB, GB; or plain bytes)`,
  );
  return undefined;
}

/** A list of media types; each lower-cased (media types ignore case), none twice. */
function mediaRanges(ctx: LoadContext, node: Node, path: Path): string[] | undefined {
  if (node.kind !== 'seq') return undefined; // reported by the structure check
  const types: string[] = [];
  let ok = node.items.length > 0;
  node.items.forEach((item, index) => {
    const type = mediaRange(ctx, item, [...path, index]);
    if (type === undefined) ok = false;
    else if (types.includes(type)) {
      ok = false;
      // Written identically it is already reported as listed twice; this catches `image/png` beside `Image/PNG`.
      if (item.kind === 'scalar' && item.value !== type) {
        ctx.problems.add(
          item.loc,
          [...path, index],
          `${at(path)}'${String(item.value)}' is listed twice (media types ignore case)`,
          `remove the repeated '${String(item.value)}'`,
        );
      }
    } else types.push(type);
  });
  return ok ? types : undefined;
}

/** `image/png`, `image/*` or `*\/*`, lower-cased. */
function mediaRange(ctx: LoadContext, node: Node, path: Path): string | undefined {
  if (node.kind === 'scalar' && node.broken) return undefined;
  if (node.kind === 'scalar' && typeof node.value === 'string' && MEDIA_RANGE.test(node.value))
    return node.value.toLowerCase();
  const written = node.kind === 'scalar' && typeof node.value === 'string' ? node.value : undefined;
  const base = written?.split(';', 1)[0]?.trim();
  ctx.problems.add(
    node.loc,
    path,
    written === undefined
      ? `${at(path)}expected a media type but got ${describeNode(node)}`
      : `${at(path)}'${written}' is not a media type`,
    written?.includes(';') && base !== undefined && MEDIA_RANGE.test(base)
      ? `write it without parameters: ${base}`
      : 'write a media type such as image/png, or a range such as image/*',
  );
  return undefined;
}

function schemaAt(ctx: LoadContext, name: string) {
  return ctx.structure.schemaAt(SVC_SCHEMA, `/$defs/${name}`);
}
