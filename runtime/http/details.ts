// Public error details: only plain data leaves the process. Dates become ISO
// strings; functions, symbols, undefined, BigInt, NaN, ±Infinity, errors, maps, sets, regular expressions,
// typed arrays and class instances are stripped (a dropped array element becomes null); a `__proto__` key is
// never copied; cycles are dropped where they close; nesting deeper than MAX_ERROR_DETAILS_DEPTH is dropped;
// a payload whose JSON is over MAX_ERROR_DETAILS_BYTES is dropped whole. The envelope types `details` as an
// object, so a top-level value that is not a plain object (a string, a number, an array) is not sent either.

export const MAX_ERROR_DETAILS_DEPTH = 8;
export const MAX_ERROR_DETAILS_BYTES = 4096;

/** Plain JSON data, as details are sent. */
export type DetailsValue =
  string | number | boolean | null | DetailsValue[] | { [key: string]: DetailsValue };

/** What `details` is in an error answer: a plain JSON object. */
export type DetailsObject = { [key: string]: DetailsValue };

const DROP = Symbol('drop');
type Sanitised = DetailsValue | typeof DROP;

/**
 * Every kept value serialises to at least one byte, so once more values than MAX_ERROR_DETAILS_BYTES were kept
 * the payload is over the limit: the walk stops there instead of copying a huge (or exponentially shared) graph.
 */
class TooLarge extends Error {}

interface Walk {
  ancestors: Set<object>;
  kept: number;
}

function isPlainObject(value: object): boolean {
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function sanitise(value: unknown, depth: number, walk: Walk): Sanitised {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return count(walk, value);
    case 'number':
      return Number.isFinite(value) ? count(walk, value) : DROP;
    case 'object':
      break;
    default:
      return DROP; // undefined, function, symbol, bigint
  }
  if (value === null) return count(walk, null);
  if (value instanceof Date) {
    const time = value.getTime();
    return Number.isNaN(time) ? DROP : count(walk, value.toISOString());
  }
  // A container at this depth is one level deeper than its parent; beyond the limit it is dropped.
  if (depth > MAX_ERROR_DETAILS_DEPTH) return DROP;
  if (walk.ancestors.has(value)) return DROP; // the reference closes a cycle
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) return DROP;
    walk.ancestors.add(value);
    const copy: DetailsValue[] = [];
    for (let i = 0; i < value.length; i++) {
      const item = sanitise(ownValue(value, String(i)), depth + 1, walk);
      copy.push(item === DROP ? count(walk, null) : item);
    }
    walk.ancestors.delete(value);
    return count(walk, copy);
  }
  if (!isPlainObject(value)) return DROP; // maps, sets, regexps, errors, typed arrays, class instances
  walk.ancestors.add(value);
  const copy: { [key: string]: DetailsValue } = {};
  for (const key of Object.keys(value)) {
    if (key === '__proto__') continue;
    const item = sanitise(ownValue(value, key), depth + 1, walk);
    if (item !== DROP) copy[key] = item;
  }
  walk.ancestors.delete(value);
  return count(walk, copy);
}

/** A data property's value; accessors are not invoked (details are data, and getters may throw). */
function ownValue(target: object, key: string): unknown {
  const descriptor = Object.getOwnPropertyDescriptor(target, key);
  return descriptor !== undefined && 'value' in descriptor ? (descriptor.value as unknown) : undefined;
}

function count<T extends DetailsValue>(walk: Walk, value: T): T {
  walk.kept += 1;
  if (walk.kept > MAX_ERROR_DETAILS_BYTES) throw new TooLarge();
  return value;
}

/** The sanitised copy of `details` (a plain object at the top), or undefined when nothing may be sent. */
export function sanitizeDetails(details: unknown): DetailsObject | undefined {
  if (details === undefined) return undefined;
  try {
    const result = sanitise(details, 1, { ancestors: new Set(), kept: 0 });
    // Checked on the copy: a Date at the top, for one, becomes a string.
    return result !== null && typeof result === 'object' && !Array.isArray(result) ? result : undefined;
  } catch {
    // TooLarge, or a proxy whose traps throw: nothing is sent rather than half a payload.
    return undefined;
  }
}

/** True when the JSON of `details` fits MAX_ERROR_DETAILS_BYTES (UTF-8 bytes). */
export function detailsFit(details: DetailsValue): boolean {
  const json = JSON.stringify(details);
  // Cheap bound first: a string of n UTF-16 units is at most 3n UTF-8 bytes.
  if (json.length * 3 <= MAX_ERROR_DETAILS_BYTES) return true;
  return Buffer.byteLength(json, 'utf8') <= MAX_ERROR_DETAILS_BYTES;
}
