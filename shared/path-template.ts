// Route path templates (`/notes/:id`, `/files/*`), parsed once into segments. A segment is a parameter when
// it starts with `:` (named by the rest of it), the wildcard when it is exactly `*` (the rest of the path,
// slashes included), and literal text otherwise: a `:` or `*` inside a segment is literal. Everything that
// reads a template derives from parsePathTemplate: the spec loader's checks, the runtime's route table and
// conflict check, each adapter's router path, OpenAPI paths, MCP tool names and requests.

export type PathSegment =
  | { readonly kind: 'literal'; readonly text: string; readonly offset: number }
  | { readonly kind: 'param'; readonly name: string; readonly offset: number }
  | { readonly kind: 'wildcard'; readonly offset: number };

/** The segments after the leading `/`, each with the index of its first character in `path`. `/` → one empty literal. */
export function parsePathTemplate(path: string): PathSegment[] {
  const segments: PathSegment[] = [];
  let offset = path.startsWith('/') ? 1 : 0;
  for (const text of path.slice(offset).split('/')) {
    if (text === '*') segments.push({ kind: 'wildcard', offset });
    else if (text.startsWith(':')) segments.push({ kind: 'param', name: text.slice(1), offset });
    else segments.push({ kind: 'literal', text, offset });
    offset += text.length + 1;
  }
  return segments;
}

/**
 * Why the routers could not agree on this template, or undefined: a parameter needs a name, a `*` is only
 * the whole last segment, and a literal segment holds no `:` (find-my-way, Hono and Express each read a `*`
 * or `:` inside a segment their own way).
 */
export function pathTemplateProblem(path: string): string | undefined {
  const segments = parsePathTemplate(path);
  for (const [index, segment] of segments.entries()) {
    if (segment.kind === 'param' && segment.name === '')
      return `a ':' at ${segment.offset} names no parameter`;
    if (segment.kind === 'wildcard' && index !== segments.length - 1) {
      return `'*' matches the rest of the path, so it must be the last segment`;
    }
    if (segment.kind !== 'wildcard' && textOf(segment).includes('*')) {
      return `'*' is a whole segment (the rest of the path), not part of '${textOf(segment)}'`;
    }
    if (segment.kind === 'literal' && segment.text.includes(':')) {
      return `a parameter is a whole segment ('/:name'), so '${segment.text}' cannot hold a ':'`;
    }
  }
  return undefined;
}

function textOf(segment: PathSegment): string {
  if (segment.kind === 'literal') return segment.text;
  return segment.kind === 'param' ? `:${segment.name}` : '*';
}

/** Writes segments back as a path, spelling each segment through `spell`. */
function joinSegments(path: string, spell: (segment: PathSegment) => string): string {
  return `/${parsePathTemplate(path).map(spell).join('/')}`;
}

/** `/notes/:id/tags/:tag` → ['id', 'tag']. */
export function templateParameterNames(path: string): string[] {
  const names: string[] = [];
  for (const segment of parsePathTemplate(path)) if (segment.kind === 'param') names.push(segment.name);
  return names;
}

/** `/notes/:id` → `/notes/{id}` (OpenAPI's path template). */
export function openApiPath(path: string): string {
  return joinSegments(path, (segment) => (segment.kind === 'param' ? `{${segment.name}}` : textOf(segment)));
}

/** The key two templates share when they match the same requests: `/notes/:id` ≡ `/notes/:noteId` → `/notes/:`. */
export function pathShape(path: string): string {
  return joinSegments(path, (segment) => (segment.kind === 'param' ? ':' : textOf(segment)));
}

/** The path with each parameter replaced by its value, URL-encoded (`encodeURIComponent`); a missing value is empty. */
export function fillPathTemplate(path: string, params: Readonly<Record<string, string | undefined>>): string {
  return joinSegments(path, (segment) =>
    segment.kind === 'param'
      ? encodeURIComponent(Object.hasOwn(params, segment.name) ? (params[segment.name] ?? '') : '')
      : textOf(segment),
  );
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The paths a template matches: `/notes/:id` → /^\/notes\/[^/]+$/ (a parameter is one non-empty segment),
 * `/files/*` → the rest of the path. Case-sensitive, no trailing-slash alias.
 */
export function pathTemplatePattern(path: string): RegExp {
  const source = joinSegments(path, (segment) => {
    if (segment.kind === 'param') return '[^/]+';
    if (segment.kind === 'wildcard') return '.*';
    return escapeRegExp(segment.text);
  });
  return new RegExp(`^${source}$`);
}

/** 0 literal, 1 parameter, 2 wildcard: the more literal segment is tried first. */
function segmentRank(segment: PathSegment): number {
  if (segment.kind === 'literal') return 0;
  return segment.kind === 'param' ? 1 : 2;
}

/**
 * Negative when `a` must be tried before `b` by a router that takes the first match (Express, Hono): at the
 * first segment where they differ in kind, a literal before a parameter before `*`, as find-my-way decides.
 * Templates that never match the same path may land in any order; comparing kinds only (not the text)
 * keeps the order total, which Array.prototype.sort needs.
 */
export function compareTemplateSpecificity(a: string, b: string): number {
  const left = parsePathTemplate(a);
  const right = parsePathTemplate(b);
  const shared = Math.min(left.length, right.length);
  for (let index = 0; index < shared; index++) {
    const difference = segmentRank(left[index] as PathSegment) - segmentRank(right[index] as PathSegment);
    if (difference !== 0) return difference;
  }
  return left.length - right.length;
}

/** The pieces of an MCP tool name: `/notes/:id` → ['notes', 'by_id']; `/` → []. */
export function toolNamePieces(path: string): string[] {
  const pieces: string[] = [];
  for (const segment of parsePathTemplate(path)) {
    if (segment.kind === 'param') pieces.push(`by_${segment.name}`);
    else if (segment.kind === 'wildcard') pieces.push('*');
    else if (segment.text !== '') pieces.push(segment.text);
  }
  return pieces;
}
