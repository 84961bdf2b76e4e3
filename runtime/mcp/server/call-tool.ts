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
  /** How the call can be cancelled; none when nothing can cancel it. */
  cancellation?: CallCancellation;
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
  const { cancellation } = options;
  if (cancellation?.isCancelled === true) return Promise.reject(new ToolCallCancelled());
  const request = toolRequest(entry, args, caller, context.container, cancellation);
  const reply = new ToolReply(entry.route.successStatus ?? 200);

  const answered = (async (): Promise<CallToolResult> => {
    try {
      await entry.compiled.execute(request, reply);
    } catch (error) {
      const failed = resultFromError(error, entry.redact, options.structured);
      if (failed.status >= 500) {
        report(context.reporter, {
          error,
          code: failed.code,
          status: failed.status,
          requestId: request.context.requestId,
          method: request.method,
          route: entry.route.url,
          internalDetails: internalDetailsOf(error),
        });
      }
      return failed.result;
    }
    const response = reply.response ?? { status: reply.statusCode, body: undefined, contentType: undefined };
    return resultFromResponse(response, options.structured);
  })();

  if (cancellation === undefined) return answered;
  return new Promise<CallToolResult>((resolve, reject) => {
    cancellation.onCancel(() => reject(new ToolCallCancelled()));
    answered.then(resolve, reject);
  });
}
