// The protocol methods svc answers, independent of the transport: initialize, ping, tools/list, tools/call
// and notifications/cancelled. The HTTP endpoint and the stdio server parse messages, keep the connection
// state and hand each message here.
import type { Scope } from '../../app/container.js';
import { report, type ErrorReporter } from '../../http/report.js';
import {
  failure,
  JSON_RPC_ERROR,
  success,
  type JsonRpcId,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  isJsonObject,
} from '../protocol/json-rpc.js';
import type { CallToolResult, Implementation, InitializeResult } from '../protocol/types.js';
import { hasStructuredContent, negotiateVersion, type ProtocolVersion } from '../protocol/versions.js';
import { runToolCall, ToolCallCancelled, type ToolCallContext } from './call-tool.js';
import { CallCancellation } from './cancellation.js';
import type { ToolCaller } from './tool-request.js';
import type { ToolEntry, ToolSet } from './tool-set.js';

/** The calls a connection is running, by request id (a Map does). */
export interface RunningCalls {
  get(requestId: JsonRpcId): CallCancellation | undefined;
  set(requestId: JsonRpcId, cancellation: CallCancellation): unknown;
  delete(requestId: JsonRpcId): boolean;
}

/** State one conversation keeps: a session over HTTP, the process over stdio. */
export interface McpConnection {
  protocolVersion: ProtocolVersion;
  /** Calls running now, by request id, so notifications/cancelled can end them. */
  readonly running: RunningCalls;
}

/** What one incoming message is answered for. */
export interface MessageScope {
  caller: ToolCaller;
  /** The protocol version in force for this message. */
  protocolVersion: ProtocolVersion;
  /** undefined when the endpoint runs without sessions: nothing to cancel across requests. */
  connection: McpConnection | undefined;
  /** Whether tools/list shows a tool to this caller (side-effect-free checks only). */
  visible(entry: ToolEntry): boolean;
}

export interface McpServerOptions {
  serverInfo: Implementation;
  tools: ToolSet;
  container: Scope | undefined;
  reporter: ErrorReporter | undefined;
  /** Sent in the initialize result: how an agent should use these tools. */
  instructions?: string;
}

export class McpServer {
  readonly serverInfo: Implementation;
  readonly tools: ToolSet;
  private readonly callContext: ToolCallContext;
  private readonly instructions: string | undefined;

  constructor(options: McpServerOptions) {
    this.serverInfo = options.serverInfo;
    this.tools = options.tools;
    this.instructions = options.instructions;
    this.callContext = {
      container: options.container,
      reporter: options.reporter,
    };
  }

  /** The initialize result for a requested version: echoed when supported, else the latest. */
  initialize(params: Record<string, unknown> | undefined): InitializeResult {
    const result: InitializeResult = {
      protocolVersion: negotiateVersion(params?.protocolVersion),
      capabilities: { tools: { listChanged: false } },
      serverInfo: this.serverInfo,
    };
    if (this.instructions !== undefined) result.instructions = this.instructions;
    return result;
  }

  /** Answers a request (a promise of its response) or acts on a notification (undefined). Never rejects. */
  handle(
    message: JsonRpcRequest | JsonRpcNotification,
    scope: MessageScope,
  ): Promise<JsonRpcResponse | undefined> {
    // Not an async function: a tool call's promise is handed on as it is, without extra ticks.
    try {
      if (!('id' in message)) {
        this.notify(message, scope);
        return Promise.resolve(undefined);
      }
      if (message.method === 'tools/call') return this.call(message.id, message.params, scope);
      return Promise.resolve(this.answer(message, scope));
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /** Every request other than tools/call, answered at once. */
  private answer(message: JsonRpcRequest, scope: MessageScope): JsonRpcResponse {
    const { id, method, params } = message;
    switch (method) {
      case 'initialize': {
        const result = this.initialize(params);
        if (scope.connection !== undefined)
          scope.connection.protocolVersion = result.protocolVersion as ProtocolVersion;
        return success(id, result);
      }
      case 'ping':
        return success(id, {});
      case 'tools/list':
        return success(id, { tools: this.visibleTools(scope) });
      default:
        return failure(id, JSON_RPC_ERROR.METHOD_NOT_FOUND, `Method not found: ${method}`);
    }
  }

  private visibleTools(scope: MessageScope): unknown[] {
    const tools: unknown[] = [];
    for (const entry of this.tools.values()) if (scope.visible(entry)) tools.push(entry.tool);
    return tools;
  }

  private notify(message: JsonRpcNotification, scope: MessageScope): void {
    if (message.method !== 'notifications/cancelled') return;
    const requestId = message.params?.requestId;
    if (typeof requestId !== 'string' && typeof requestId !== 'number') return;
    scope.connection?.running.get(requestId)?.cancel();
  }

  private call(
    id: JsonRpcId,
    params: Record<string, unknown> | undefined,
    scope: MessageScope,
  ): Promise<JsonRpcResponse> {
    const name = params?.name;
    if (typeof name !== 'string')
      return Promise.resolve(failure(id, JSON_RPC_ERROR.INVALID_PARAMS, 'params.name must be a tool name.'));
    const entry = this.tools.get(name);
    if (entry === undefined)
      return Promise.resolve(failure(id, JSON_RPC_ERROR.INVALID_PARAMS, `Unknown tool: ${name}`));
    // Left out means no arguments; null is not an object, so it is refused like any other non-object.
    const args = params?.arguments === undefined ? {} : params.arguments;
    if (!isJsonObject(args))
      return Promise.resolve(
        failure(id, JSON_RPC_ERROR.INVALID_PARAMS, 'params.arguments must be an object.'),
      );

    // Only a connection can carry notifications/cancelled; without one (stateless HTTP) nothing can cancel.
    const running = scope.connection?.running;
    const cancellation = running === undefined ? undefined : new CallCancellation();
    if (cancellation !== undefined) running?.set(id, cancellation);
    const settled = () => {
      if (cancellation !== undefined && running?.get(id) === cancellation) running.delete(id);
    };
    let called: Promise<CallToolResult>;
    try {
      called = runToolCall(this.callContext, entry, args, scope.caller, {
        cancellation,
        structured: hasStructuredContent(scope.protocolVersion),
      });
    } catch (error) {
      called = Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    return called.then(
      (result): JsonRpcResponse => {
        settled();
        return success(id, result);
      },
      (error: unknown): JsonRpcResponse => {
        settled();
        return this.callFailed(id, entry, error);
      },
    );
  }

  private callFailed(id: JsonRpcId, entry: ToolEntry, error: unknown): JsonRpcResponse {
    if (error instanceof ToolCallCancelled)
      return failure(id, JSON_RPC_ERROR.REQUEST_CANCELLED, 'Request cancelled.');
    // runToolCall answers every route error as a result; this is a bug in svc itself.
    report(this.callContext.reporter, {
      error,
      code: 'INTERNAL_ERROR',
      status: 500,
      requestId: undefined,
      method: 'tools/call',
      route: entry.route.url,
      internalDetails: undefined,
    });
    return failure(id, JSON_RPC_ERROR.INTERNAL_ERROR, 'Internal error.');
  }
}
