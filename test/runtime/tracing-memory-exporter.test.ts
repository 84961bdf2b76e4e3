// The in-memory span exporter: a bounded ring that keeps the newest spans, oldest first, and counts the rest.
import { describe, expect, it } from 'vitest';
import { inMemoryExporter, type FinishedSpan } from 'svckit';

function span(n: number): FinishedSpan {
  return {
    serviceName: 'test',
    traceId: n.toString(16).padStart(32, '0'),
    spanId: n.toString(16).padStart(16, '0'),
    parentSpanId: undefined,
    name: `GET /${n}`,
    kind: 'server',
    startTimeUnixMs: n,
    endTimeUnixMs: n + 1,
    attributes: {},
    status: 'unset',
    flags: '01',
  };
}

const names = (spans: FinishedSpan[]) => spans.map((kept) => kept.name);

describe('inMemoryExporter', () => {
  it('keeps every span, oldest first, until the limit', () => {
    const exporter = inMemoryExporter({ maxSpans: 3 });
    exporter.export(span(1));
    exporter.export(span(2));
    expect(names(exporter.spans)).toEqual(['GET /1', 'GET /2']);
    expect(exporter.dropped).toBe(0);
  });

  it('keeps the newest maxSpans once full and counts the dropped ones', () => {
    const exporter = inMemoryExporter({ maxSpans: 3 });
    for (let n = 1; n <= 8; n++) exporter.export(span(n));
    expect(names(exporter.spans)).toEqual(['GET /6', 'GET /7', 'GET /8']);
    expect(exporter.dropped).toBe(5);
  });

  it('hands out a copy, and clear() starts over', () => {
    const exporter = inMemoryExporter({ maxSpans: 2 });
    for (let n = 1; n <= 3; n++) exporter.export(span(n));
    const copy = exporter.spans;
    copy.pop();
    expect(exporter.spans).toHaveLength(2);
    exporter.clear();
    expect(exporter.spans).toEqual([]);
    expect(exporter.dropped).toBe(0);
    exporter.export(span(9));
    expect(names(exporter.spans)).toEqual(['GET /9']);
  });

  it.each([0, -1, 1.5, Number.NaN])('refuses maxSpans %s', (maxSpans) => {
    expect(() => inMemoryExporter({ maxSpans })).toThrow(/maxSpans must be a positive integer/);
  });
});
