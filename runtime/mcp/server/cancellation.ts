// How a running tool call is cancelled (notifications/cancelled, a session ending). The call's answer is
// released at once; the handler learns of it through toolSignal(request), whose AbortSignal is made only
// when a handler asks for it: creating one costs more than the rest of a small call's bookkeeping.

export class CallCancellation {
  private cancelled = false;
  private controller: AbortController | undefined;
  private listener: (() => void) | undefined;

  get isCancelled(): boolean {
    return this.cancelled;
  }

  /** The handler-facing signal; already aborted when the call was cancelled before it was asked for. */
  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.cancelled) this.controller.abort();
    }
    return this.controller.signal;
  }

  /** Called once when the call is cancelled (the caller answers it). */
  onCancel(listener: () => void): void {
    this.listener = listener;
  }

  cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.controller?.abort();
    this.listener?.();
  }
}
