// The tool protocol's payloads svc sends and reads: tool descriptions, call results, initialize results.
// Field names are the protocol's (camelCase as on the wire).
import type { ProtocolVersion } from './versions.js';

/** Hints an agent may use to decide whether to ask before calling; never a security boundary. */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** A JSON Schema for a tool's single object argument. */
export interface ToolInputSchema {
  type: 'object';
  properties?: Record<string, unknown>;
  required?: string[];
  [keyword: string]: unknown;
}

/** A tool as `tools/list` describes it. */
export interface Tool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: ToolInputSchema;
  annotations?: ToolAnnotations;
}

export interface TextContent {
  type: 'text';
  text: string;
}

/** svc sends only text content; a client may receive any block kind, kept as sent. */
export type ContentBlock = TextContent | { type: string; [field: string]: unknown };

export interface CallToolResult {
  content: ContentBlock[];
  /** The result as an object (2025-06-18 and later). */
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  [field: string]: unknown;
}

export interface Implementation {
  name: string;
  version: string;
  title?: string;
}

export interface InitializeResult {
  protocolVersion: ProtocolVersion | string;
  capabilities: Record<string, unknown>;
  serverInfo: Implementation;
  instructions?: string;
  [field: string]: unknown;
}

export interface ListToolsResult {
  tools: Tool[];
  nextCursor?: string;
  [field: string]: unknown;
}
