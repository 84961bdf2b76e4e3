// Applies the `http:request-hooks` of edge plugins: onRequest hooks before anything else (they may set
// headers, answer, or throw), beforeResponse hooks once the answer is final and before it is written (the
// write waits for them), onResponse hooks once the response was written. Failures of the last two are
// reported as AFTER_HOOK_FAILED and never touch the response.
import { performance } from 'node:perf_hooks';
import { toErrorResponse } from './envelope.js';
import { handlerStarted } from './handler-started.js';
import { JSON_CONTENT_TYPE } from './reply-mapping.js';
import { ReplyWrapper } from './reply-wrapper.js';
import { report, type ErrorReporter } from './report.js';
import type { Readable } from 'node:stream';
import type {
  OutgoingResponse,
  ReplySink,
  RequestHook,
  RequestHookInput,
  ResponseEvent,
  Route,
  SvcRequest,
} from './types.js';

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

/** What the observed reply needs from the runner: the two after-answer steps. */
interface ResponseSteps {
  /** Some hook has a beforeResponse step; without one, answers are written without building its input. */
  readonly hasBeforeResponse: boolean;
  /** Runs the beforeResponse hooks; a promise when the write must wait for some of them. */
  beforeResponse(response: OutgoingResponse): Promise<void> | undefined;
  onResponse(event: ResponseEvent): void;
  /** Reports a write that failed after waiting for beforeResponse hooks. */
  writeFailed(error: unknown, request: SvcRequest, route: Route | undefined): void;
}

/**
 * A reply that lets the beforeResponse hooks see the final answer before it is written, and tells the
 * onResponse hooks about it once it was. While a beforeResponse hook makes the write wait, the reply counts as
 * sent (the answer is decided; nothing else may answer), and `writing` is the write to wait for.
 */
class ObservedReply extends ReplyWrapper {
  private readonly request: SvcRequest;
  private readonly route: Route | undefined;
  private readonly started: number;
  private readonly steps: ResponseSteps;
  private notified = false;
  private streamed = false;
  private decided = false;
  /** The write waiting for beforeResponse hooks, until it happened. */
  writing: Promise<void> | undefined = undefined;

  constructor(inner: ReplySink, request: SvcRequest, route: Route | undefined, steps: ResponseSteps) {
    super(inner);
    this.request = request;
    this.route = route;
    this.started = performance.now();
    this.steps = steps;
  }

  override get sent(): boolean {
    return this.decided || this.inner.sent;
  }

  override finish(status: number, body: string | Buffer | undefined, contentType: string | undefined): void {
    if (this.decided) throw new Error('The response was already sent.');
    const waiting = this.before(status, body, contentType);
    if (waiting === undefined) {
      super.finish(status, body, contentType);
      return;
    }
    this.decided = true;
    this.writing = waiting.then(() => {
      this.decided = false;
      try {
        super.finish(status, body, contentType);
      } catch (error) {
        // Whoever called finish() has moved on and cannot answer the failure: answer it here.
        this.steps.writeFailed(error, this.request, this.route);
        if (!this.inner.sent) this.answerInternalError();
      }
    });
  }

  private answerInternalError(): void {
    const { status, body } = toErrorResponse(new Error('The response could not be written.'));
    try {
      super.finish(status, JSON.stringify(body), JSON_CONTENT_TYPE);
    } catch {
      // Nothing more can be sent on this response.
    }
  }

  override stream(status: number, source: Readable): Promise<void> {
    if (this.decided) return Promise.reject(new Error('The response was already sent.'));
    this.streamed = true;
    const waiting = this.before(status, undefined, undefined);
    if (waiting === undefined) return super.stream(status, source);
    this.decided = true;
    return waiting.then(() => {
      this.decided = false;
      return super.stream(status, source);
    });
  }

  private before(
    status: number,
    body: string | Buffer | undefined,
    contentType: string | undefined,
  ): Promise<void> | undefined {
    if (!this.steps.hasBeforeResponse) return undefined;
    const inner = this.inner;
    return this.steps.beforeResponse({
      request: this.request,
      route: this.route,
      status,
      streamed: this.streamed,
      body,
      contentType: contentType ?? headerText(inner.getHeader('content-type')),
      fromHandler: handlerStarted(this.request.context),
      getHeader: (name) => inner.getHeader(name),
    });
  }

  protected override afterWrite(
    status: number,
    body: string | Buffer | undefined,
    contentType: string | undefined,
  ): void {
    if (this.notified) return;
    this.notified = true;
    this.steps.onResponse({
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
  /** The reply to use for this request: the given one, or one that runs the response hooks. */
  observe(request: SvcRequest, route: Route | undefined, reply: ReplySink): ReplySink;
  /**
   * The write a beforeResponse hook made `reply` (what observe() returned) wait for, if any: the request is
   * answered once it settled. It never rejects.
   */
  pendingWrite(reply: ReplySink): Promise<void> | undefined;
}

export function createHookRunner(
  hooks: readonly RequestHook[],
  reporter: ErrorReporter | undefined,
): HookRunner {
  const onRequest: Array<{ name: string; run: OnRequest }> = [];
  const beforeResponse: RequestHook[] = [];
  const onResponse: RequestHook[] = [];
  for (const hook of hooks) {
    if (hook.onRequest !== undefined) onRequest.push({ name: hook.name, run: hook.onRequest.bind(hook) });
    if (hook.beforeResponse !== undefined) beforeResponse.push(hook);
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

  function reportHookFailure(error: unknown, hook: RequestHook, request: SvcRequest, route?: Route): void {
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

  function runBeforeResponse(response: OutgoingResponse): Promise<void> | undefined {
    let waiting: Promise<void>[] | undefined;
    for (const hook of beforeResponse) {
      const failed = (error: unknown) => reportHookFailure(error, hook, response.request, response.route);
      try {
        const pending = hook.beforeResponse?.(response);
        if (isThenable(pending)) (waiting ??= []).push(Promise.resolve(pending).then(undefined, failed));
      } catch (error) {
        failed(error);
      }
    }
    if (waiting === undefined) return undefined;
    return waiting.length === 1 ? waiting[0] : Promise.all(waiting).then(() => undefined);
  }

  function notify(event: ResponseEvent): void {
    for (const hook of onResponse) {
      try {
        hook.onResponse?.(event);
      } catch (error) {
        reportHookFailure(error, hook, event.request, event.route);
      }
    }
  }

  function writeFailed(error: unknown, request: SvcRequest, route: Route | undefined): void {
    report(reporter, {
      error,
      code: 'INTERNAL_ERROR',
      status: 500,
      requestId: request.context.requestId,
      method: request.method,
      route: route?.url,
      internalDetails: undefined,
    });
  }

  const steps: ResponseSteps = {
    hasBeforeResponse: beforeResponse.length > 0,
    beforeResponse: runBeforeResponse,
    onResponse: notify,
    writeFailed,
  };
  const observesResponses = beforeResponse.length > 0 || onResponse.length > 0;

  function observe(request: SvcRequest, route: Route | undefined, reply: ReplySink): ReplySink {
    if (!observesResponses) return reply;
    return new ObservedReply(reply, request, route, steps);
  }

  function pendingWrite(reply: ReplySink): Promise<void> | undefined {
    return reply instanceof ObservedReply ? reply.writing : undefined;
  }

  return {
    hasRequestHooks: onRequest.length > 0,
    runRequestHooks: (input) => runFrom(input, 0),
    observe,
    pendingWrite,
  };
}
