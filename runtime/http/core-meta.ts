// The meta validator for the keys the framework itself reads (docs/http.md, "Route meta"). rateLimit is not checked (a malformed value is ignored and the global bucket applies) and
// `can` is not checked at boot (the permission guard answers PERMISSION_META_INVALID per request).
import type { MetaValidator, Route } from './types.js';

const MCP_FIELDS = new Set(['name', 'description', 'redactErrorDetails']);

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

function mcpProblems(value: unknown): string[] {
  if (value === undefined || value === true || value === false) return [];
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return ['meta.mcp must be true or an object { name?, description?, redactErrorDetails? }'];
  }
  const problems: string[] = [];
  const mcp = value as Record<string, unknown>;
  for (const key of Object.keys(mcp)) {
    if (!MCP_FIELDS.has(key))
      problems.push(`meta.mcp.${key} is not a known field (name, description, redactErrorDetails)`);
  }
  if (mcp.name !== undefined && (typeof mcp.name !== 'string' || !/^[a-zA-Z0-9_-]{1,64}$/.test(mcp.name))) {
    problems.push('meta.mcp.name must be 1-64 characters of letters, digits, "_" or "-"');
  }
  if (mcp.description !== undefined && typeof mcp.description !== 'string') {
    problems.push('meta.mcp.description must be a string');
  }
  const redact = mcp.redactErrorDetails;
  if (redact !== undefined && redact !== false && typeof redact !== 'function') {
    problems.push('meta.mcp.redactErrorDetails must be false or a function');
  }
  return problems;
}

function validateCoreMeta(route: Route): string[] {
  const meta = route.meta;
  const problems: string[] = [];
  for (const key of ['etag', 'documentHeaders'] as const) {
    if (meta[key] !== undefined && typeof meta[key] !== 'boolean')
      problems.push(`meta.${key} must be a boolean`);
  }
  for (const key of ['summary', 'description', 'operationId'] as const) {
    if (meta[key] !== undefined && typeof meta[key] !== 'string')
      problems.push(`meta.${key} must be a string`);
  }
  if (meta.tags !== undefined && !isStringArray(meta.tags))
    problems.push('meta.tags must be an array of strings');
  problems.push(...mcpProblems(meta.mcp));
  const idempotency = meta.idempotency;
  if (
    idempotency !== undefined &&
    idempotency !== false &&
    idempotency !== 'required' &&
    idempotency !== 'optional'
  ) {
    problems.push("meta.idempotency must be 'required', 'optional' or false");
  }
  return problems;
}

/** Registered by every adapter in `http:meta-validators`. */
export const coreMetaValidator: MetaValidator = { name: 'svc:core-meta', validate: validateCoreMeta };
