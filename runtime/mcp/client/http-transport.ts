// The Streamable HTTP client transport (MCP 2025-03-26 and later): each message is one POST; a request's
// answer comes back as a JSON body or as an event stream read until the answer arrives. The session id the
// server assigns at initialize rides on every later request, and close() ends the session with DELETE.
import { errors } from '../../../generated/modules/errors.js';
import { SvcError } from '../../http/errors.js';
import { classifyMessage, type JsonRpcId, type JsonRpcMessage } from '../protocol/json-rpc.js';
import type { ProtocolVersion } from '../protocol/versions.js';
import { BodyTooLargeError, readPrefix, readSseEvents, readText } from './sse-reader.js';
import {
  DEFAULT_MAX_MESSAGE_BYTES,
  sessionExpired,
  type ClientTransport,
  type SendOptions,
} from './transport.js';
import { positiveWholeNumber } from '../../config/whole-number.js';
import { rejectUnknownOptions } from '../../config/known-options.js';
import { invalidOption } from '../../config/option-errors.js';

export interface HttpClientTransportOptions {
  /** Sent on every request (e.g. `authorization`); the protocol's own headers win over these. */
  headers?: Record<string, string>;
  /** The fetch to use. Default the global fetch. */
  fetch?: typeof fetch;
  /** Largest JSON body or single event read, in bytes. Default 16 MiB. */
  maxMessageBytes?: number;
}

/** How long close() waits for the server to acknowledge the session's DELETE. */
const DELETE_TIMEOUT_MS = 5000;

function fail(option: string, expected: string): never {
  throw invalidOption('HttpClientTransport', option, expected);
}

function checkedUrl(url: unknown): URL {
  if (typeof url !== 'string' && !(url instanceof URL)) fail('url', 'a string or a URL');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    fail('url', 'an absolute http(s) URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') fail('url', 'an absolute http(s) URL');
  return parsed;
}

function checkedHeaders(headers: unknown): Record<string, string> {
  if (headers === undefined) return {};
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) {
    fail('headers', 'an object of header names to string values');
  }
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value !== 'string') fail(`headers.${name}`, 'a string');
  }
  return { ...(headers as Record<string, string>) };
}

function isRequest(message: JsonRpcMessage): message is JsonRpcMessage & { id: JsonRpcId; method: string } {
  return 'method' in message && 'id' in message;
}

export class HttpClientTransport implements ClientTransport {
  onmessage?: ((message: JsonRpcMessage) => void) | undefined;
  onclose?: ((error: SvcError) => void) | undefined;
  readonly url: URL;
  private readonly headers: Record<string, string>;
  private readonly fetch: typeof fetch;
  private readonly maxMessageBytes: number;
  /** The POSTs still running, aborted by close(). A set rather than AbortSignal.any on one long-lived signal. */
  private readonly inFlight = new Set<AbortController>();
  private session: string | undefined;
  private version: ProtocolVersion | undefined;
  private closing: Promise<void> | undefined;

  constructor(url: string | URL, options: HttpClientTransportOptions = {}) {
    this.url = checkedUrl(url);
    if (typeof options !== 'object' || options === null) fail('options', 'an object');
    rejectUnknownOptions(options, ['headers', 'fetch', 'maxMessageBytes'], 'HttpClientTransport');
    this.headers = checkedHeaders(options.headers);
    const fetchImpl = options.fetch ?? globalThis.fetch;
    if (typeof fetchImpl !== 'function') fail('fetch', 'a function');
    this.fetch = fetchImpl;
    this.maxMessageBytes = positiveWholeNumber(
      options.maxMessageBytes,
      DEFAULT_MAX_MESSAGE_BYTES,
      'HttpClientTransport',
      'maxMessageBytes',
    );
  }

  /** The session the server assigned at initialize; undefined before, for a stateless server, and after close. */
  get sessionId(): string | undefined {
    return this.session;
  }

  async start(): Promise<void> {
    if (this.closing) throw errors.MCP_CLIENT_CLOSED();
  }

  setProtocolVersion(version: ProtocolVersion): void {
    this.version = version;
  }

  async send(message: JsonRpcMessage, options: SendOptions = {}): Promise<void> {
    if (this.closing) throw errors.MCP_CLIENT_CLOSED();
    const controller = new AbortController();
    const abort = (): void => controller.abort();
    if (options.signal?.aborted) abort();
    options.signal?.addEventListener('abort', abort, { once: true });
    this.inFlight.add(controller);
    try {
      await this.post(message, controller.signal);
    } finally {
      this.inFlight.delete(controller);
      options.signal?.removeEventListener('abort', abort);
    }
  }

  private async post(message: JsonRpcMessage, signal: AbortSignal): Promise<void> {
    // initialize opens a new session: it carries neither the old session id nor a version.
    const initialize = isRequest(message) && message.method === 'initialize';
    const sessionId = initialize ? undefined : this.session;
    // A Headers object, so the protocol's own headers replace the user's whatever their case.
    const headers = new Headers(this.headers);
    headers.set('content-type', 'application/json');
    headers.set('accept', 'application/json, text/event-stream');
    if (sessionId !== undefined) headers.set('mcp-session-id', sessionId);
    if (!initialize && this.version !== undefined) headers.set('mcp-protocol-version', this.version);

    let response: Response;
    try {
      response = await this.fetch(this.url, {
        method: 'POST',
        headers,
        body: JSON.stringify(message),
        signal,
      });
    } catch (error) {
      throw this.unreachable(error);
    }
    if (response.status === 404 && sessionId !== undefined) {
      await response.body?.cancel().catch(() => undefined);
      // Only forget the id that failed: a concurrent re-initialize may already have stored a new one.
      if (this.session === sessionId) this.session = undefined;
      throw sessionExpired({ status: 404 });
    }
    if (!response.ok) {
      const body = await readPrefix(response.body);
      throw errors.MCP_SERVER_FAILED({
        message: `The tool server answered HTTP ${response.status}.`,
        details: { status: response.status, body },
      });
    }
    if (initialize) this.session = response.headers.get('mcp-session-id') ?? undefined;
    if (!isRequest(message)) {
      // Notifications and our answers to server requests: 202 Accepted, no body to read.
      await response.body?.cancel().catch(() => undefined);
      return;
    }
    try {
      if (!(await this.readAnswer(response, message.id))) {
        throw errors.MCP_SERVER_FAILED({
          message: `The tool server's HTTP response to ${message.method} ended without an answer.`,
          details: { status: response.status },
        });
      }
    } catch (error) {
      if (error instanceof SvcError) throw error;
      if (error instanceof BodyTooLargeError) {
        throw errors.MCP_SERVER_FAILED({
          message: error.message,
          details: { maxMessageBytes: error.maxBytes },
        });
      }
      throw this.unreachable(error);
    }
  }

  /** Ends the session (DELETE, whose 404/405 or failure is ignored) and every POST in flight. Never rejects. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      for (const controller of this.inFlight) controller.abort();
      const sessionId = this.session;
      this.session = undefined;
      if (sessionId === undefined) return;
      const headers = new Headers(this.headers);
      headers.set('mcp-session-id', sessionId);
      if (this.version !== undefined) headers.set('mcp-protocol-version', this.version);
      try {
        const response = await this.fetch(this.url, {
          method: 'DELETE',
          headers,
          signal: AbortSignal.timeout(DELETE_TIMEOUT_MS),
        });
        await response.body?.cancel().catch(() => undefined);
      } catch {
        // The server is gone or slow: its session expires on its own.
      }
    })();
    return this.closing;
  }

  /** Delivers the messages of a request's response; true once the answer to `id` was among them. */
  private async readAnswer(response: Response, id: JsonRpcId): Promise<boolean> {
    const type = (response.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
    if (response.status === 202) {
      // The answer would come on the GET stream, which this client does not open.
      await response.body?.cancel().catch(() => undefined);
      throw errors.MCP_SERVER_FAILED({
        message: 'The tool server accepted a request without answering it (202).',
        details: { status: 202 },
      });
    }
    if (type === 'text/event-stream') {
      if (!response.body) return false;
      for await (const event of readSseEvents(response.body, this.maxMessageBytes)) {
        if (event.event !== 'message') continue;
        let value: unknown;
        try {
          value = JSON.parse(event.data);
        } catch {
          continue; // Not a message (a priming or keep-alive event): skip it.
        }
        if (this.deliver(value, id)) return true;
      }
      return false;
    }
    if (type === 'application/json') {
      const text = await readText(response.body, this.maxMessageBytes);
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        throw errors.MCP_SERVER_FAILED({
          message: 'The tool server answered with malformed JSON.',
          details: { status: response.status, body: text.slice(0, 1024) },
        });
      }
      if (this.deliver(value, id)) return true;
      if (classifyMessage(value).kind === 'invalid' && !Array.isArray(value)) {
        throw errors.MCP_SERVER_FAILED({
          message: 'The tool server answered with something that is not a JSON-RPC message.',
          details: { status: response.status, body: text.slice(0, 1024) },
        });
      }
      return false;
    }
    const body = await readPrefix(response.body);
    throw errors.MCP_SERVER_FAILED({
      message: `The tool server answered with content type ${JSON.stringify(type)}.`,
      details: { status: response.status, contentType: type ?? '', body },
    });
  }

  /** Hands each valid message (a batch is split) to onmessage; true when one of them answers `id`. */
  private deliver(value: unknown, id: JsonRpcId): boolean {
    let answered = false;
    for (const item of Array.isArray(value) ? (value as unknown[]) : [value]) {
      const classified = classifyMessage(item);
      if (classified.kind === 'invalid') continue;
      if (classified.kind === 'response' && classified.message.id === id) answered = true;
      this.onmessage?.(classified.message);
    }
    return answered;
  }

  private unreachable(error: unknown): SvcError {
    if (this.closing) return errors.MCP_CLIENT_CLOSED({ cause: error });
    return errors.MCP_SERVER_FAILED({
      message: 'The tool server could not be reached.',
      details: { reason: 'unreachable' },
      internalDetails: { url: this.url.origin + this.url.pathname },
      cause: error,
    });
  }
}
