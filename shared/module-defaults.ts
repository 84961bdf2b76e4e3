// Defaults of the built-in modules that the build documents and the runtime applies: one value each, so the
// generated OpenAPI and client name what the service really uses.

/** The auth module's session cookie, unless `sessionCookie.name` says otherwise. */
export const DEFAULT_SESSION_COOKIE = 'svc_session';
/** The header that carries a session id for clients without cookies. */
export const SESSION_ID_HEADER = 'x-session-id';
/** Where the MCP endpoint lives, unless `path` says otherwise. */
export const DEFAULT_MCP_PATH = '/mcp';
/** The request header naming the tenant, unless `modules.tenancy.header` says otherwise. */
export const DEFAULT_TENANT_HEADER = 'x-tenant-id';
/** The header an API key may be sent in, unless `modules.auth.apiKeys.header` says otherwise. */
export const DEFAULT_API_KEY_HEADER = 'x-api-key';
/** The scopes an API key may carry, unless `modules.auth.apiKeys.scopes` says otherwise: everything. */
export const DEFAULT_API_KEY_SCOPES: readonly string[] = ['*'];
