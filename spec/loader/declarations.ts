// The document's declarations other than routes: resources, error codes and custom meta keys.
import type { ErrorIR, MetaKeyIR, ResourceIR } from '../../shared/ir.js';
import { asMap, asString, entry, type LoadContext, type MetaKeyEntry, type Path } from './context.js';
import { toPlain, type MapNode, type Node } from './yaml-tree.js';
import { BUILT_IN_META_KEYS } from './meta.js';

/** Checks every resource schema (they may reference each other) and registers them for later references. */
export function loadResources(ctx: LoadContext, node: MapNode | undefined): ResourceIR[] {
  if (!node) return [];
  const valid = node.entries.filter((item) => /^[A-Z][A-Za-z0-9]*$/.test(item.key));
  ctx.resourceNames.push(...valid.map((item) => item.key));
  // Lint and meta-schema first for all, so a reference to a broken resource does not report twice.
  for (const item of valid) {
    const path = ['resources', item.key];
    const lint = ctx.linter.lint(item.value, path);
    let schema = lint.length === 0 ? toPlain(item.value) : undefined;
    ctx.report(lint);
    if (schema !== undefined) {
      const meta = ctx.compiler.metaCheck(schema as ResourceIR['schema'], { node: item.value, path });
      ctx.report(meta);
      if (meta.length > 0) schema = undefined;
    }
    ctx.resources.set(item.key, { node: item.value, schema: schema as ResourceIR['schema'] | undefined });
    ctx.compiler.addResource(item.key, schema as ResourceIR['schema'] | undefined, {
      node: item.value,
      path,
    });
  }
  reportReferenceCycles(ctx, valid);
  const resources: ResourceIR[] = [];
  for (const item of valid) {
    const resource = ctx.resources.get(item.key)!;
    if (resource.schema === undefined) continue;
    const compiled = ctx.compiler.compileResource(item.key);
    ctx.report(compiled);
    if (compiled.length > 0) resource.schema = undefined;
    else resources.push({ name: item.key, schema: resource.schema, loc: item.keyLoc });
  }
  return resources;
}

/** A resource that is only a `$ref` to a resource that is only a `$ref` back describes no value at all. */
function reportReferenceCycles(ctx: LoadContext, items: readonly { key: string; value: Node }[]): void {
  const target = (name: string): string | undefined => {
    const schema = ctx.resources.get(name)?.schema;
    if (typeof schema !== 'object' || Object.keys(schema).length !== 1 || typeof schema.$ref !== 'string')
      return undefined;
    return schema.$ref.slice('#/resources/'.length);
  };
  for (const item of items) {
    const chain = [item.key];
    for (
      let next = target(item.key);
      next !== undefined && chain.length <= items.length;
      next = target(next)
    ) {
      if (next === item.key) {
        const refNode = asMap(item.value)?.byKey.get('$ref')?.value ?? item.value;
        ctx.problems.add(
          refNode.loc,
          ['resources', item.key, '$ref'],
          `resource '${item.key}' is only a reference cycle (${[...chain, item.key].join(' → ')})`,
          `give ${item.key} a schema, e.g. { type: object, properties: ... }`,
        );
        ctx.resources.get(item.key)!.schema = undefined;
        break;
      }
      if (chain.includes(next)) break;
      chain.push(next);
    }
  }
}

/** The document's own error codes. `module` is 'app' for an application, else read from each entry. */
export function loadErrors(
  ctx: LoadContext,
  node: MapNode | undefined,
  module: string | undefined,
): ErrorIR[] {
  if (!node) return [];
  const errors: ErrorIR[] = [];
  for (const item of node.entries) {
    const fields = asMap(item.value);
    if (!fields) continue;
    if (ctx.catalog.has(item.key)) {
      const builtIn = ctx.catalog.get(item.key)!;
      ctx.problems.add(
        item.keyLoc,
        ['errors', item.key],
        `error code '${item.key}' is built into svckit (module ${builtIn.module}, status ${builtIn.status})`,
        `rename it, e.g. ${suggestRename(item.key)}, or delete the entry and list the built-in code in a route's errors:`,
      );
      continue;
    }
    const error = errorFromFields(item.key, fields, module);
    if (!error) continue;
    error.loc = item.keyLoc;
    const statuses = fields.byKey.get('statuses')?.value;
    if (statuses?.kind === 'seq' && error.statuses?.includes(error.status as number)) {
      const repeated = statuses.items[error.statuses.indexOf(error.status as number)] ?? statuses;
      ctx.problems.add(
        repeated.loc,
        ['errors', item.key, 'statuses'],
        `statuses repeats the main status ${error.status}`,
        `remove ${error.status} from statuses`,
      );
    }
    ctx.ownErrors.set(error.code, error);
    errors.push(error);
  }
  return errors;
}

/** An ErrorIR from a checked entry, or undefined when a field is missing (already reported). */
export function errorFromFields(
  code: string,
  fields: MapNode,
  module: string | undefined,
): ErrorIR | undefined {
  const status = plainOf(fields, 'status');
  const message = asString(entry(fields, 'message'));
  const owner = module ?? asString(entry(fields, 'module'));
  if ((typeof status !== 'number' && status !== 'boot') || message === undefined || owner === undefined)
    return undefined;
  const error: ErrorIR = { code, status, message, module: owner };
  const statuses = plainOf(fields, 'statuses');
  if (Array.isArray(statuses) && statuses.length > 0) error.statuses = statuses as number[];
  const description = asString(entry(fields, 'description'));
  if (description !== undefined) error.description = description;
  const hint = asString(entry(fields, 'hint'));
  if (hint !== undefined) error.hint = hint;
  return error;
}

function suggestRename(code: string): string {
  return `APP_${code}`;
}

/** Custom meta keys; each gets a value validator when it declares a schema. */
export function loadMetaKeys(ctx: LoadContext, node: MapNode | undefined): MetaKeyIR[] {
  if (!node) return [];
  const keys: MetaKeyIR[] = [];
  for (const item of node.entries) {
    const path: Path = ['metaKeys', item.key];
    const fields = asMap(item.value);
    if (!fields) continue;
    if (BUILT_IN_META_KEYS.includes(item.key) || item.key === 'operationId') {
      ctx.problems.add(
        item.keyLoc,
        path,
        `'${item.key}' is a built-in meta key`,
        `use meta.${item.key} as built in, or declare a custom key with another name`,
      );
      continue;
    }
    const schemaNode = entry(fields, 'schema');
    const schema = schemaNode === undefined ? true : ctx.checkSchema(schemaNode, [...path, 'schema']);
    if (schema === undefined) continue;
    const key: MetaKeyIR = {
      name: item.key,
      schema,
      guarded: plainOf(fields, 'guarded') === true,
    };
    const description = asString(entry(fields, 'description'));
    if (description !== undefined) key.description = description;
    const entryForRoutes: MetaKeyEntry = { ...key };
    if (schemaNode !== undefined) {
      const validate = ctx.compiler.validator(schema);
      entryForRoutes.validate = (value, valuePath) => validate(toPlain(value), value, valuePath, item.key);
    }
    ctx.metaKeys.set(item.key, entryForRoutes);
    keys.push(key);
  }
  return keys;
}

/** The plain value of a key of a mapping, or undefined when the key is absent. */
function plainOf(fields: MapNode, key: string): unknown {
  const node = entry(fields, key);
  return node === undefined ? undefined : toPlain(node);
}
