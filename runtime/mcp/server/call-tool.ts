// One tool call: the route's enrichers, guards, validation and handler run in process on the synthetic
// request, exactly as for HTTP (the pipeline's `execute`), and the answer or the error becomes the result.
// A cancelled call is answered at once; the handler can notice through `toolSignal(request)`.
import type { Scope } from '../../app/container.js';
import { internalDetailsOf, report, type ErrorReporter } from '../../http/report.js';
import type { SvcRequest } from '../../http/types.js';
import type { CallToolResult } from '../protocol/types.js';
import { cancellationOf, toolRequest, type ToolCaller } from './tool-request.js';
import { resultFromError, resultFromResponse } from './tool-result.js';
import { ToolReply } from './tool-reply.js';
import type { ToolEntry } from './tool-set.js';
import type { CallCancellation } from './cancellation.js';

/**
 * The cancellation signal of the tool call `request` belongs to; undefined for plain HTTP requests and for
 * calls nothing can cancel (stateless HTTP). A handler doing long work checks `toolSignal(request)?.aborted`
 * or listens for its `abort` event.
 */
export function toolSignal(request: SvcRequest): AbortSignal | undefined {
  return cancellationOf(request)?.signal;
}

/** Thrown by runToolCall when the call was cancelled before it finished. */
export class ToolCallCancelled extends Error {
  constructor() {
    super('The tool call was cancelled.');
    this.name = 'ToolCallCancelled';
  }
}

export interface ToolCallOptions {
  /** How the call can be cancelled; undefined when nothing can cancel it. */
  cancellation?: CallCancellation | undefined;
  /** Include `structuredContent` (protocol 2025-06-18 and later). */
  structured: boolean;
}

export interface ToolCallContext {
  container: Scope | undefined;
  reporter: ErrorReporter | undefined;
}

export function runToolCall(
  context: ToolCallContext,
  entry: ToolEntry,
  args: Record<string, unknown>,
  caller: ToolCaller,
  options: ToolCallOptions,
): Promise<CallToolResult> {
  const { cancellation, structured } = options;
  if (cancellation?.isCancelled === true) return Promise.reject(new ToolCallCancelled());
  const request = toolRequest(entry, args, caller, context.container, cancellation);
  const reply = new ToolReply(entry.route.successStatus ?? 200);

  const failed = (error: unknown): CallToolResult => {
    const result = resultFromError(error, entry.redact, structured);
    if (result.status >= 500) {
      report(context.reporter, {
        error,
        code: result.code,
        status: result.status,
        requestId: request.context.requestId,
        method: request.method,
        route: entry.route.url,
        internalDetails: internalDetailsOf(error),
      });
    }
    return result.result;
  };
  const answeredResult = (): CallToolResult =>
    resultFromResponse(
      reply.response ?? {
        status: reply.statusCode,
        body: undefined,
        contentType: undefined,
        serializedJson: false,
      },
      structured,
    );

  // A route with no asynchronous step answers synchronously: no promise to wait for.
  const started = (): Promise<CallToolResult> | undefined => {
    try {
      return entry.compiled.execute(request, reply)?.then(answeredResult, failed);
    } catch (error) {
      return Promise.resolve(failed(error));
    }
  };
  const answered = started() ?? Promise.resolve(answeredResult());

  if (cancellation === undefined) return answered;
  return new Promise<CallToolResult>((resolve, reject) => {
    cancellation.onCancel(() => reject(new ToolCallCancelled()));
    answered.then(resolve, reject);
  });
}
