// svc route templates (`/notes/:id`) as Express 5 paths, and the order they are mounted in. Express matches
// layers in registration order, so routes are sorted the way svc's other routers decide: at the first
// segment where two templates differ, a literal segment wins over a parameter, and a parameter over `*`.

/** One template split into its literal text, `:name` parameters and `*` wildcards. */
type Piece = { kind: 'text'; text: string } | { kind: 'param'; name: string } | { kind: 'wildcard' };

/** The name Express reports a `*` wildcard under; the request maps it back to svc's `*`. */
export const WILDCARD_PARAM = '*';

// Characters path-to-regexp 8 gives a meaning to; literal text escapes them with a backslash.
const EXPRESS_SPECIAL = /[{}()[\]+?!:*\\]/g;
// A parameter name Express accepts unquoted.
const PLAIN_NAME = /^[$_\p{ID_Start}][$\u200c\u200d\p{ID_Continue}]*$/u;

function piecesOf(template: string): Piece[] {
  const pieces: Piece[] = [];
  // The same split as the route table's (runtime/http/route-table.ts), so both agree on what matches.
  for (const piece of template.split(/(:[^/]+|\*)/)) {
    if (piece === '') continue;
    if (piece === '*') pieces.push({ kind: 'wildcard' });
    else if (piece.startsWith(':')) pieces.push({ kind: 'param', name: piece.slice(1) });
    else pieces.push({ kind: 'text', text: piece });
  }
  return pieces;
}

function quotedName(name: string): string {
  return PLAIN_NAME.test(name) ? name : `"${name.replace(/["\\]/g, '\\$&')}"`;
}

/** `/notes/:id` → `/notes/:id`; `/a(b)/:x.y` → `/a\(b\)/:"x.y"`; `/files/*` → `/files/*"*"`. */
export function expressPath(template: string): string {
  let path = '';
  for (const piece of piecesOf(template)) {
    if (piece.kind === 'text') path += piece.text.replace(EXPRESS_SPECIAL, '\\$&');
    else if (piece.kind === 'param') path += `:${quotedName(piece.name)}`;
    else path += `*${quotedName(WILDCARD_PARAM)}`;
  }
  return path;
}

/** 0 literal, 1 literal with a parameter inside, 2 parameter, 3 contains a wildcard. */
function segmentRank(segment: string): number {
  if (segment.includes('*')) return 3;
  const colon = segment.indexOf(':');
  if (colon === -1) return 0;
  return colon === 0 ? 2 : 1;
}

/**
 * Negative when `a` must be tried before `b`: segment ranks compared left to right, the more literal segment
 * first, as find-my-way decides between two templates that both match a path. Templates that never match
 * the same path may land in any order; comparing ranks only (not the text) keeps the order total, which
 * Array.prototype.sort needs.
 */
export function compareTemplates(a: string, b: string): number {
  const left = a.split('/');
  const right = b.split('/');
  const shared = Math.min(left.length, right.length);
  for (let i = 0; i < shared; i++) {
    const difference = segmentRank(left[i] as string) - segmentRank(right[i] as string);
    if (difference !== 0) return difference;
  }
  return left.length - right.length;
}
