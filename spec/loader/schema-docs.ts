// Reading the published JSON Schemas: resolving `$ref`s across the two documents, what a schema accepts
// and how to say what it expects ("an integer", "one of GET, POST"). Used by the structure checker.
import { quoteList, TYPE_WORDS } from './describe.js';

export type SchemaObject = { [keyword: string]: unknown };
export type Schema = boolean | SchemaObject;

/** A schema together with the document it belongs to, so its `$ref`s resolve. */
export interface Located {
  schema: Schema;
  doc: string;
}

export class SchemaDocs {
  constructor(
    /** Schema documents by file name ('svc.schema.json'). */
    private readonly docs: ReadonlyMap<string, SchemaObject>,
    /** `<doc>#<pointer>` of definitions checked elsewhere. */
    private readonly delegated: ReadonlySet<string>,
    /** `<doc>#<pointer>` of definitions only editors need: anyOf branches that are just a `$ref` to one are
     *  skipped (the `${VAR}` branch: the loader checks the value a reference resolves to). */
    private readonly editorOnly: ReadonlySet<string>,
  ) {}

  isDelegated(key: string): boolean {
    return this.delegated.has(key);
  }

  resolve(ref: string, fromDoc: string): Located & { key: string } {
    const hash = ref.indexOf('#');
    const file = hash < 0 ? ref : ref.slice(0, hash);
    const pointer = hash < 0 ? '' : ref.slice(hash + 1);
    const doc = file === '' ? fromDoc : file;
    const root = this.docs.get(doc);
    const key = `${doc}#${pointer}`;
    // Anything outside our own documents (the JSON Schema meta-schema) accepts any schema here.
    if (!root) return { schema: true, doc, key };
    let current: unknown = root;
    for (const segment of pointer.split('/').slice(1)) {
      current = (current as SchemaObject | undefined)?.[segment.replace(/~1/g, '/').replace(/~0/g, '~')];
    }
    if (current === undefined) throw new Error(`svc schema: unresolved $ref ${ref}`);
    return { schema: current as Schema, doc, key };
  }

  withoutEditorOnly(branches: Schema[], doc: string): Schema[] {
    return branches.filter(
      (branch) =>
        !(
          typeof branch === 'object' &&
          typeof branch.$ref === 'string' &&
          this.editorOnly.has(this.resolve(branch.$ref, doc).key)
        ),
    );
  }

  /** Whether a value of these JSON types could satisfy the schema (ignoring everything but its type). */
  accepts(types: string[], located: Located): boolean {
    const { schema, doc } = located;
    if (typeof schema === 'boolean') return schema;
    if (typeof schema.$ref === 'string') {
      const target = this.resolve(schema.$ref, doc);
      if (!this.isDelegated(target.key) && !this.accepts(types, target)) return false;
    }
    if ('const' in schema) return types.includes(jsonType(schema.const));
    if (Array.isArray(schema.enum)) return schema.enum.some((value) => types.includes(jsonType(value)));
    if (schema.type !== undefined) {
      const wanted = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
      return wanted.some((type) => types.includes(type));
    }
    if (Array.isArray(schema.anyOf)) {
      const branches = this.withoutEditorOnly(schema.anyOf as Schema[], doc);
      return branches.some((branch) => this.accepts(types, { schema: branch, doc }));
    }
    return true;
  }

  example(located: Located): unknown {
    const { schema, doc } = located;
    if (typeof schema !== 'object') return undefined;
    if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
    if (typeof schema.$ref === 'string') return this.example(this.resolve(schema.$ref, doc));
    return undefined;
  }

  /** "an integer", "one of GET, POST", "a route id", "false or a list of scopes". */
  describe(located: Located): string {
    const { schema, doc } = located;
    if (schema === true) return 'any value';
    if (schema === false) return 'nothing';
    if (typeof schema.title === 'string') return schema.title;
    if (typeof schema.$ref === 'string') return this.describe(this.resolve(schema.$ref, doc));
    if ('const' in schema) return describeValue(schema.const);
    if (Array.isArray(schema.enum)) return `one of ${quoteList(schema.enum)}`;
    if (Array.isArray(schema.anyOf)) {
      const branches = this.withoutEditorOnly(schema.anyOf as Schema[], doc);
      return branches.map((branch) => this.describe({ schema: branch, doc })).join(' or ');
    }
    if (schema.type !== undefined) {
      const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
      return types.map((type) => TYPE_WORDS[type] ?? type).join(' or ');
    }
    return 'a value';
  }
}

export function describeValue(value: unknown): string {
  return typeof value === 'string' ? `'${value}'` : JSON.stringify(value);
}

export function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value === 'object' ? 'object' : typeof value;
}
