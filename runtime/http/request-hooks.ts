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

/** A reply that tells the response hooks about the answer once it was written. */
class ObservedReply extends ReplyWrapper {
  private readonly request: SvcRequest;
  private readonly route: Route | undefined;
  private readonly started: number;
  private readonly notify: (event: ResponseEvent) => void;
  private notified = false;
  private streamed = false;

  constructor(
    inner: ReplySink,
    request: SvcRequest,
    route: Route | undefined,
    notify: (event: ResponseEvent) => void,
  ) {
    super(inner);
    this.request = request;
    this.route = route;
    this.started = performance.now();
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
    this.notify({
      request: this.request,
      route: this.route,
      status,
      durationMs: performance.now() - this.started,
      streamed: this.streamed,
      body,
      contentType: contentType ?? headerText(this.inner.getHeader('content-type')),
    });
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

  const last = onRequest.length - 1;

  // Callers give a reply nothing has answered yet and check it after the hooks, so `sent` is read only
  // between hooks: this runs on every request.
  function runFrom(input: RequestHookInput, from: number): void | Promise<void> {
    for (let index = from; index <= last; index++) {
      const pending = (onRequest[index] as { run: OnRequest }).run(input);
      if (isThenable(pending)) {
        return Promise.resolve(pending).then(() =>
          index === last || input.reply.sent ? undefined : runFrom(input, index + 1),
        );
      }
      if (index < last && input.reply.sent) return;
    }
  }

  function notify(event: ResponseEvent): void {
    for (const hook of onResponse) {
      try {
        hook.onResponse?.(event);
      } catch (error) {
        const { request, route } = event;
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
  }

  function observe(request: SvcRequest, route: Route | undefined, reply: ReplySink): ReplySink {
    if (onResponse.length === 0) return reply;
    return new ObservedReply(reply, request, route, notify);
  }

  return {
    hasRequestHooks: onRequest.length > 0,
    runRequestHooks: (input) => runFrom(input, 0),
    observe,
  };
}
