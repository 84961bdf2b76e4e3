// Reading the spec's runtime settings (`server`, `stores`, `modules`) at build time, where `${VAR}` references
// are still unresolved: a generator may only use what the spec writes literally.
import type { ConfigValue } from '../shared/ir.js';

/** A config mapping, or undefined for scalars, lists and unresolved `${VAR}` templates. */
export function configMap(
  value: ConfigValue | undefined,
): { [key: string]: ConfigValue | undefined } | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || '$template' in value)
    return undefined;
  return value as { [key: string]: ConfigValue };
}
