// Resolves the `${VAR}` / `${VAR:-default}` references the spec left in its runtime settings (server,
// stores, modules) against the process environment at start, with the loader's own rules
// (shared/env-template.ts), and remembers where every resolved value came from for error messages.
import type { ConfigValue, TemplatePart } from '../../shared/ir.js';
import { MissingEnvError, rereadScalar, resolveTemplate, type Env } from '../../shared/env-template.js';

export type { ConfigValue, Env };

export interface ConfigProblem {
  /** Dot-joined option path, e.g. 'server.port'. */
  option: string;
  message: string;
  /** Where the value came from: '${PORT}', 'the default in ${PORT:-3000}' or the spec file name. */
  from: string;
}

export interface ResolvedConfig {
  /** The settings with every reference replaced. */
  value: Record<string, unknown>;
  /** Option path → where its value came from, for every value that came through a reference. */
  origins: ReadonlyMap<string, string>;
  /** References that could not be resolved (a variable without default that is not set). */
  problems: ConfigProblem[];
}

type Template = { $template: TemplatePart[]; reread?: boolean };

export function resolveConfigWithOrigins(
  config: { readonly [key: string]: ConfigValue },
  env: Env,
): ResolvedConfig {
  const origins = new Map<string, string>();
  const problems: ConfigProblem[] = [];
  const walk = (value: ConfigValue, path: string): unknown => {
    if (value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) return value.map((item, index) => walk(item, join(path, String(index))));
    if (isTemplate(value)) {
      const from = describeOrigin(value.$template, env);
      origins.set(path, from);
      try {
        const text = resolveTemplate(value.$template, env);
        return value.reread ? rereadScalar(text) : text;
      } catch (error) {
        if (!(error instanceof MissingEnvError)) throw error;
        problems.push({ option: path, message: `environment variable ${error.variable} is not set`, from });
        return undefined;
      }
    }
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      // Defined, not assigned: a `__proto__` key stays a plain property.
      Object.defineProperty(out, key, {
        value: walk(item, join(path, key)),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  };
  return { value: walk(config as ConfigValue, '') as Record<string, unknown>, origins, problems };
}

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

function isTemplate(value: object): value is Template {
  return !Array.isArray(value) && Array.isArray((value as { $template?: unknown }).$template);
}

/** `${PORT}` when the variable gave the value, `the default in ${PORT:-3000}` when its default did. */
function describeOrigin(parts: readonly TemplatePart[], env: Env): string {
  const only = parts.length === 1 ? parts[0] : undefined;
  if (only !== undefined && typeof only !== 'string') {
    const value = env[only.env];
    const usedDefault = only.default !== undefined && (value === undefined || value === '');
    return usedDefault ? `the default in ${templateText(parts)}` : `\${${only.env}}`;
  }
  return templateText(parts);
}

/** The template as written in the spec (`$${` for a literal `${`). */
export function templateText(parts: readonly TemplatePart[]): string {
  return parts
    .map((part) =>
      typeof part === 'string'
        ? part.replace(/\$\{/g, '$${')
        : part.default === undefined
          ? `\${${part.env}}`
          : `\${${part.env}:-${part.default}}`,
    )
    .join('');
}
