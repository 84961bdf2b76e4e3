// Route path templates (`/notes/:id`): a parameter is a whole segment starting with `:`, named by the rest of
// it, as the routers match it (runtime/http/route-table.ts) and the spec's path grammar writes it. The
// OpenAPI document, the served document and MCP tools read parameters through this one rule.

/** `/notes/:id/tags/:tag` → ['id', 'tag']. */
export function templateParameterNames(path: string): string[] {
  const names: string[] = [];
  for (const segment of path.split('/')) if (segment.startsWith(':')) names.push(segment.slice(1));
  return names;
}

/** `/notes/:id` → `/notes/{id}` (OpenAPI's path template). */
export function openApiPath(path: string): string {
  return path
    .split('/')
    .map((segment) => (segment.startsWith(':') ? `{${segment.slice(1)}}` : segment))
    .join('/');
}
