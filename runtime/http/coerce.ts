// Strict text-to-type coercion of query and path values, driven by a CoercionPlan computed at boot. A value
// that does not parse exactly stays text, so validation reports it: "0x10", " 5 ", "1e3" and "" are not
// integers; "Infinity" is not a number; only "true" and "false" are booleans.
import type { CoercionPlan, FieldCoercion, ScalarCoercion } from './types.js';

const INTEGER = /^-?(0|[1-9][0-9]*)$/;
const NUMBER = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;

/** One text value parsed to the scalar its schema asks for, or the text unchanged when it does not parse. */
export function coerceScalar(text: string, to: ScalarCoercion): unknown {
  switch (to) {
    case 'integer': {
      if (!INTEGER.test(text)) return text;
      const value = Number(text);
      return Number.isSafeInteger(value) ? value : text;
    }
    case 'number': {
      if (!NUMBER.test(text)) return text;
      const value = Number(text);
      return Number.isFinite(value) ? value : text;
    }
    case 'boolean':
      return text === 'true' ? true : text === 'false' ? false : text;
    case 'null':
      return text === '' ? null : text;
    default:
      return text;
  }
}

/** A raw field (text, or an array of texts for a repeated query key) coerced by its plan entry. */
export function coerceField(raw: unknown, plan: FieldCoercion): unknown {
  if (typeof plan === 'string') {
    // A repeated key on a scalar field stays an array: validation answers "must be integer" for it.
    return typeof raw === 'string' ? coerceScalar(raw, plan) : raw;
  }
  if (typeof raw === 'string') return [coerceScalar(raw, plan.items)];
  if (Array.isArray(raw))
    return raw.map((item) => (typeof item === 'string' ? coerceScalar(item, plan.items) : item));
  return raw;
}

/**
 * A fresh null-prototype copy of `raw` with every planned field coerced. The raw map is never changed, so the
 * neutral request keeps what the client sent while validation (which may add defaults) works on the copy.
 */
export function coerceFields(
  raw: Readonly<Record<string, unknown>>,
  plan: CoercionPlan | undefined,
): Record<string, unknown> {
  const result: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const key in raw) {
    const value = raw[key];
    const field = plan === undefined ? undefined : Object.hasOwn(plan, key) ? plan[key] : undefined;
    result[key] = field === undefined ? value : coerceField(value, field);
  }
  return result;
}
