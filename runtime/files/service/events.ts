// The file service's events: its own subscribers (`service.on`), and their place on the app's hook bus
// (filesPlugin forwards them). An event reports something that already happened, so a handler that throws
// is logged and does not turn the finished operation into a failure.
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

export class FileEvents {
  private readonly handlers = new Map<FileEventName, Handler<never>[]>();

  constructor(private readonly logger: Logger) {}

  on<E extends FileEventName>(event: E, handler: Handler<E>): () => void {
    if (typeof handler !== 'function') throw invalidOption('FileService.on()', 'handler', 'a function');
    let list = this.handlers.get(event);
    if (list === undefined) this.handlers.set(event, (list = []));
    list.push(handler as Handler<never>);
    return () => {
      const index = list.indexOf(handler as Handler<never>);
      if (index >= 0) list.splice(index, 1);
    };
  }

  /** Runs the handlers one after another (awaited, like the hook bus); a failing one is logged and skipped. */
  async emit<E extends FileEventName>(event: E, payload: FileEventPayloads[E]): Promise<void> {
    for (const handler of [...(this.handlers.get(event) ?? [])]) {
      try {
        await (handler as Handler<E>)(payload);
      } catch (error) {
        this.logger.error('file event handler failed', { event, error: errorFields(error) });
      }
    }
  }
}
