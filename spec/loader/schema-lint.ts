// Walks an embedded JSON Schema as written in YAML and reports the mistakes people actually make, at the
// keyword's own position: unknown keywords (with did-you-mean), bad `type` names, unknown `format`s,
// invalid regular expressions, `$ref`s that are not `#/resources/<Name>`, required names with no property.
// What is left (wrong keyword value types, strict-mode rules) is checked by ajv afterwards (schema-ajv.ts).
import { RESOURCE_REF_PREFIX } from '../../shared/ir.js';
import { metaAjv } from './schema-ajv.js';
import { at, describeNode } from './describe.js';
import type { Finding } from './structure.js';
import { closest, suggestionHint } from './suggest.js';
import { SUBSCHEMA_LISTS, SUBSCHEMA_MAPS, SUBSCHEMA_SINGLES } from './subschema-keywords.js';
import { getOwn, type MapNode, type Node } from './yaml-tree.js';

type Path = (string | number)[];

const VALUE_KEYWORDS = [
  'type',
  'const',
  'enum',
  'multipleOf',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'maxContains',
  'minContains',
  'maxProperties',
  'minProperties',
  'required',
  'dependentRequired',
  'format',
  'contentEncoding',
  'contentMediaType',
  'discriminator',
];
export const ANNOTATION_KEYWORDS = [
  'title',
  'description',
  'default',
  'deprecated',
  'readOnly',
  'writeOnly',
  'examples',
  'example',
  '$comment',
  'x-hint',
];
export const SCHEMA_KEYWORDS = [
  ...SUBSCHEMA_MAPS,
  ...SUBSCHEMA_SINGLES,
  ...SUBSCHEMA_LISTS,
  ...VALUE_KEYWORDS,
  ...ANNOTATION_KEYWORDS,
  '$ref',
];

const REF_HINT = "reference a resource with $ref: '#/resources/<Name>'";
/** Keywords of the 2020-12 core that would break svc's one-document model of resources. */
const REFUSED: Record<string, string> = {
  $id: `schemas get their ids from svc; remove $id and ${REF_HINT}`,
  $schema: 'embedded schemas are always JSON Schema 2020-12; remove $schema',
  $anchor: `anchors are not supported; ${REF_HINT}`,
  $dynamicRef: `dynamic references are not supported; ${REF_HINT}`,
  $dynamicAnchor: `dynamic references are not supported; ${REF_HINT}`,
  $vocabulary: 'remove $vocabulary; svc uses the 2020-12 vocabulary',
  $defs: "declare shared schemas under resources: and reference them with $ref: '#/resources/<Name>'",
  definitions: "declare shared schemas under resources: and reference them with $ref: '#/resources/<Name>'",
};
const SPECIAL_UNKNOWN: Record<string, string> = {
  nullable: "nullable is OpenAPI 3.0; write type: [string, 'null'] instead",
  optional: 'properties are optional unless listed in required: [...] of the object schema; remove optional',
  schema: 'a JSON body with options is written body: { json: <schema>, required: false }',
};

export const JSON_TYPES = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'];
const TYPE_ALIASES: Record<string, string> = {
  int: 'write type: integer',
  bool: 'write type: boolean',
  float: 'write type: number',
  double: 'write type: number',
  decimal: 'write type: number',
  str: 'write type: string',
  text: 'write type: string',
  list: 'write type: array',
  map: 'write type: object',
  dict: 'write type: object',
  date: 'write type: string, format: date',
  datetime: 'write type: string, format: date-time',
  'date-time': 'write type: string, format: date-time',
  uuid: 'write type: string, format: uuid',
  email: 'write type: string, format: email',
};

let knownFormats: string[] | undefined;
/** The formats ajv-formats knows (what `format:` accepts). */
export function formatNames(): string[] {
  knownFormats ??= Object.keys(metaAjv().formats);
  return knownFormats;
}

export class SchemaLinter {
  constructor(private readonly resourceNames: readonly string[]) {}

  lint(node: Node, path: Path): Finding[] {
    const findings: Finding[] = [];
    this.walk(node, path, false, findings);
    return findings;
  }

  private walk(node: Node, path: Path, inCombinator: boolean, out: Finding[]): void {
    if (node.kind === 'scalar') {
      if (typeof node.value === 'boolean' || node.broken) return;
      out.push({
        loc: node.loc,
        path,
        message: `${at(path)}expected a schema (a mapping, true or false) but got ${describeNode(node)}`,
        hint:
          typeof node.value === 'string' && /^[A-Z]/.test(node.value)
            ? `write $ref: '${RESOURCE_REF_PREFIX}${node.value}'`
            : 'write a schema, e.g. { type: string }',
      });
      return;
    }
    if (node.kind === 'seq') {
      out.push({
        loc: node.loc,
        path,
        message: `${at(path)}expected a schema (a mapping) but got a list`,
        hint: 'write a schema, e.g. { type: array, items: { type: string } }',
      });
      return;
    }
    for (const entry of node.entries) {
      const keyword = entry.key;
      const keywordPath = [...path, keyword];
      const value = entry.value;
      if (Object.hasOwn(REFUSED, keyword)) {
        out.push({
          loc: entry.keyLoc,
          path: keywordPath,
          message: `${at(path)}'${keyword}' is not supported in svc schemas`,
          hint: getOwn(REFUSED, keyword),
        });
      } else if (!SCHEMA_KEYWORDS.includes(keyword)) {
        out.push({
          loc: entry.keyLoc,
          path: keywordPath,
          message: `unknown schema keyword '${keyword}'${path.length ? ` in ${path.join('.')}` : ''}`,
          hint: this.unknownHint(keyword, value, node),
        });
      } else if (SUBSCHEMA_MAPS.includes(keyword) && value.kind === 'map') {
        for (const child of value.entries) {
          if (keyword === 'patternProperties')
            this.regex(child.key, child.keyLoc, [...keywordPath, child.key], out);
          this.walk(child.value, [...keywordPath, child.key], keyword === 'dependentSchemas', out);
        }
      } else if (SUBSCHEMA_SINGLES.includes(keyword)) {
        if (value.kind !== 'seq')
          this.walk(value, keywordPath, ['not', 'if', 'then', 'else'].includes(keyword), out);
      } else if (SUBSCHEMA_LISTS.includes(keyword) && value.kind === 'seq') {
        value.items.forEach((item, index) =>
          this.walk(item, [...keywordPath, index], keyword !== 'prefixItems', out),
        );
      } else if (keyword === 'type') this.type(value, keywordPath, out);
      else if (keyword === 'format') this.format(value, keywordPath, out);
      else if (keyword === 'pattern' && value.kind === 'scalar' && typeof value.value === 'string') {
        this.regex(value.value, value.loc, keywordPath, out);
      } else if (keyword === '$ref') this.ref(value, keywordPath, out);
      else if (keyword === 'required' && value.kind === 'scalar' && typeof value.value === 'boolean') {
        out.push({
          loc: value.loc,
          path: keywordPath,
          message: `${at(keywordPath)}expected a list of property names but got ${value.value}`,
          hint:
            path[path.length - 1] === 'body'
              ? 'an optional body is written body: { json: <schema>, required: false }'
              : 'list required properties on the object schema: required: [name] (query parameters: use the full form)',
        });
      }
    }
    if (!inCombinator) this.requiredDeclared(node, path, out);
  }

  private unknownHint(keyword: string, value: Node, parent: MapNode): string {
    const special = getOwn(SPECIAL_UNKNOWN, keyword);
    if (special !== undefined) return special;
    if (keyword.startsWith('x-')) return 'x-hint is the only supported x- keyword; remove it';
    const match = closest(keyword, SCHEMA_KEYWORDS);
    if (match) return `did you mean '${match}'?`;
    if (value.kind === 'map' && !parent.byKey.has('properties')) {
      return `properties of an object go under properties:, e.g. properties: { ${keyword}: { type: string } }`;
    }
    return suggestionHint(keyword, [], '');
  }

  private type(value: Node, path: Path, out: Finding[]): void {
    const items = value.kind === 'seq' ? value.items : [value];
    for (const item of items) {
      if (item.kind !== 'scalar' || typeof item.value !== 'string') continue; // ajv reports the shape
      const name = item.value;
      if (JSON_TYPES.includes(name)) continue;
      const alias = getOwn(TYPE_ALIASES, name.toLowerCase());
      const hint = alias ?? suggestionHint(name, JSON_TYPES, 'types are');
      out.push({ loc: item.loc, path, message: `${at(path)}unknown type '${name}'`, hint });
    }
  }

  private format(value: Node, path: Path, out: Finding[]): void {
    if (value.kind !== 'scalar' || typeof value.value !== 'string') return;
    const formats = formatNames();
    if (formats.includes(value.value)) return;
    out.push({
      loc: value.loc,
      path,
      message: `${at(path)}unknown format '${value.value}'`,
      hint: suggestionHint(value.value, formats, 'known formats'),
    });
  }

  private regex(source: string, loc: Finding['loc'], path: Path, out: Finding[]): void {
    try {
      new RegExp(source, 'u');
    } catch (error) {
      const reason = (error as Error).message.replace(/^Invalid regular expression: /, '');
      out.push({
        loc,
        path,
        message: `${at(path)}invalid regular expression: ${reason}`,
        hint: 'patterns are JavaScript regular expressions with the u flag; escape special characters with \\',
      });
    }
  }

  private ref(value: Node, path: Path, out: Finding[]): void {
    if (value.kind !== 'scalar' || typeof value.value !== 'string') return;
    const ref = value.value;
    const found = checkResourceRef(ref, this.resourceNames);
    if (found) out.push({ loc: value.loc, path, ...found });
  }

  /** ajv (strictRequired) refuses `required` names the object does not declare; say which one, where. */
  private requiredDeclared(node: MapNode, path: Path, out: Finding[]): void {
    const required = node.byKey.get('required')?.value;
    if (!required || required.kind !== 'seq') return;
    const combined = ['allOf', 'anyOf', 'oneOf', 'if', 'then', 'else', 'dependentSchemas', '$ref', 'not'];
    if (combined.some((keyword) => node.byKey.has(keyword))) return;
    const properties = node.byKey.get('properties')?.value;
    const declared = properties?.kind === 'map' ? [...properties.byKey.keys()] : [];
    if (properties && properties.kind !== 'map') return;
    required.items.forEach((item, index) => {
      if (item.kind !== 'scalar' || typeof item.value !== 'string' || declared.includes(item.value)) return;
      const match = closest(item.value, declared);
      out.push({
        loc: item.loc,
        path: [...path, 'required', index],
        message: `${at([...path, 'required'])}required property '${item.value}' is not declared in properties`,
        hint: match
          ? `did you mean '${match}'?`
          : `add ${item.value} under properties, or remove it from required`,
      });
    });
  }
}

/** Problems of a `$ref` value, or undefined when it names an existing resource. */
export function checkResourceRef(
  ref: string,
  resourceNames: readonly string[],
): { message: string; hint: string } | undefined {
  if (ref.startsWith(RESOURCE_REF_PREFIX)) {
    const name = ref.slice(RESOURCE_REF_PREFIX.length);
    if (resourceNames.includes(name)) return undefined;
    if (/^[A-Z][A-Za-z0-9]*$/.test(name)) {
      const match = closest(name, resourceNames);
      return {
        message: `unknown resource '${name}' in $ref`,
        hint: match
          ? `did you mean '${RESOURCE_REF_PREFIX}${match}'?`
          : `declare ${name} under resources:, or reference one of: ${resourceNames.join(', ') || '(none declared)'}`,
      };
    }
  }
  const last = ref.split('/').pop() ?? '';
  const rewrite = resourceNames.includes(last)
    ? `write $ref: '${RESOURCE_REF_PREFIX}${last}'`
    : `copy the schema under resources: and write $ref: '${RESOURCE_REF_PREFIX}<Name>'`;
  if (/^[a-z][a-z0-9+.-]*:/i.test(ref)) {
    return { message: `remote $ref '${ref}' is not allowed (svc never fetches schemas)`, hint: rewrite };
  }
  if (!ref.startsWith('#')) {
    return { message: `file $ref '${ref}' is not allowed; references are local to this spec`, hint: rewrite };
  }
  return {
    message: `$ref '${ref}' is not supported; only '${RESOURCE_REF_PREFIX}<Name>' references are`,
    hint: rewrite,
  };
}
