// In-memory exporter: keeps the latest finished spans for tests and local debugging, bounded so a long-running
// process cannot grow without limit.
import type { FinishedSpan, SpanExporter } from './span.js';

export const DEFAULT_IN_MEMORY_SPAN_LIMIT = 1000;

export interface InMemoryExporter extends SpanExporter {
  /** The spans kept, oldest first (a copy). */
  readonly spans: FinishedSpan[];
  /** Spans dropped because the limit was reached. */
  readonly dropped: number;
  clear(): void;
}

export function inMemoryExporter(options: { maxSpans?: number } = {}): InMemoryExporter {
  const maxSpans = options.maxSpans ?? DEFAULT_IN_MEMORY_SPAN_LIMIT;
  if (!Number.isInteger(maxSpans) || maxSpans < 1) {
    throw new TypeError('inMemoryExporter(): maxSpans must be a positive integer.');
  }
  let kept: FinishedSpan[] = [];
  let dropped = 0;
  return {
    export(span) {
      kept.push(span);
      if (kept.length > maxSpans) {
        kept.shift();
        dropped++;
      }
    },
    get spans() {
      return [...kept];
    },
    get dropped() {
      return dropped;
    },
    clear() {
      kept = [];
      dropped = 0;
    },
  };
}
