// JSON-RPC 2.0 (https://www.jsonrpc.org/specification) as the tool protocol uses it: message shapes, the
// standard error codes plus the protocol's own, and one classifier every transport (HTTP, stdio, client)
// runs on a parsed message before acting on it.

export type JsonRpcId = string | number;
export type JsonRpcParams = Record<string, unknown>;

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: JsonRpcId;
  method: string;
  params?: JsonRpcParams;
}

export interface JsonRpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: JsonRpcParams;
}

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export interface JsonRpcSuccess {
  jsonrpc: '2.0';
  id: JsonRpcId;
  result: Record<string, unknown>;
}

export interface JsonRpcFailure {
  jsonrpc: '2.0';
  /** null when the request's id could not be read (parse error, invalid request). */
  id: JsonRpcId | null;
  error: JsonRpcErrorObject;
}

export type JsonRpcResponse = JsonRpcSuccess | JsonRpcFailure;
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

/** Error codes: JSON-RPC's reserved ones, then the server-defined range the protocol uses. */
export const JSON_RPC_ERROR = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  /** The stdio server already runs `maxConcurrentRequests` calls (SERVER_BUSY). */
  SERVER_BUSY: -32000,
  /** A call ended by `notifications/cancelled` before its handler finished. */
  REQUEST_CANCELLED: -32800,
  /**
   * A batch message beyond the endpoint's rate limit (data `{ code: 'RATE_LIMITED' }`); the number JSON-RPC
   * APIs commonly use for "limit exceeded".
   */
  RATE_LIMITED: -32005,
} as const;

/** What one parsed JSON value is, as a message. */
export type ClassifiedMessage =
  | { kind: 'request'; message: JsonRpcRequest }
  | { kind: 'notification'; message: JsonRpcNotification }
  | { kind: 'response'; message: JsonRpcResponse }
  /** Not a JSON-RPC 2.0 message; `id` is the request's id when one could be read, so the error can name it. */
  | { kind: 'invalid'; id: JsonRpcId | null; reason: string };

/** A JSON object (not an array, not null): what params, results and most protocol payloads must be. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isId(value: unknown): value is JsonRpcId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

/** Classifies one JSON value (not a batch: callers split arrays themselves, where batches are allowed). */
export function classifyMessage(value: unknown): ClassifiedMessage {
  if (!isJsonObject(value)) return { kind: 'invalid', id: null, reason: 'A message must be a JSON object.' };
  const id = isId(value.id) ? value.id : null;
  if (value.jsonrpc !== '2.0') return { kind: 'invalid', id, reason: 'jsonrpc must be "2.0".' };
  if ('method' in value) {
    if (typeof value.method !== 'string' || value.method === '')
      return { kind: 'invalid', id, reason: 'method must be a non-empty string.' };
    if (value.params !== undefined && !isJsonObject(value.params))
      return { kind: 'invalid', id, reason: 'params must be an object.' };
    if (!('id' in value)) return { kind: 'notification', message: value as unknown as JsonRpcNotification };
    if (id === null) return { kind: 'invalid', id: null, reason: 'id must be a string or a number.' };
    return { kind: 'request', message: value as unknown as JsonRpcRequest };
  }
  const hasResult = 'result' in value;
  const hasError = 'error' in value;
  if (hasResult === hasError)
    return { kind: 'invalid', id, reason: 'A response has exactly one of result and error.' };
  if (hasResult && (!isId(value.id) || !isJsonObject(value.result)))
    return { kind: 'invalid', id, reason: 'A result needs an id and an object result.' };
  if (hasError) {
    const error = value.error;
    if (!isJsonObject(error) || typeof error.code !== 'number' || typeof error.message !== 'string')
      return { kind: 'invalid', id, reason: 'error must be { code: number, message: string }.' };
    if (value.id !== null && !isId(value.id)) return { kind: 'invalid', id: null, reason: 'Bad id.' };
  }
  return { kind: 'response', message: value as unknown as JsonRpcResponse };
}

export function success(id: JsonRpcId, result: Record<string, unknown>): JsonRpcSuccess {
  return { jsonrpc: '2.0', id, result };
}

export function failure(id: JsonRpcId | null, code: number, message: string, data?: unknown): JsonRpcFailure {
  const error: JsonRpcErrorObject = { code, message };
  if (data !== undefined) error.data = data;
  return { jsonrpc: '2.0', id, error };
}
