// Protocol versions (MCP revisions) svc speaks, newest first, and what depends on the negotiated one.

export const SUPPORTED_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;
export type ProtocolVersion = (typeof SUPPORTED_PROTOCOL_VERSIONS)[number];
export const LATEST_PROTOCOL_VERSION: ProtocolVersion = SUPPORTED_PROTOCOL_VERSIONS[0];

/**
 * The version an HTTP server assumes when a request after initialize carries no `MCP-Protocol-Version`
 * header and nothing else tells it (the transport spec's backwards-compatibility rule).
 */
export const ASSUMED_HTTP_PROTOCOL_VERSION: ProtocolVersion = '2025-03-26';

export function isSupportedVersion(value: unknown): value is ProtocolVersion {
  return (SUPPORTED_PROTOCOL_VERSIONS as readonly unknown[]).includes(value);
}

/** `initialize`: a supported requested version is echoed; anything else gets the latest. */
export function negotiateVersion(requested: unknown): ProtocolVersion {
  return isSupportedVersion(requested) ? requested : LATEST_PROTOCOL_VERSION;
}

/** JSON-RPC batches exist only in 2025-03-26: added there, removed again in 2025-06-18. */
export function allowsBatches(version: ProtocolVersion): boolean {
  return version === '2025-03-26';
}

/** 2025-06-18 added structured tool output (`structuredContent`) and tool titles. */
export function hasStructuredContent(version: ProtocolVersion): boolean {
  return version >= '2025-06-18';
}
