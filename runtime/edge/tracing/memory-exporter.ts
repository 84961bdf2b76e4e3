// In-memory exporter: keeps the latest finished spans for tests and local debugging, bounded so a long-running
// process cannot grow without limit.
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import type { FinishedSpan, SpanExporter } from './span.js';
import { invalidOption } from '../../config/option-errors.js';

export const DEFAULT_IN_MEMORY_SPAN_LIMIT = 1000;

export interface InMemoryExporter extends SpanExporter {
  /** The spans kept, oldest first (a copy). */
  readonly spans: FinishedSpan[];
  /** Spans dropped because the limit was reached. */
  readonly dropped: number;
  clear(): void;
}

export interface InMemoryExporterOptions {
  /** Spans kept at most; the oldest is dropped beyond it. Default DEFAULT_IN_MEMORY_SPAN_LIMIT (1000). */
  maxSpans?: number;
}

/** The keys of InMemoryExporterOptions; any other is refused at creation. */
const EXPORTER_OPTIONS = optionKeys<InMemoryExporterOptions>({ maxSpans: true });

export function inMemoryExporter(options: InMemoryExporterOptions = {}): InMemoryExporter {
  rejectUnknownOptions(options, EXPORTER_OPTIONS, 'inMemoryExporter()');
  const maxSpans = options.maxSpans ?? DEFAULT_IN_MEMORY_SPAN_LIMIT;
  if (!Number.isInteger(maxSpans) || maxSpans < 1) {
    throw invalidOption('inMemoryExporter()', `maxSpans`, `a positive integer`);
  }
  // A ring: the slot after the newest holds the oldest once full, so keeping a span never moves the others.
  let ring: (FinishedSpan | undefined)[] = new Array<FinishedSpan | undefined>(maxSpans);
  let next = 0;
  let count = 0;
  let dropped = 0;
  return {
    export(span) {
      if (count === maxSpans) dropped++;
      else count++;
      ring[next] = span;
      next = next + 1 === maxSpans ? 0 : next + 1;
    },
    get spans() {
      const oldest = count === maxSpans ? next : 0;
      const spans: FinishedSpan[] = [];
      for (let index = 0; index < count; index++) {
        spans.push(ring[(oldest + index) % maxSpans] as FinishedSpan);
      }
      return spans;
    },
    get dropped() {
      return dropped;
    },
    clear() {
      ring = new Array<FinishedSpan | undefined>(maxSpans);
      next = 0;
      count = 0;
      dropped = 0;
    },
  };
}
