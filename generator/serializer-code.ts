// Serializer plans → JavaScript. One function per distinct plan, `(value, key, toJsonDone) => string |
// undefined` (undefined: nothing to write, as JSON.stringify omits a function or undefined), sharing the
// helpers of SERIALIZER_HELPERS. Strings, numbers, booleans and null are written as JSON.stringify writes
// them; an object or array goes through its plan, so only declared (or allowed) properties are written.
import type { JsonSchema } from '../shared/ir.js';
import type { ArrayPlan, DatePart, Kind, ObjectPlan, Plan } from './serializer-plan.js';

/**
 * Shared by every serializer in the module. `$other` takes what a plan does not write natively: toJSON()
 * results (Date) and boxed primitives are written through the plan again, other primitives as JSON writes
 * them (they carry nothing undeclared), an object or array where the schema allows none is refused.
 */
export const SERIALIZER_HELPERS = String.raw`// Characters JSON.stringify escapes (and lone surrogates it writes as \u escapes).
const $ESCAPED = /[\u0000-\u001f"\\\ud800-\udfff]/;
function $str(s) {
  return $ESCAPED.test(s) ? JSON.stringify(s) : '"' + s + '"';
}
function $num(n) {
  return n === n && n !== Infinity && n !== -Infinity ? '' + n : 'null';
}
function $json(v, k, j) {
  if (j !== 1 && v !== null && typeof v === 'object' && typeof v.toJSON === 'function') v = v.toJSON('' + k);
  return JSON.stringify(v);
}
function $never() {
  return undefined;
}
function $plain(v, k, j) {
  const text = $json(v, k, j);
  return text === undefined ? undefined : JSON.parse(text);
}
function $refuse(v, what) {
  const kind = Array.isArray(v) ? 'an array' : 'an object';
  const error = new TypeError(kind + ' ' + what);
  error.code = 'RESPONSE_SCHEMA_MISMATCH';
  return error;
}
function $other(v, k, j, s) {
  switch (typeof v) {
    case 'string':
      return $str(v);
    case 'number':
      return $num(v);
    case 'boolean':
      return v ? 'true' : 'false';
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
    case 'bigint':
      if (j !== 1 && typeof v.toJSON === 'function') return s(v.toJSON('' + k), k, 1);
      return JSON.stringify(v);
  }
  if (v === null) return 'null';
  if (j !== 1 && typeof v.toJSON === 'function') return s(v.toJSON('' + k), k, 1);
  if (v instanceof Number || v instanceof String || v instanceof Boolean) return s(v.valueOf(), k, 1);
  throw $refuse(v, 'where the schema declares no ' + (Array.isArray(v) ? 'array' : 'object'));
}
// A Date in a date-time (0), date (1) or time (2) field; an invalid Date is null, as JSON.stringify writes it.
function $date(d, part) {
  const text = d.toJSON();
  if (typeof text !== 'string') return $other(text, '', 1, $json);
  if (part === 0) return '"' + text + '"';
  const t = text.indexOf('T');
  return '"' + (part === 1 ? text.slice(0, t) : text.slice(t + 1)) + '"';
}
function $root(text) {
  if (text === undefined) throw new TypeError('The handler returned a value JSON cannot represent.');
  return text;
}
`;

/** Names the validator function the code calls for a schema (strict, or ignoring undeclared properties). */
export type ValidatorNamer = (schema: JsonSchema, lenient: boolean) => string;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

const DATE_PART_CODES: Record<DatePart, number> = { 'date-time': 0, date: 1, time: 2 };

/** `v.name`, `v["odd-name"]`; `__proto__` only as an own property (reading it would return the prototype). */
function propertyRead(object: string, name: string): string {
  if (name === '__proto__')
    return `(Object.hasOwn(${object}, '__proto__') ? ${object}['__proto__'] : undefined)`;
  return IDENTIFIER.test(name) ? `${object}.${name}` : `${object}[${JSON.stringify(name)}]`;
}

/** A JS string literal holding the text `text`. */
function literal(text: string): string {
  return JSON.stringify(text);
}

export class SerializerCode {
  private readonly functions: string[] = [];
  private readonly names = new Map<string, string>();
  private readonly patterns = new Map<string, string>();

  constructor(
    private readonly targets: ReadonlyMap<string, Plan>,
    private readonly validatorFor: ValidatorNamer,
  ) {}

  /** Module-level declarations: pattern regexps, then the functions in the order they were made. */
  code(): string {
    const regexps = [...this.patterns].map(
      ([pattern, name]) => `const ${name} = new RegExp(${literal(pattern)}, 'u');`,
    );
    return [...regexps, ...this.functions].join('\n');
  }

  /** The name of the function writing `plan`, made on first use. */
  functionFor(plan: Plan): string {
    if (plan.type === 'any') return '$json';
    if (plan.type === 'never') return '$never';
    if (plan.type === 'ref') {
      const target = this.targets.get(plan.target);
      if (target === undefined) throw new Error(`serializer: unplanned reference ${plan.target}`);
      return this.functionFor(target);
    }
    const key = JSON.stringify(plan);
    const known = this.names.get(key);
    if (known !== undefined) return known;
    const name = `$s${this.names.size}`;
    // Named before its body is made: a resource that contains itself calls its own function.
    this.names.set(key, name);
    this.functions.push(this.functionBody(name, plan));
    return name;
  }

  private functionBody(name: string, plan: Exclude<Plan, { type: 'any' | 'never' | 'ref' }>): string {
    switch (plan.type) {
      case 'value':
        return this.valueFunction(name, plan);
      case 'union':
        return plan.byKind
          ? this.kindUnionFunction(name, plan, plan.byKind)
          : this.matchedUnionFunction(name, plan);
      case 'checked': {
        const valid = this.validatorFor(plan.schema, false);
        return [
          `function ${name}(v, k, j) {`,
          '  const plain = $plain(v, k, j);',
          "  if (plain === null || typeof plain !== 'object' || " +
            `${valid}(plain)) return JSON.stringify(plain);`,
          "  throw $refuse(plain, 'that does not match its schema');",
          '}',
        ].join('\n');
      }
    }
  }

  private valueFunction(name: string, plan: Extract<Plan, { type: 'value' }>): string {
    const kinds = new Set<Kind>(plan.kinds);
    const lines = [`function ${name}(v, k, j) {`];
    if (kinds.has('string')) lines.push("  if (typeof v === 'string') return $str(v);");
    if (kinds.has('number')) lines.push("  if (typeof v === 'number') return $num(v);");
    if (kinds.has('boolean')) lines.push("  if (typeof v === 'boolean') return v ? 'true' : 'false';");
    if (kinds.has('null')) lines.push("  if (v === null) return 'null';");
    if (plan.datePart !== undefined) {
      lines.push(`  if (v instanceof Date) return $date(v, ${DATE_PART_CODES[plan.datePart]});`);
    }
    const object = kinds.has('object') ? plan.object : undefined;
    const array = kinds.has('array') ? plan.array : undefined;
    if (object !== undefined || array !== undefined) {
      const noToJson = "(j === 1 || typeof v.toJSON !== 'function')";
      if (object !== undefined && array !== undefined) {
        lines.push(`  if (typeof v === 'object' && v !== null && ${noToJson}) {`);
        lines.push('    if (Array.isArray(v)) {', ...indent(this.arrayBody(array), 6), '    }');
        lines.push(...indent(this.objectBody(object), 4), '  }');
      } else if (object !== undefined) {
        lines.push(`  if (typeof v === 'object' && v !== null && !Array.isArray(v) && ${noToJson}) {`);
        lines.push(...indent(this.objectBody(object), 4), '  }');
      } else if (array !== undefined) {
        lines.push(`  if (Array.isArray(v) && ${noToJson}) {`, ...indent(this.arrayBody(array), 4), '  }');
      }
    }
    lines.push(`  return $other(v, k, j, ${name});`, '}');
    return lines.join('\n');
  }

  /** Statements writing object `v` and returning its JSON text. */
  private objectBody(object: ObjectPlan): string[] {
    const extras = object.additional !== false || object.patterns.length > 0;
    if (object.properties.length === 0 && object.patterns.length === 0 && object.additional !== false) {
      if (object.additional.type === 'any') return ['return JSON.stringify(v);'];
    }
    const lines = ["let json = '{';", 'let p;', 'let s;'];
    object.properties.forEach(({ name, plan }, index) => {
      const write = this.functionFor(plan);
      const key = `${JSON.stringify(name)}:`;
      // Nothing can precede the first declared property; later ones need a comma once something was written.
      const prefix =
        index === 0 ? literal(key) : `(json.length === 1 ? ${literal(key)} : ${literal(`,${key}`)})`;
      const fast = fastPath(plan, 'p');
      lines.push(`p = ${propertyRead('v', name)};`);
      if (fast?.kind === 'string') {
        // A string needing no escape is written between quotes, the opening one joined to the key.
        const quoted =
          index === 0
            ? literal(`${key}"`)
            : `(json.length === 1 ? ${literal(`${key}"`)} : ${literal(`,${key}"`)})`;
        lines.push(
          `if (${fast.test}) json += $ESCAPED.test(p) ? ${prefix} + JSON.stringify(p) : ${quoted} + p + '"';`,
        );
      } else if (fast !== undefined) lines.push(`if (${fast.test}) json += ${prefix} + ${fast.write};`);
      lines.push(
        `${fast === undefined ? '' : 'else '}if (p !== undefined && (s = ${write}(p, ${literal(name)}, 0)) !== undefined) json += ${prefix} + s;`,
      );
    });
    if (extras) lines.push(...this.extrasLoop(object));
    lines.push("return json + '}';");
    return lines;
  }

  /** Own enumerable properties the schema does not declare, where patternProperties or additionalProperties allow them. */
  private extrasLoop(object: ObjectPlan): string[] {
    const declared = object.properties.map(({ name }) => `key === ${literal(name)}`);
    const lines = [
      'for (const key in v) {',
      `  if (!Object.hasOwn(v, key)${declared.length > 0 ? ` || ${declared.join(' || ')}` : ''}) continue;`,
      '  p = v[key];',
      '  if (p === undefined) continue;',
    ];
    const branches: string[] = [];
    for (const { pattern, plan } of object.patterns) {
      const regexp = this.patternName(pattern);
      branches.push(`if (${regexp}.test(key)) s = ${this.functionFor(plan)}(p, key, 0);`);
    }
    if (object.additional === false) branches.push('continue;');
    else branches.push(`s = ${this.functionFor(object.additional)}(p, key, 0);`);
    lines.push(`  ${branches.join('\n  else ')}`);
    lines.push("  if (s !== undefined) json += (json.length === 1 ? '' : ',') + $str(key) + ':' + s;", '}');
    return lines;
  }

  /** Statements writing array `v` and returning its JSON text; items JSON cannot write become null. */
  private arrayBody(array: ArrayPlan): string[] {
    if (array.prefix.length === 0 && array.items !== false && array.items.type === 'any') {
      return ['return JSON.stringify(v);'];
    }
    const lines = ['const n = v.length;', "if (n === 0) return '[]';", "let json = '[';", 'let s;'];
    const prefix = array.prefix.length;
    array.prefix.forEach((plan, index) => {
      lines.push(
        `if (n > ${index}) {`,
        `  s = ${this.functionFor(plan)}(v[${index}], ${index}, 0);`,
        `  json += ${index === 0 ? '' : "',' + "}(s === undefined ? 'null' : s);`,
        '}',
      );
    });
    if (array.items !== false) {
      const write = this.functionFor(array.items);
      let from = prefix;
      const fast = fastPath(array.items, 'p');
      const item = (index: string) =>
        fast === undefined
          ? `s = ${write}(v[${index}], ${index}, 0);`
          : `p = v[${index}];\ns = ${fast.test} ? ${fast.write} : ${write}(p, ${index}, 0);`;
      if (fast !== undefined) lines.push('let p;');
      if (prefix === 0) {
        // The first item has no comma before it; the loop then needs no test for it.
        lines.push(item('0'), "json += s === undefined ? 'null' : s;");
        from = 1;
      }
      lines.push(
        `for (let i = ${from}; i < n; i++) {`,
        ...indent([item('i')], 2),
        "  json += s === undefined ? ',null' : ',' + s;",
        '}',
      );
    }
    lines.push("return json + ']';");
    return lines;
  }

  /** anyOf/oneOf whose branches take distinct kinds: the value's kind picks the branch. */
  private kindUnionFunction(
    name: string,
    plan: Extract<Plan, { type: 'union' }>,
    byKind: Partial<Record<Kind, number>>,
  ): string {
    const branch = (kind: Kind) => {
      const index = byKind[kind];
      const chosen = index === undefined ? undefined : plan.branches[index];
      return chosen === undefined ? undefined : this.functionFor(chosen.plan);
    };
    const tests: [Kind, string][] = [
      ['string', "typeof v === 'string'"],
      ['number', "typeof v === 'number'"],
      ['boolean', "typeof v === 'boolean'"],
      ['null', 'v === null'],
      ['array', 'Array.isArray(v)'],
      ['object', "typeof v === 'object' && v !== null"],
    ];
    const lines = [
      `function ${name}(v, k, j) {`,
      "  if (j !== 1 && v !== null && typeof v === 'object' && typeof v.toJSON === 'function') {",
      "    v = v.toJSON('' + k);",
      '    j = 1;',
      '  }',
    ];
    for (const [kind, test] of tests) {
      const write = branch(kind);
      if (write !== undefined) lines.push(`  if (${test}) return ${write}(v, k, j);`);
    }
    lines.push(`  return $other(v, k, j, ${name});`, '}');
    return lines.join('\n');
  }

  /**
   * anyOf/oneOf whose branches only validators tell apart: the value's JSON form is matched against each
   * branch strictly, then ignoring undeclared properties, and written by the first branch that matches.
   */
  private matchedUnionFunction(name: string, plan: Extract<Plan, { type: 'union' }>): string {
    const writers = plan.branches.map((branch) => this.functionFor(branch.plan));
    const strict = plan.branches.map((branch) => this.validatorFor(branch.schema, false));
    const lenient = plan.branches.map((branch) => this.validatorFor(branch.schema, true));
    const lines = [
      `function ${name}(v, k, j) {`,
      '  const plain = $plain(v, k, j);',
      "  if (plain === null || typeof plain !== 'object') return plain === undefined ? undefined : JSON.stringify(plain);",
    ];
    strict.forEach((valid, index) =>
      lines.push(`  if (${valid}(plain)) return ${writers[index]}(plain, k, 1);`),
    );
    lenient.forEach((valid, index) =>
      lines.push(`  if (${valid}(plain)) return ${writers[index]}(plain, k, 1);`),
    );
    lines.push("  throw $refuse(plain, 'that matches none of its schema branches');", '}');
    return lines.join('\n');
  }

  private patternName(pattern: string): string {
    let name = this.patterns.get(pattern);
    if (name === undefined) {
      name = `$pattern${this.patterns.size}`;
      this.patterns.set(pattern, name);
    }
    return name;
  }
}

/**
 * For a plan taking one primitive kind, the test and the text of its common case, written in place rather
 * than through the plan's function (which still takes every other value).
 */
function fastPath(
  plan: Plan,
  value: string,
): { kind: 'string' | 'number' | 'boolean'; test: string; write: string } | undefined {
  if (plan.type !== 'value') return undefined;
  const kinds = plan.kinds.filter((kind) => kind !== 'null');
  if (kinds.length !== 1) return undefined;
  switch (kinds[0]) {
    case 'string':
      return { kind: 'string', test: `typeof ${value} === 'string'`, write: `$str(${value})` };
    case 'number':
      return { kind: 'number', test: `typeof ${value} === 'number'`, write: `$num(${value})` };
    case 'boolean':
      return {
        kind: 'boolean',
        test: `typeof ${value} === 'boolean'`,
        write: `(${value} ? 'true' : 'false')`,
      };
    default:
      return undefined;
  }
}

function indent(lines: readonly string[], spaces: number): string[] {
  const pad = ' '.repeat(spaces);
  return lines.map((line) =>
    line
      .split('\n')
      .map((part) => pad + part)
      .join('\n'),
  );
}
