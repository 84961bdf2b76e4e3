// Applies the `http:request-hooks` of edge plugins: onRequest hooks before anything else (they may set
// headers, answer, or throw), onResponse hooks once the response was written (their failures are reported as
// AFTER_HOOK_FAILED and never touch the response).
import { performance } from 'node:perf_hooks';
import { ReplyWrapper } from './reply-wrapper.js';
import { report, type ErrorReporter } from './report.js';
import type { Readable } from 'node:stream';
import type { ReplySink, RequestHook, RequestHookInput, ResponseEvent, Route, SvcRequest } from './types.js';

function headerText(value: string | number | string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  return Array.isArray(value) ? value.join(', ') : String(value);
}

type OnRequest = NonNullable<RequestHook['onRequest']>;

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    value !== null && typeof value === 'object' && typeof (value as { then?: unknown }).then === 'function'
  );
}

/** What an observed reply reports once the response was written. */
interface WrittenResponse {
  status: number;
  body: string | Buffer | undefined;
  contentType: string | undefined;
  streamed: boolean;
}

/** A reply that tells the response hooks about the answer once it was written. */
class ObservedReply extends ReplyWrapper {
  private readonly notify: (written: WrittenResponse) => void;
  private notified = false;
  private streamed = false;

  constructor(inner: ReplySink, notify: (written: WrittenResponse) => void) {
    super(inner);
    this.notify = notify;
  }

  override stream(status: number, source: Readable): Promise<void> {
    this.streamed = true;
    return super.stream(status, source);
  }

  protected override afterWrite(
    status: number,
    body: string | Buffer | undefined,
    contentType: string | undefined,
  ): void {
    if (this.notified) return;
    this.notified = true;
    this.notify({ status, body, contentType, streamed: this.streamed });
  }
}

export interface HookRunner {
  /** True when some hook has an onRequest step. */
  readonly hasRequestHooks: boolean;
  /** Runs the onRequest steps in order; stops as soon as one answered. Synchronous until a hook is async. */
  runRequestHooks(input: RequestHookInput): void | Promise<void>;
  /** The reply to use for this request: the given one, or one that reports to the onResponse hooks. */
  observe(request: SvcRequest, route: Route | undefined, reply: ReplySink): ReplySink;
}

export function createHookRunner(
  hooks: readonly RequestHook[],
  reporter: ErrorReporter | undefined,
): HookRunner {
  const onRequest: Array<{ name: string; run: OnRequest }> = [];
  const onResponse: RequestHook[] = [];
  for (const hook of hooks) {
    if (hook.onRequest !== undefined) onRequest.push({ name: hook.name, run: hook.onRequest.bind(hook) });
    if (hook.onResponse !== undefined) onResponse.push(hook);
  }

  function runFrom(input: RequestHookInput, from: number): void | Promise<void> {
    for (let index = from; index < onRequest.length; index++) {
      if (input.reply.sent) return;
      const pending = (onRequest[index] as { run: OnRequest }).run(input);
      if (isThenable(pending)) return Promise.resolve(pending).then(() => runFrom(input, index + 1));
    }
  }

  function observe(request: SvcRequest, route: Route | undefined, reply: ReplySink): ReplySink {
    if (onResponse.length === 0) return reply;
    const started = performance.now();
    return new ObservedReply(reply, ({ status, body, contentType, streamed }) => {
      const event: ResponseEvent = {
        request,
        route,
        status,
        durationMs: performance.now() - started,
        streamed,
        body,
        contentType: contentType ?? headerText(reply.getHeader('content-type')),
      };
      for (const hook of onResponse) {
        try {
          hook.onResponse?.(event);
        } catch (error) {
          report(reporter, {
            error,
            code: 'AFTER_HOOK_FAILED',
            status: 500,
            requestId: request.context.requestId,
            method: request.method,
            route: route?.url,
            internalDetails: { hook: hook.name },
          });
        }
      }
    });
  }

  return {
    hasRequestHooks: onRequest.length > 0,
    runRequestHooks: (input) => runFrom(input, 0),
    observe,
  };
}
