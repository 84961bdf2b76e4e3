// The seam between McpClient and a wire: a transport moves JSON-RPC messages and reports a lost connection;
// the client owns ids, timeouts, cancellation and the initialize handshake, so a transport stays small.
import { errors } from '../../../generated/modules/errors.js';
import { SvcError } from '../../http/errors.js';
import type { JsonRpcMessage } from '../protocol/json-rpc.js';
import type { ProtocolVersion } from '../protocol/versions.js';

export interface SendOptions {
  /**
   * Aborted when the client gives up on the request (timeout, the caller's signal, close): stop waiting for
   * its answer (HTTP aborts the POST). The client has already settled the call; what send() rejects with then
   * is ignored.
   */
  signal?: AbortSignal;
}

/**
 * What McpClient needs from a wire. Contract:
 * - `start()` opens the connection (spawns the process). The client calls it before `initialize`, and again
 *   after `onclose` reported a lost connection, to reopen it. On an open transport it does nothing.
 * - `send(message)` delivers one message. Answers and server messages arrive through `onmessage`, possibly
 *   before send() resolves (HTTP reads the answer from the POST's response). It rejects with an SvcError when
 *   the message could not be delivered or, for a request, when no answer can come (HTTP: the response ended
 *   without one).
 * - `onclose(error)`: the connection was lost (the process exited). The client rejects its in-flight requests
 *   with `error` and re-runs `start()` + `initialize` on the next call.
 * - A server that forgot the session (HTTP 404 to a request carrying a session id) is reported by rejecting
 *   send() with `sessionExpired()`: the client opens a new session and retries that request once.
 * - `setProtocolVersion(version)` is told the version initialize negotiated (HTTP sends it as a header).
 * - `close()` ends the connection for good; later sends reject with MCP_CLIENT_CLOSED. It never rejects.
 */
export interface ClientTransport {
  onmessage?: ((message: JsonRpcMessage) => void) | undefined;
  onclose?: ((error: SvcError) => void) | undefined;
  start(): Promise<void>;
  send(message: JsonRpcMessage, options?: SendOptions): Promise<void>;
  setProtocolVersion?(version: ProtocolVersion): void;
  close(): Promise<void>;
}

/** The error a transport rejects send() with when the server no longer knows the session. */
export function sessionExpired(details: Record<string, unknown> = {}): SvcError {
  return errors.MCP_SERVER_FAILED({
    message: 'The tool server no longer knows this session.',
    details: { ...details, sessionExpired: true },
  });
}

export function isSessionExpired(error: unknown): boolean {
  if (!(error instanceof SvcError) || error.code !== 'MCP_SERVER_FAILED') return false;
  const details = error.details;
  return typeof details === 'object' && details !== null && 'sessionExpired' in details
    ? details.sessionExpired === true
    : false;
}

/** Largest single message a transport reads (a stdio line, an HTTP body, one SSE event): 16 MiB. */
export const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
