// `${VAR}` / `${VAR:-default}` references in spec string values. Shared by the loader (build time) and by
// whatever resolves the generated config at start, so both read a reference the same way. No dependencies.
import type { ConfigValue, TemplatePart } from './ir.js';

export interface TemplateSyntaxError {
  /** Index in the string where the bad reference starts. */
  index: number;
  message: string;
  hint: string;
}

export type ParsedTemplate =
  { ok: true; parts: TemplatePart[]; hasReference: boolean } | { ok: false; error: TemplateSyntaxError };

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Splits a string into literal text and references. `$${` is a literal `${`; `${NAME}` and `${NAME:-default}`
 * are references; anything else that starts with `${` is an error (`${}`, `${1X}`, `${X-y}`, unclosed).
 */
export function parseTemplate(text: string): ParsedTemplate {
  const parts: TemplatePart[] = [];
  let literal = '';
  let hasReference = false;
  let i = 0;
  while (i < text.length) {
    if (text.startsWith('$${', i)) {
      literal += '${';
      i += 3;
      continue;
    }
    if (!text.startsWith('${', i)) {
      literal += text[i];
      i += 1;
      continue;
    }
    const close = text.indexOf('}', i + 2);
    if (close < 0) {
      return fail(
        i,
        `unclosed reference '${text.slice(i, i + 20)}'`,
        'close it with } or write $${ for a literal ${',
      );
    }
    const body = text.slice(i + 2, close);
    const separator = body.indexOf(':-');
    const name = separator < 0 ? body : body.slice(0, separator);
    if (name === '')
      return fail(i, `empty reference '\${${body}}'`, 'name a variable: ${PORT} or ${PORT:-3000}');
    if (!NAME.test(name)) {
      return fail(
        i,
        `invalid variable name '${name}' in '\${${body}}'`,
        'variable names are letters, digits and _, not starting with a digit; defaults are written ${NAME:-default}',
      );
    }
    if (literal !== '') parts.push(literal);
    literal = '';
    parts.push(separator < 0 ? { env: name } : { env: name, default: body.slice(separator + 2) });
    hasReference = true;
    i = close + 1;
  }
  if (literal !== '') parts.push(literal);
  return { ok: true, parts, hasReference };
}

function fail(index: number, message: string, hint: string): ParsedTemplate {
  return { ok: false, error: { index, message, hint } };
}

export type Env = Record<string, string | undefined>;

/** Thrown by resolveTemplate when a reference without default names an unset variable. */
export class MissingEnvError extends Error {
  readonly variable: string;
  constructor(variable: string) {
    super(`environment variable ${variable} is not set`);
    this.name = 'MissingEnvError';
    this.variable = variable;
  }
}

/** Shell semantics: `:-` applies when the variable is unset or empty; `${X}` of an empty X is ''. */
export function resolveTemplate(parts: readonly TemplatePart[], env: Env): string {
  let out = '';
  for (const part of parts) {
    if (typeof part === 'string') {
      out += part;
      continue;
    }
    const value = env[part.env];
    if (part.default !== undefined && (value === undefined || value === '')) out += part.default;
    else if (value === undefined) throw new MissingEnvError(part.env);
    else out += value;
  }
  return out;
}

/**
 * Reads a substituted value the way YAML 1.2 (core schema) reads a plain scalar: `3000` is a number,
 * `true` a boolean, `null`/`~` null. Used when a value is exactly one reference at a key that takes more
 * than text. The empty string stays '' (so `${REDIS_URL:-}` means "no value given", never null).
 */
export function rereadScalar(text: string): string | number | boolean | null {
  if (text === '') return '';
  if (/^(?:null|Null|NULL|~)$/.test(text)) return null;
  if (/^(?:true|True|TRUE)$/.test(text)) return true;
  if (/^(?:false|False|FALSE)$/.test(text)) return false;
  if (/^[-+]?[0-9]+$/.test(text)) return Number(text);
  if (/^0o[0-7]+$/.test(text)) return parseInt(text.slice(2), 8);
  if (/^0x[0-9a-fA-F]+$/.test(text)) return parseInt(text.slice(2), 16);
  if (/^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/.test(text)) return Number(text);
  if (/^[-+]?\.(?:inf|Inf|INF)$/.test(text)) return text.startsWith('-') ? -Infinity : Infinity;
  if (/^\.(?:nan|NaN|NAN)$/.test(text)) return NaN;
  return text;
}

function isTemplate(value: ConfigValue): value is { $template: TemplatePart[]; reread?: boolean } {
  return (
    typeof value === 'object' && value !== null && !Array.isArray(value) && Array.isArray(value.$template)
  );
}

/** Resolves every `{ $template }` in a config value (the IR's `config`) against `env`. */
export function resolveConfig(value: ConfigValue, env: Env): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => resolveConfig(item, env));
  if (isTemplate(value)) {
    const text = resolveTemplate(value.$template, env);
    return value.reread ? rereadScalar(text) : text;
  }
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value as Record<string, ConfigValue>)) {
    Object.defineProperty(out, key, {
      value: resolveConfig(item, env),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}
