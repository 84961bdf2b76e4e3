// svc route templates as find-my-way paths. find-my-way ends a parameter's name at `-`, `.` or `(`; svc's
// template rule (shared/path-template.ts) makes a parameter a whole segment named by the rest of it. So a
// parameter whose name find-my-way would cut is mounted under a plain name, mapped back when the request's
// params are read.
import { parsePathTemplate } from '../../../shared/path-template.js';

// A parameter name find-my-way reads whole.
const PLAIN_NAME = /^[A-Za-z0-9_]+$/;

export interface FastifyRoutePath {
  path: string;
  /** find-my-way's parameter name → svc's, for parameters mounted under another name; undefined when none. */
  renamed: Readonly<Record<string, string>> | undefined;
}

/** `/notes/:id` → `/notes/:id`; `/files/:file.name` → `/files/:$p1` with $p1 → `file.name`; `/files/*` unchanged. */
export function fastifyPath(template: string): FastifyRoutePath {
  let renamed: Record<string, string> | undefined;
  const segments = parsePathTemplate(template).map((segment, index) => {
    if (segment.kind === 'wildcard') return '*';
    if (segment.kind === 'literal') return segment.text;
    if (PLAIN_NAME.test(segment.name)) return `:${segment.name}`;
    // Plain names have no `$` and the index is unique, so a mounted name never collides with another.
    const mountedName = `$p${index}`;
    (renamed ??= Object.create(null) as Record<string, string>)[mountedName] = segment.name;
    return `:${mountedName}`;
  });
  return { path: `/${segments.join('/')}`, renamed };
}
