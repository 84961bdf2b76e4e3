// What an agent may assume about a tool call, from the HTTP method's semantics. The generator writes these
// into mcp-tools.json; the runtime gives them to tools it derives from handwritten routes.

export interface MethodToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint?: boolean;
  idempotentHint: boolean;
  openWorldHint: false;
}

export function toolAnnotations(method: string): MethodToolAnnotations {
  switch (method.toUpperCase()) {
    case 'GET':
    case 'HEAD':
    case 'OPTIONS':
      return { readOnlyHint: true, idempotentHint: true, openWorldHint: false };
    case 'DELETE':
      return { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false };
    case 'PUT':
      return { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false };
    default:
      return { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };
  }
}
