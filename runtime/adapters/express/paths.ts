// svc route templates (`/notes/:id`, read by shared/path-template.ts) as Express 5 paths. Express matches
// layers in registration order, so routes.ts mounts them most specific first (compareTemplateSpecificity).
import { parsePathTemplate } from '../../../shared/path-template.js';

/** The name Express reports a `*` wildcard under; the request maps it back to svc's `*`. */
export const WILDCARD_PARAM = '*';

// Characters path-to-regexp 8 gives a meaning to; literal text escapes them with a backslash.
const EXPRESS_SPECIAL = /[{}()[\]+?!:*\\]/g;
// A parameter name Express accepts unquoted.
const PLAIN_NAME = /^[$_\p{ID_Start}][$\u200c\u200d\p{ID_Continue}]*$/u;

function quotedName(name: string): string {
  return PLAIN_NAME.test(name) ? name : `"${name.replace(/["\\]/g, '\\$&')}"`;
}

/** `/notes/:id` → `/notes/:id`; `/a(b)/:x.y` → `/a\(b\)/:"x.y"`; `/files/*` → `/files/*"*"`. */
export function expressPath(template: string): string {
  const segments = parsePathTemplate(template).map((segment) => {
    if (segment.kind === 'literal') return segment.text.replace(EXPRESS_SPECIAL, '\\$&');
    if (segment.kind === 'param') return `:${quotedName(segment.name)}`;
    return `*${quotedName(WILDCARD_PARAM)}`;
  });
  return `/${segments.join('/')}`;
}
