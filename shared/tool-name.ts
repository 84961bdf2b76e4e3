// How a route becomes an MCP tool name when `meta.mcp.name` does not set one. The spec loader checks
// names are unique with it; the generator writes them into mcp-tools.json.
import { createHash } from 'node:crypto';
import { toolNamePieces } from './path-template.js';

export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
export const MAX_TOOL_NAME_LENGTH = 64;

/**
 * `GET /notes/:id` → `get_notes_by_id`; `POST /projects` → `post_projects`; `GET /` → `get`.
 * Characters outside [a-zA-Z0-9_-] become `_`, runs of `_` collapse. A name longer than 64 characters keeps
 * its first 55 and ends with `_` plus 8 hex digits of a hash of method and path, so it stays unique.
 */
export function deriveToolName(method: string, path: string): string {
  const name = [method.toLowerCase(), ...toolNamePieces(path)]
    .join('_')
    .replace(/[^a-zA-Z0-9_-]/g, '_')
    .replace(/_+/g, '_')
    .replace(/_$/, '');
  if (name.length <= MAX_TOOL_NAME_LENGTH) return name;
  const hash = createHash('sha256').update(`${method.toUpperCase()} ${path}`).digest('hex').slice(0, 8);
  return `${name.slice(0, MAX_TOOL_NAME_LENGTH - 9)}_${hash}`;
}
