// Route paths: `/notes/:id`, split by shared/path-template.ts. Segments are literals or `:name` parameters; no empty segment, no trailing
// slash except the root, no parameter twice. Errors point at the offending character of the path.
import type { LoadContext, Path } from './context.js';
import { locWithin, type ScalarNode } from './yaml-tree.js';
import { parsePathTemplate } from '../../shared/path-template.js';

const LITERAL = /^[A-Za-z0-9._~-]+$/;
const PARAM = /^[A-Za-z_][A-Za-z0-9_]*$/;

export interface PathParam {
  name: string;
  /** Index of the ':' in the path, to point at it. */
  index: number;
}

/** The parameters of a path, reporting every malformed segment. */
export function checkPath(ctx: LoadContext, node: ScalarNode, path: string, where: Path): PathParam[] {
  const params: PathParam[] = [];
  if (path === '/') return params;
  if (path.endsWith('/')) {
    ctx.problems.add(
      locWithin(node, path.length - 1),
      where,
      `path '${path}' ends with '/'`,
      `write path: ${path.replace(/\/+$/, '') || '/'} (routes have no trailing-slash alias)`,
    );
  }
  for (const segment of parsePathTemplate(path)) {
    const index = segment.offset;
    const at = locWithin(node, index);
    if (segment.kind === 'param') {
      const name = segment.name;
      if (!PARAM.test(name)) {
        ctx.problems.add(
          at,
          where,
          `invalid path parameter ':${name}'`,
          'parameter names are letters, digits and _, not starting with a digit, e.g. :noteId',
        );
      } else if (params.some((param) => param.name === name)) {
        ctx.problems.add(
          at,
          where,
          `path parameter ':${name}' appears twice`,
          `give each parameter its own name, e.g. :${name}2`,
        );
      } else params.push({ name, index });
      continue;
    }
    // The spec has no wildcard routes: a `*` segment is refused as a literal would be.
    const text = segment.kind === 'wildcard' ? '*' : segment.text;
    if (text === '') {
      if (index < path.length)
        ctx.problems.add(
          at,
          where,
          `path '${path}' has an empty segment ('//')`,
          `write path: ${path.replace(/\/{2,}/g, '/')}`,
        );
    } else if (!LITERAL.test(text)) {
      const brace = /^\{(\w+)\}$/.exec(text);
      ctx.problems.add(
        at,
        where,
        `invalid path segment '${text}'`,
        brace
          ? `write :${brace[1]} for a path parameter`
          : 'literal segments use letters, digits and . _ ~ -; parameters are written :name',
      );
    }
  }
  return params;
}
