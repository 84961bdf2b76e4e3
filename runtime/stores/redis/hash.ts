// Records kept as Redis hashes, one hash field per record field: numbers in decimal, string arrays as JSON, an
// unset optional field left out. Each store names its fields once (a HashLayout); scripts write the pairs
// `args` gives as they come (put_record in script.ts), so no field position has to agree between TS and Lua.
import type { ScriptArg } from './script.js';

type FieldType<V> = V extends number ? 'number' : V extends readonly string[] ? 'json' : 'string';

/** Every field of `T` with its type; an optional one ends in '?'. */
export type HashLayout<T> = {
  readonly [K in keyof T]-?: undefined extends T[K]
    ? `${FieldType<Exclude<T[K], undefined>>}?`
    : FieldType<T[K]>;
};

export class HashRecord<T extends object> {
  private readonly fields: readonly (readonly [string, string])[];

  constructor(layout: HashLayout<T>) {
    this.fields = Object.entries(layout);
  }

  /** `record` as HSET arguments: field, value, … */
  args(record: T): ScriptArg[] {
    const args: ScriptArg[] = [];
    for (const [field, type] of this.fields) {
      const value = (record as Record<string, unknown>)[field];
      if (value === undefined) continue;
      args.push(field, type.startsWith('json') ? JSON.stringify(value) : (value as ScriptArg));
    }
    return args;
  }

  /** The record in an HGETALL reply; undefined when a required field is missing (no such key). */
  read(hash: Readonly<Record<string, string>>): T | undefined {
    const record: Record<string, unknown> = {};
    for (const [field, type] of this.fields) {
      const value = hash[field];
      if (value === undefined) {
        if (!type.endsWith('?')) return undefined;
      } else if (type.startsWith('number')) {
        record[field] = Number(value);
      } else {
        record[field] = type.startsWith('json') ? JSON.parse(value) : value;
      }
    }
    return record as T;
  }

  /** The record in a script's HGETALL reply (a flat array of fields and values); undefined for nil. */
  readReply(reply: unknown): T | undefined {
    if (reply === null) return undefined;
    const pairs = arrayReply(reply);
    const hash: Record<string, string> = {};
    for (let i = 0; i + 1 < pairs.length; i += 2) hash[String(pairs[i])] = String(pairs[i + 1]);
    return this.read(hash);
  }
}

/** A script's array reply as an array (anything else is a bug in the script). */
export function arrayReply(reply: unknown): unknown[] {
  if (!Array.isArray(reply)) throw new TypeError(`Unexpected Redis reply: ${String(reply)}`);
  return reply as unknown[];
}
