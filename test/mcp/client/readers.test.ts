// The framing helpers on their own: event-stream parsing, capped body reads, stdio line splitting, the
// stderr tail, and the child environment.
import { describe, expect, it } from 'vitest';
import { LineReader } from '../../../runtime/mcp/protocol/line-reader.js';
import { TailBuffer } from '../../../runtime/mcp/client/tail-buffer.js';
import {
  BodyTooLargeError,
  readPrefix,
  readSseEvents,
  readText,
} from '../../../runtime/mcp/client/sse-reader.js';
import { DEFAULT_INHERITED_ENV, childEnv } from '../../../runtime/mcp/client/stdio-env.js';

function streamOf(...chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

async function events(stream: ReadableStream<Uint8Array>, maxBytes = 1024) {
  const all = [];
  for await (const event of readSseEvents(stream, maxBytes)) all.push(event);
  return all;
}

describe('readSseEvents', () => {
  it('joins data lines, honours event names, skips comments and other fields, accepts CR, LF and CRLF', async () => {
    const stream = streamOf(
      ': keep-alive\n\n',
      'id: 7\nretry: 100\nevent: message\ndata: {"a":\ndata: 1}\n\n',
      'event: other\r\ndata: x\r\n\r\n',
      'data:no-space\r\rdata: last\n\n',
    );
    expect(await events(stream)).toEqual([
      { event: 'message', data: '{"a":\n1}' },
      { event: 'other', data: 'x' },
      { event: 'message', data: 'no-space' },
      { event: 'message', data: 'last' },
    ]);
  });

  it('waits for the LF after a CR that ends a chunk, and decodes characters split across chunks', async () => {
    const bytes = new TextEncoder().encode('data: é\r\n\r\n');
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.subarray(0, 7)); // 'data: ' + first byte of é
        controller.enqueue(bytes.subarray(7, 9)); // second byte of é + CR
        controller.enqueue(bytes.subarray(9));
        controller.close();
      },
    });
    expect(await events(stream)).toEqual([{ event: 'message', data: 'é' }]);
  });

  it('drops an unfinished event at the end and refuses an event past maxBytes', async () => {
    expect(await events(streamOf('data: done\n\ndata: cut'))).toEqual([{ event: 'message', data: 'done' }]);
    await expect(events(streamOf(`data: ${'x'.repeat(100)}\n\n`), 50)).rejects.toBeInstanceOf(
      BodyTooLargeError,
    );
    await expect(events(streamOf('x'.repeat(100)), 50)).rejects.toBeInstanceOf(BodyTooLargeError);
  });
});

describe('body readers', () => {
  it('readText reads the whole body and refuses one past maxBytes', async () => {
    expect(await readText(streamOf('ab', 'c'), 3)).toBe('abc');
    await expect(readText(streamOf('ab', 'cd'), 3)).rejects.toBeInstanceOf(BodyTooLargeError);
  });

  it('readPrefix keeps the first bytes without a broken character at the cut', async () => {
    expect(await readPrefix(streamOf('a'.repeat(600), 'b'.repeat(600)))).toBe(
      'a'.repeat(600) + 'b'.repeat(424),
    );
    expect(await readPrefix(streamOf('aé'), 2)).toBe('a');
    expect(await readPrefix(null)).toBe('');
  });
});

describe('LineReader and TailBuffer', () => {
  it('splits lines across chunks, strips CR, and reports a line past the cap', () => {
    const lines: string[] = [];
    const reader = new LineReader(10, (line) => lines.push(line));
    expect(reader.push(Buffer.from('one\r\ntw'))).toBe(true);
    expect(reader.push(Buffer.from('o\nthree\n'))).toBe(true);
    expect(lines).toEqual(['one', 'two', 'three']);
    expect(reader.push(Buffer.from('0123456789'))).toBe(true);
    expect(reader.push(Buffer.from('X'))).toBe(false);
    expect(new LineReader(4, () => undefined).push(Buffer.from('12345\n'))).toBe(false);
  });

  it('TailBuffer keeps only the last bytes', () => {
    const tail = new TailBuffer(5);
    tail.push(Buffer.from('abc'));
    tail.push(Buffer.from('defg'));
    expect(tail.text()).toBe('cdefg');
  });
});

describe('childEnv', () => {
  const parent = { PATH: '/bin', HOME: '/home/u', LANG: 'C.UTF-8', TMPDIR: '/t', SECRET: 's', OTHER: 'o' };

  it('forwards only the default names, then inheritEnv names, then env', () => {
    expect(childEnv({}, parent)).toEqual({ PATH: '/bin', HOME: '/home/u', LANG: 'C.UTF-8', TMPDIR: '/t' });
    expect(childEnv({ inheritEnv: ['SECRET', 'MISSING'], env: { HOME: '/x', NEW: 'n' } }, parent)).toEqual({
      PATH: '/bin',
      HOME: '/x',
      LANG: 'C.UTF-8',
      TMPDIR: '/t',
      SECRET: 's',
      NEW: 'n',
    });
    expect(childEnv({ inheritEnv: true }, parent)).toEqual(parent);
  });

  it('lists PATH, HOME, locale and temp-dir variables and no credentials', () => {
    expect(DEFAULT_INHERITED_ENV).toEqual(
      expect.arrayContaining(['PATH', 'HOME', 'LANG', 'LC_ALL', 'TMPDIR', 'TEMP']),
    );
    expect(DEFAULT_INHERITED_ENV.filter((name) => /KEY|TOKEN|SECRET|PASS|URL|USER$/i.test(name))).toEqual([]);
    expect(Object.isFrozen(DEFAULT_INHERITED_ENV)).toBe(true);
  });
});

describe('LineReader with onTooLong (the stdio server)', () => {
  it('reports an over-long line once, drops it across chunks up to its newline, and reads on', () => {
    const lines: string[] = [];
    let tooLong = 0;
    const reader = new LineReader(
      8,
      (line) => lines.push(line),
      () => tooLong++,
    );
    expect(reader.push(Buffer.from('ok\nabcdefgh'))).toBe(true);
    expect(reader.push(Buffer.from('ijklmnop'))).toBe(true);
    expect(reader.push(Buffer.from('qrs\nnext\r\n0123456789\nlast'))).toBe(true);
    expect(reader.push(Buffer.from('\n'))).toBe(true);
    expect(lines).toEqual(['ok', 'next', 'last']);
    expect(tooLong).toBe(2);
  });
});
