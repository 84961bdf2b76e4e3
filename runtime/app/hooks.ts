// The application hook bus. Handlers run in registration order and are awaited one after another,
// so a hook that must finish before start-up continues (app:booted) can be async.

export interface HookEvents {
  /** After every plugin booted; adapters mount edge hooks, the 404 handler and the OpenAPI build here. */
  'app:booted': { app: unknown };
  /** Once the server listens; `url` is where (the port chosen when 0 was asked for). */
  'app:listening': { app: unknown; url: string };
  /** Before the server stops listening: stop taking work (timers, exporters, outgoing mail). */
  'app:closing': { app: unknown };
  /**
   * After the server stopped and every request in flight was answered: release what requests used
   * (database connections, store clients).
   */
  'app:closed': { app: unknown };
}

export type HookName = keyof HookEvents;
type HookHandler<E extends HookName> = (payload: HookEvents[E]) => void | Promise<void>;

export class Hooks {
  private readonly handlers = new Map<HookName, HookHandler<never>[]>();

  on<E extends HookName>(event: E, handler: HookHandler<E>): () => void {
    let list = this.handlers.get(event);
    if (!list) this.handlers.set(event, (list = []));
    list.push(handler as HookHandler<never>);
    return () => {
      const index = list.indexOf(handler as HookHandler<never>);
      if (index >= 0) list.splice(index, 1);
    };
  }

  async emit<E extends HookName>(event: E, payload: HookEvents[E]): Promise<void> {
    // A copy: a handler that unsubscribes itself (or another) must not make the walk skip the next one.
    for (const handler of [...(this.handlers.get(event) ?? [])]) {
      await (handler as HookHandler<E>)(payload);
    }
  }
}
