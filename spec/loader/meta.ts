// Route meta: the built-in keys (typed in svc.schema.json#/$defs/meta) and the custom keys the document
// declares under metaKeys. Anything else is a typo until proven otherwise, so it is an error.
import type { RouteMetaIR } from '../../shared/ir.js';
import { type LoadContext, type Path } from './context.js';
import { at, describeNode } from './describe.js';
import { publishedSchemas, SVC_SCHEMA } from './package-files.js';
import type { Schema, SchemaObject } from './structure.js';
import { closest } from './suggest.js';
import { getOwn, toPlain, type Node } from './yaml-tree.js';

const META_PROPERTIES = (
  (publishedSchemas().get(SVC_SCHEMA)!.$defs as Record<string, SchemaObject>).meta as SchemaObject
).properties as Record<string, Schema>;

/** Meta keys svc itself knows: those the framework reads (docs/http.md, "Route meta"), mfa, apiKey, account. */
export const BUILT_IN_META_KEYS: readonly string[] = Object.keys(META_PROPERTIES).filter(
  (key) => META_PROPERTIES[key] !== false,
);

export function loadMeta(ctx: LoadContext, routeId: string, node: Node | undefined, path: Path): RouteMetaIR {
  if (node === undefined) return {};
  if (node.kind !== 'map') {
    if (!(node.kind === 'scalar' && node.broken)) {
      ctx.problems.add(
        node.loc,
        path,
        `${at(path)}expected a mapping but got ${describeNode(node)}`,
        'write meta: { auth: true, summary: ... }',
      );
    }
    return {};
  }
  for (const item of node.entries) {
    const keyPath = [...path, item.key];
    const value = item.value;
    if (item.key === 'operationId') {
      ctx.problems.add(
        item.keyLoc,
        keyPath,
        `meta.operationId is not allowed: the route id '${routeId}' is the operationId`,
        `rename the route instead (its id becomes the operationId), and remove operationId`,
      );
      continue;
    }
    // A meta value of false is an opt-off and never flagged; its key must still be a known one,
    // or `atuh: false` would hide a typo.
    const optOff = value.kind === 'scalar' && value.value === false;
    const builtIn = getOwn(META_PROPERTIES, item.key);
    if (builtIn !== undefined) {
      if (!optOff) ctx.report(ctx.structure.checkWith(value, builtIn, SVC_SCHEMA, keyPath));
      continue;
    }
    const custom = ctx.metaKeys.get(item.key);
    if (custom) {
      if (custom.validate && !optOff) ctx.report(custom.validate(value, keyPath));
      continue;
    }
    const known = [...BUILT_IN_META_KEYS, ...ctx.metaKeys.keys()];
    const match = closest(item.key, known);
    ctx.problems.add(
      item.keyLoc,
      keyPath,
      `unknown key '${item.key}' in ${path.join('.')}`,
      match
        ? `did you mean '${match}'?`
        : `declare custom keys under metaKeys:, e.g. metaKeys: { ${item.key}: { schema: { type: boolean } } }`,
    );
  }
  return toPlain(node) as RouteMetaIR;
}
