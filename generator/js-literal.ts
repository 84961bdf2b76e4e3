// Writes JSON-like data (route meta, config) as a JavaScript literal for generated source. prettier formats
// it afterwards; this only has to be correct. A `__proto__` key is written computed (`["__proto__"]: …`):
// in a literal, `__proto__: x` would set the object's prototype instead of a property.

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

export function toJsLiteral(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string' || typeof value === 'boolean') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (Number.isNaN(value)) return 'NaN';
    if (!Number.isFinite(value)) return value > 0 ? 'Infinity' : '-Infinity';
    return Object.is(value, -0) ? '-0' : String(value);
  }
  if (Array.isArray(value))
    return `[${value.map((item) => (item === undefined ? 'null' : toJsLiteral(item))).join(', ')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, item]) => item !== undefined);
    if (entries.length === 0) return '{}';
    return `{ ${entries.map(([key, item]) => `${propertyKey(key)}: ${toJsLiteral(item)}`).join(', ')} }`;
  }
  throw new TypeError(`cannot write a ${typeof value} into generated code`);
}

export function propertyKey(key: string): string {
  if (key === '__proto__') return '["__proto__"]';
  return IDENTIFIER.test(key) ? key : JSON.stringify(key);
}
