// Streaming multipart/form-data framing (RFC 2046 §5.1, RFC 7578): finds the delimiter `\r\n--<boundary>`
// with Buffer#indexOf and hands part bytes to a sink as slices of the incoming chunks, never copies. The
// only bytes held back across chunks are a possible delimiter prefix at a chunk's end, and since `\r` is
// the delimiter's only CR, those bytes are known to equal the delimiter's own start: only their count is kept.
import { parsePartHeaders, type PartHeaders } from './part-headers.js';
import { malformed } from './upload-errors.js';

/** Receives a body's parts in order. A thrown error stops the parse and propagates out of write(). */
export interface PartSink {
  /** `dataOffset`: where the part's data begins in the chunk being written (all before it is consumed). */
  partStart(headers: PartHeaders, dataOffset: number): void;
  /** A slice of an incoming chunk (or a few held-back bytes); valid as long as the chunk is. */
  partData(data: Buffer): void;
  partEnd(): void;
}

const enum State {
  /** Before the first delimiter: bytes are ignored. */
  Preamble,
  /** Right after a delimiter: `--` (close), or optional padding then CRLF. */
  DelimiterLine,
  Headers,
  Body,
  /** After the close delimiter: bytes are ignored. */
  Epilogue,
}

const CR = 0x0d;
const LF = 0x0a;
const DASH = 0x2d;
const SPACE = 0x20;
const TAB = 0x09;
const HEADER_END = Buffer.from('\r\n\r\n', 'latin1');
const EMPTY = Buffer.alloc(0);

const enum LineStep {
  Start,
  SecondDash,
  Padding,
  LineFeed,
}

export class MultipartParser {
  private readonly delimiter: Buffer;
  private readonly maxHeaderBytes: number;
  private readonly sink: PartSink;
  private state = State.Preamble;
  /**
   * How many bytes at the end of the previous chunk matched the delimiter's start. The preamble begins
   * with 2, as if CRLF preceded the body, so a delimiter on the very first line is found like any other.
   */
  private heldBack = 2;
  private lineStep = LineStep.Start;
  private padding = 0;
  /** Header bytes of the current part seen in earlier chunks (copied: they are few and bounded). */
  private headerBuffer: Buffer | undefined;
  private headerLength = 0;

  constructor(boundary: string, maxHeaderBytes: number, sink: PartSink) {
    this.delimiter = Buffer.from(`\r\n--${boundary}`, 'latin1');
    this.maxHeaderBytes = maxHeaderBytes;
    this.sink = sink;
  }

  /** True once the close delimiter was read. */
  get complete(): boolean {
    return this.state === State.Epilogue;
  }

  write(chunk: Buffer): void {
    let at = 0;
    const length = chunk.length;
    while (at < length) {
      switch (this.state) {
        case State.Body:
        case State.Preamble:
          at = this.scanBody(chunk, at);
          break;
        case State.DelimiterLine:
          at = this.delimiterLine(chunk, at);
          break;
        case State.Headers:
          at = this.headers(chunk, at);
          break;
        case State.Epilogue:
          return;
      }
    }
  }

  /** The body ended: throws MALFORMED_MULTIPART unless the close delimiter was read. */
  end(): void {
    if (this.state !== State.Epilogue) throw malformed('truncated');
  }

  private emit(data: Buffer): void {
    if (this.state === State.Body) this.sink.partData(data);
  }

  /** Part bytes up to the next delimiter; returns where to go on, or the chunk's length. */
  private scanBody(chunk: Buffer, from: number): number {
    const delimiter = this.delimiter;
    const length = chunk.length;
    const at = from;
    if (this.heldBack > 0) {
      const held = this.heldBack;
      const wanted = delimiter.length - held;
      const available = Math.min(wanted, length - at);
      if (chunk.compare(delimiter, held, held + available, at, at + available) === 0) {
        if (available < wanted) {
          this.heldBack += available;
          return length;
        }
        this.heldBack = 0;
        return this.delimiterFound(at + available);
      }
      // Not a delimiter after all: the held-back bytes were data (and equal the delimiter's start).
      this.heldBack = 0;
      if (this.state === State.Body) this.sink.partData(Buffer.from(delimiter.subarray(0, held)));
    }
    const found = chunk.indexOf(delimiter, at);
    if (found !== -1) {
      if (found > at) this.emit(chunk.subarray(at, found));
      return this.delimiterFound(found + delimiter.length);
    }
    // A delimiter may begin in the last bytes; it can only begin at a CR.
    let tail = chunk.indexOf(CR, Math.max(at, length - delimiter.length + 1));
    while (tail !== -1 && chunk.compare(delimiter, 0, length - tail, tail, length) !== 0) {
      tail = chunk.indexOf(CR, tail + 1);
    }
    const dataEnd = tail === -1 ? length : tail;
    if (dataEnd > at) this.emit(chunk.subarray(at, dataEnd));
    this.heldBack = length - dataEnd;
    return length;
  }

  private delimiterFound(next: number): number {
    if (this.state === State.Body) this.sink.partEnd();
    this.state = State.DelimiterLine;
    this.lineStep = LineStep.Start;
    this.padding = 0;
    return next;
  }

  /** The rest of a delimiter line: `--` closes the body; otherwise optional spaces or tabs, then CRLF. */
  private delimiterLine(chunk: Buffer, from: number): number {
    for (let at = from; at < chunk.length; at++) {
      const byte = chunk[at];
      switch (this.lineStep) {
        case LineStep.Start:
          if (byte === DASH) {
            this.lineStep = LineStep.SecondDash;
            continue;
          }
          if (byte === CR) {
            this.lineStep = LineStep.LineFeed;
            continue;
          }
          if (byte !== SPACE && byte !== TAB) throw malformed('delimiter-invalid');
          this.lineStep = LineStep.Padding;
          this.padding = 1;
          continue;
        case LineStep.SecondDash:
          if (byte !== DASH) throw malformed('delimiter-invalid');
          this.state = State.Epilogue;
          return chunk.length;
        case LineStep.Padding:
          if (byte === CR) {
            this.lineStep = LineStep.LineFeed;
            continue;
          }
          if ((byte !== SPACE && byte !== TAB) || ++this.padding > this.maxHeaderBytes) {
            throw malformed('delimiter-invalid');
          }
          continue;
        case LineStep.LineFeed:
          if (byte !== LF) throw malformed('delimiter-invalid');
          this.state = State.Headers;
          this.headerLength = 0;
          return at + 1;
      }
    }
    return chunk.length;
  }

  /** The header block up to the blank line; at most maxHeaderBytes before it. */
  private headers(chunk: Buffer, from: number): number {
    // Enough to find a terminator right after the largest block allowed.
    const window = this.maxHeaderBytes + HEADER_END.length;
    const before = this.headerLength;
    if (before === 0) {
      // Usually the whole block is in this chunk: nothing is copied.
      const view = chunk.subarray(from, from + window);
      // A block without any header line: the delimiter line's CRLF is followed by CRLF at once.
      if (view.length >= 2 && view[0] === CR && view[1] === LF) return this.startPart(EMPTY, from + 2);
      const end = view.indexOf(HEADER_END);
      if (end !== -1) return this.startPart(view.subarray(0, end), from + end + HEADER_END.length);
      if (view.length >= window) throw malformed('header-too-large');
      this.appendHeader(view);
      return chunk.length;
    }
    this.appendHeader(chunk.subarray(from, from + Math.min(chunk.length - from, window - before)));
    const block = (this.headerBuffer as Buffer).subarray(0, this.headerLength);
    if (before < 2 && block.length >= 2 && block[0] === CR && block[1] === LF) {
      return this.startPart(EMPTY, from + 2 - before);
    }
    // Only where a terminator could newly begin: a chunk of one byte at a time stays linear.
    const end = block.indexOf(HEADER_END, Math.max(0, before - HEADER_END.length + 1));
    if (end !== -1) return this.startPart(block.subarray(0, end), from + end + HEADER_END.length - before);
    if (block.length >= window) throw malformed('header-too-large');
    return chunk.length;
  }

  /** Keeps header bytes across chunks in one buffer that grows by doubling, up to the header window. */
  private appendHeader(bytes: Buffer): void {
    const needed = this.headerLength + bytes.length;
    let buffer = this.headerBuffer;
    if (buffer === undefined || buffer.length < needed) {
      const window = this.maxHeaderBytes + HEADER_END.length;
      const grown = Buffer.allocUnsafe(Math.min(window, Math.max(256, needed * 2)));
      if (buffer !== undefined) buffer.copy(grown, 0, 0, this.headerLength);
      this.headerBuffer = buffer = grown;
    }
    bytes.copy(buffer, this.headerLength);
    this.headerLength = needed;
  }

  private startPart(block: Buffer, next: number): number {
    if (block.length > this.maxHeaderBytes) throw malformed('header-too-large');
    const headers = parsePartHeaders(block);
    this.headerLength = 0;
    this.state = State.Body;
    this.sink.partStart(headers, next);
    return next;
  }
}
