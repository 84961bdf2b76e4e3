// The file service's events: its own subscribers (`service.on`), and their place on the app's hook bus
// (filesPlugin forwards them). An event reports something that already happened, so a handler that throws
// is logged and does not turn the finished operation into a failure.
import { Hooks, type HookEvents } from '../../app/hooks.js';
import { invalidOption } from '../../config/option-errors.js';
import { errorFields } from '../../log/error-fields.js';
import type { Logger } from '../../log/logger.js';
import type { FileEventName, FileEventPayloads } from './api.js';

declare module '../../app/hooks.js' {
  // Declaration merging: the file events join the hook bus's typed event map.
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface HookEvents extends FileEventPayloads {}
}

type Handler<E extends FileEventName> = (payload: FileEventPayloads[E]) => void | Promise<void>;

/** A hook bus of the service's own whose handlers cannot fail the operation that emitted the event. */
export class FileEvents {
  private readonly hooks = new Hooks();

  constructor(private readonly logger: Logger) {}

  on<E extends FileEventName>(event: E, handler: Handler<E>): () => void {
    if (typeof handler !== 'function') throw invalidOption('FileService.on()', 'handler', 'a function');
    return this.hooks.on(event, async (payload) => {
      try {
        await handler(payload);
      } catch (error) {
        this.logger.error('file event handler failed', { event, error: errorFields(error) });
      }
    });
  }

  /** Runs the handlers one after another (awaited, like the app's hook bus); a failing one is logged. */
  emit<E extends FileEventName>(event: E, payload: FileEventPayloads[E]): Promise<void> {
    return this.hooks.emit(event, payload as HookEvents[E]);
  }
}
