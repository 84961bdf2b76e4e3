// McpClient: calls tools on another MCP server through a ClientTransport. It owns the
// initialize handshake (run once, implicitly on first use, again after a lost connection or session), request
// ids, the per-request timeout with notifications/cancelled, and turning every failure into an SvcError.
import { errors } from '../../../generated/modules/errors.js';
import { SvcError } from '../../http/errors.js';
import {
  JSON_RPC_ERROR,
  classifyMessage,
  failure,
  success,
  type JsonRpcParams,
  type JsonRpcRequest,
  isJsonObject,
} from '../protocol/json-rpc.js';
import type { CallToolResult, Implementation, InitializeResult, Tool } from '../protocol/types.js';
import { LATEST_PROTOCOL_VERSION, isSupportedVersion } from '../protocol/versions.js';
import { defaultClientInfo } from './client-info.js';
import { PendingRequests } from './pending.js';
import { isSessionExpired, type ClientTransport } from './transport.js';
import { positiveWholeNumber } from '../../config/whole-number.js';
import { rejectUnknownOptions } from '../../config/known-options.js';
import { invalidOption, invalidOptions } from '../../config/option-errors.js';

/** How long a tool client waits for an answer by default. */
export const DEFAULT_CLIENT_TIMEOUT_MS = 60_000;

export interface McpClientOptions {
  /** How long each request waits for its answer, in ms. Default 60000. */
  timeoutMs?: number;
  /** How the client introduces itself in initialize. Default `{ name: 'svckit', version: <package version> }`. */
  clientInfo?: Implementation;
}

export interface CallOptions {
  /** Aborting cancels the call: the server gets notifications/cancelled, the call rejects with `signal.reason`. */
  signal?: AbortSignal;
}

function checkedOptions(options: McpClientOptions): { timeoutMs: number; clientInfo: Implementation } {
  if (!isJsonObject(options)) throw invalidOptions('McpClient');
  rejectUnknownOptions(options, ['timeoutMs', 'clientInfo'], 'McpClient');
  const timeoutMs = positiveWholeNumber(
    options.timeoutMs,
    DEFAULT_CLIENT_TIMEOUT_MS,
    'McpClient',
    'timeoutMs',
  );
  const clientInfo = options.clientInfo ?? defaultClientInfo();
  if (
    !isJsonObject(clientInfo) ||
    typeof clientInfo.name !== 'string' ||
    typeof clientInfo.version !== 'string'
  ) {
    throw invalidOption('McpClient', 'clientInfo', '{ name: string, version: string }');
  }
  rejectUnknownOptions(clientInfo, ['name', 'version', 'title'], 'McpClient: clientInfo');
  return { timeoutMs, clientInfo: { ...(clientInfo as unknown as Implementation) } };
}

function serverFailed(method: string, problem: string): SvcError {
  return errors.MCP_SERVER_FAILED({
    message: `The tool server's answer to ${method} ${problem}`,
    details: { method },
  });
}

/** A transport's failure as the client reports it: SvcErrors as they are, anything else as MCP_SERVER_FAILED. */
function asSvcError(error: unknown): SvcError {
  if (error instanceof SvcError) return error;
  return errors.MCP_SERVER_FAILED({
    message: 'The transport failed.',
    details: { reason: 'transport' },
    cause: error,
  });
}

/** Runs a transport call; a synchronous throw becomes a rejection like any other failure. */
async function viaTransport(run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (error) {
    throw asSvcError(error);
  }
}

/** Waits for `promise` unless `signal` aborts first; the shared promise itself goes on for other callers. */
function unlessAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

export class McpClient {
  readonly transport: ClientTransport;
  readonly timeoutMs: number;
  private readonly clientInfo: Implementation;
  private readonly pending = new PendingRequests();
  private nextId = 1;
  private connecting: Promise<InitializeResult> | undefined;
  private initialized: InitializeResult | undefined;
  private closing: Promise<void> | undefined;

  constructor(transport: ClientTransport, options: McpClientOptions = {}) {
    if (
      !isJsonObject(transport) ||
      typeof transport.send !== 'function' ||
      typeof transport.start !== 'function'
    ) {
      throw invalidOption('McpClient', 'transport', 'a ClientTransport (start, send, close)');
    }
    const checked = checkedOptions(options);
    this.transport = transport;
    this.timeoutMs = checked.timeoutMs;
    this.clientInfo = checked.clientInfo;
    transport.onmessage = (message) => this.receive(message);
    transport.onclose = (error) => {
      // The connection is gone: what was sent on it will never be answered; the next call reconnects.
      this.connecting = undefined;
      this.pending.failAll(error);
    };
  }

  /** The server's name and version from the last initialize; undefined before connecting. */
  get serverInfo(): Implementation | undefined {
    return this.initialized?.serverInfo;
  }

  /** The protocol version the last initialize negotiated; undefined before connecting. */
  get protocolVersion(): string | undefined {
    return this.initialized?.protocolVersion;
  }

  get closed(): boolean {
    return this.closing !== undefined;
  }

  /** Runs the initialize handshake once; concurrent and later callers share it until the connection is lost. */
  connect(): Promise<InitializeResult> {
    if (this.closing) return Promise.reject(this.closedError());
    if (!this.connecting) {
      const attempt = this.handshake();
      this.connecting = attempt;
      // A failed handshake is not kept: the next call tries again (a stdio server may start the next time).
      attempt.catch(() => {
        if (this.connecting === attempt) this.connecting = undefined;
      });
    }
    return this.connecting;
  }

  /** Every tool the server lists, following `nextCursor` page by page. */
  async listTools(options: CallOptions = {}): Promise<Tool[]> {
    const tools: Tool[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (;;) {
      const result = await this.call('tools/list', cursor === undefined ? {} : { cursor }, options.signal);
      const page = result.tools;
      if (!Array.isArray(page)) throw serverFailed('tools/list', 'has no tools array.');
      for (const tool of page as unknown[]) {
        if (!isJsonObject(tool) || typeof tool.name !== 'string') {
          throw serverFailed('tools/list', 'lists a tool without a name.');
        }
        tools.push(tool as unknown as Tool);
      }
      // An empty cursor is read as "no more pages": some servers send '' instead of leaving it out.
      const next = result.nextCursor;
      if (next === undefined || next === null || next === '') return tools;
      if (typeof next !== 'string')
        throw serverFailed('tools/list', 'has a nextCursor that is not a string.');
      if (seen.has(next))
        throw serverFailed('tools/list', 'repeats a nextCursor (the listing would not end).');
      seen.add(next);
      cursor = next;
    }
  }

  /** Calls a tool. A result with `isError: true` resolves: the tool ran and reported its own failure. */
  async callTool(
    name: string,
    args: Record<string, unknown> = {},
    options: CallOptions = {},
  ): Promise<CallToolResult> {
    if (typeof name !== 'string' || name === '')
      throw new TypeError('callTool: name must be a non-empty string.');
    if (!isJsonObject(args)) throw new TypeError('callTool: args must be an object.');
    const result = await this.call('tools/call', { name, arguments: args }, options.signal);
    const content = result.content ?? [];
    if (!Array.isArray(content)) throw serverFailed('tools/call', 'has a content that is not an array.');
    return { ...result, content } as CallToolResult;
  }

  /** Rejects every call in flight and later with MCP_CLIENT_CLOSED and closes the transport. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.pending.failAll(this.closedError());
      this.connecting = undefined;
      await this.transport.close();
    })();
    return this.closing;
  }

  /** A request after the handshake; a session the server forgot is reopened and the request sent once more. */
  private async call(
    method: string,
    params: JsonRpcParams,
    signal: AbortSignal | undefined,
  ): Promise<Record<string, unknown>> {
    signal?.throwIfAborted();
    for (let attempt = 1; ; attempt++) {
      const connection = this.connect();
      await unlessAborted(connection, signal);
      try {
        return await this.exchange(method, params, signal, true);
      } catch (error) {
        if (!isSessionExpired(error)) throw error;
        // Concurrent callers all see the expiry; only the first resets, so they share one new session.
        if (this.connecting === connection) this.connecting = undefined;
        if (attempt >= 2) throw error;
      }
    }
  }

  private async handshake(): Promise<InitializeResult> {
    await viaTransport(() => this.transport.start());
    const params = {
      protocolVersion: LATEST_PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: this.clientInfo,
    };
    // initialize must never be cancelled (the protocol forbids it); a timeout just fails the handshake.
    const result = await this.exchange('initialize', params, undefined, false);
    const version = result.protocolVersion;
    if (!isSupportedVersion(version)) {
      throw errors.MCP_SERVER_FAILED({
        message: `The tool server speaks protocol version ${JSON.stringify(version)}, which svc does not support.`,
        details: { method: 'initialize', protocolVersion: typeof version === 'string' ? version : null },
      });
    }
    if (!isJsonObject(result.serverInfo)) throw serverFailed('initialize', 'has no serverInfo.');
    this.transport.setProtocolVersion?.(version);
    await viaTransport(() => this.transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    const initialized = {
      ...result,
      capabilities: isJsonObject(result.capabilities) ? result.capabilities : {},
    };
    this.initialized = initialized as InitializeResult;
    return this.initialized;
  }

  /** Sends one request and waits for its answer, its timeout, the caller's abort or the end of the connection. */
  private exchange(
    method: string,
    params: JsonRpcParams,
    signal: AbortSignal | undefined,
    cancellable: boolean,
  ): Promise<Record<string, unknown>> {
    if (this.closing) return Promise.reject(this.closedError());
    const id = this.nextId++;
    const { promise, controller } = this.pending.add(id, {
      method,
      timeoutMs: this.timeoutMs,
      signal,
      onGiveUp: (reason) => {
        if (cancellable && !this.closing) this.notify('notifications/cancelled', { requestId: id, reason });
      },
    });
    const request: JsonRpcRequest = { jsonrpc: '2.0', id, method, params };
    viaTransport(() => this.transport.send(request, { signal: controller.signal })).catch(
      (error: unknown) => {
        this.pending.fail(id, error);
      },
    );
    return promise;
  }

  /** Fire and forget: a notification that cannot be delivered changes nothing for the caller. */
  private notify(method: string, params: JsonRpcParams): void {
    viaTransport(() => this.transport.send({ jsonrpc: '2.0', method, params })).catch(() => undefined);
  }

  private receive(value: unknown): void {
    const classified = classifyMessage(value);
    if (classified.kind === 'response') {
      this.pending.answer(classified.message);
    } else if (classified.kind === 'request' && !this.closing) {
      // The client offers no capabilities, so a server may only ping it; anything else is not found.
      const { id, method } = classified.message;
      const answer =
        method === 'ping'
          ? success(id, {})
          : failure(id, JSON_RPC_ERROR.METHOD_NOT_FOUND, `The client does not support ${method}.`);
      viaTransport(() => this.transport.send(answer)).catch(() => undefined);
    }
    // Notifications (progress, logging, list changes) and invalid messages are ignored.
  }

  private closedError(): SvcError {
    return errors.MCP_CLIENT_CLOSED();
  }
}
