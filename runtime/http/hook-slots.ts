// Per-request state of request hooks (an open span, the metrics series counted up), kept between a hook's
// onRequest and its onResponse. Each hook keys its slot with its own symbol on the request's context: a
// property on an object the request already carries costs next to nothing, a WeakMap keyed by the request
// cost more than the rest of a hook (bench/RESULTS.md, `npm run bench -- edge`).
import type { SvcRequest } from './types.js';

export type HookSlots = Record<symbol, unknown>;

export function hookSlots(request: SvcRequest): HookSlots {
  const context = request.context;
  let slots = context.hookSlots as HookSlots | undefined;
  if (slots === undefined) {
    slots = {};
    context.hookSlots = slots;
  }
  return slots;
}

/** The request's slots when some hook made them; reading this way allocates nothing. */
export function existingHookSlots(request: SvcRequest): HookSlots | undefined {
  return request.context.hookSlots as HookSlots | undefined;
}
