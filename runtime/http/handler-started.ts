// Whether the route's handler has started on a request. Hooks that must tell the handler's answer apart from
// one given before it ran (a guard's 401 or 429, a validation 400) read it: idempotency keeps only the former.
import type { RequestContext } from './types.js';

/** The context's own slot; svc's context class declares it so every context keeps one shape. */
export const HANDLER_STARTED: unique symbol = Symbol('svc.handlerStarted');

interface Marked {
  [HANDLER_STARTED]?: boolean;
}

/** Called by the pipeline right before the handler runs, once the request passed every check. */
export function markHandlerStarted(context: RequestContext): void {
  (context as Marked)[HANDLER_STARTED] = true;
}

export function handlerStarted(context: RequestContext): boolean {
  return (context as Marked)[HANDLER_STARTED] === true;
}
