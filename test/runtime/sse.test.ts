// sse() without HTTP: event framing, options, and send() reporting a closed stream or a full buffer.
import type { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { encodeSseEvent, sse, type SseStream } from 'svckit';

function open(producer: (stream: SseStream) => void, options = {}): Readable {
  return sse(producer, options).body();
}

describe('encodeSseEvent', () => {
  it('frames data, event and id, one data line per line of text', () => {
    expect(encodeSseEvent({ data: 'hi' })).toBe('data: hi\n\n');
    expect(encodeSseEvent({ event: 'tick', id: '3', data: { n: 1 } })).toBe(
      'event: tick\nid: 3\ndata: {"n":1}\n\n',
    );
    expect(encodeSseEvent({ data: 'a\r\nb\rc\nd' })).toBe('data: a\ndata: b\ndata: c\ndata: d\n\n');
    expect(encodeSseEvent({ data: undefined })).toBe('data: null\n\n');
  });

  it('keeps event names and ids on their own line', () => {
    expect(encodeSseEvent({ event: 'x\ndata: forged', id: '1\r\n', data: '' })).toBe(
      'event: xdata: forged\nid: 1\ndata: \n\n',
    );
  });
});

describe('sse()', () => {
  it('refuses a producer that is not a function and bad durations', () => {
    expect(() => sse(undefined as unknown as () => void)).toThrow(TypeError);
    expect(() => sse(() => undefined, { heartbeatMs: 0 })).toThrow(/heartbeatMs/);
    expect(() => sse(() => undefined, { maxDurationMs: Number.NaN })).toThrow(/maxDurationMs/);
  });

  it('reports a full buffer: send() returns false once nobody reads', () => {
    let stream: SseStream | undefined;
    const readable = open((events) => {
      stream = events;
    });
    let accepted = 0;
    while (stream?.send({ data: 'x'.repeat(1024) }) === true) accepted++;
    expect(accepted).toBeGreaterThan(10);
    expect(accepted).toBeLessThan(200);
    expect(stream?.closed).toBe(false);
    readable.destroy();
  });

  it('runs onClose callbacks once when the stream is destroyed, and send() then returns false', async () => {
    let stream: SseStream | undefined;
    const calls: string[] = [];
    const readable = open((events) => {
      stream = events;
      events.onClose(() => calls.push('first'));
      events.onClose(() => {
        throw new Error('a failing callback');
      });
      events.onClose(() => calls.push('third'));
    });
    readable.destroy();
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toEqual(['first', 'third']);
    expect(stream?.send({ data: 'late' })).toBe(false);
    stream?.onClose(() => calls.push('after'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toEqual(['first', 'third', 'after']);
  });

  it('close() ends the stream after what was sent', async () => {
    const readable = open((events) => {
      events.send({ data: 'last' });
      events.close();
      expect(events.send({ data: 'ignored' })).toBe(false);
    });
    let text = '';
    for await (const chunk of readable) text += String(chunk);
    expect(text).toBe(': stream open\n\ndata: last\n\n');
  });
});
