// startUpload: the handler's view of a streamed multipart/form-data body. Bytes are
// read only while somebody wants them: the handler waiting for its next file, or a file stream whose
// consumer asked for more; otherwise the request stream is paused, so a slow disk slows the client down
// instead of filling memory. Limits and malformed input reject the iteration and destroy the file stream in
// progress with the same error. finish() gives up whatever the handler left unread and drains the rest
// without parsing, within maxBytes.
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { UploadedFile, UploadInput, UploadLimits } from '../types.js';
import { boundaryOf } from './boundary.js';
import { DEFAULT_FILE_TYPE, FileEntry } from './file-entry.js';
import { matchesAllowedType } from './media-type-match.js';
import { MultipartParser, type PartSink } from './multipart-parser.js';
import { partSizeBound } from './part-size-bound.js';
import type { PartHeaders } from './part-headers.js';
import { discardUnread, receivedCompletely } from './unread-body.js';
import { malformed, tooLarge, tooManyFields, tooManyFiles, typeNotAllowed } from './upload-errors.js';
import { parseContentLength } from '../content-length.js';

export interface StartUploadInput {
  /** The unread request body. */
  stream: Readable;
  headers: IncomingHttpHeaders;
  limits: UploadLimits;
}

export interface UploadFinish {
  /** True when the request body was received to its end, so the connection can be kept. */
  complete: boolean;
}

export interface UploadSession {
  body: UploadInput;
  /** After the handler settled: skips unread files, drains the rest in the background. Never rejects. */
  finish(): Promise<UploadFinish>;
}

/** Where the bytes of the current part go. */
const enum Sink {
  None,
  Field,
  File,
  Discard,
}

const enum Phase {
  /** Nothing read yet. */
  Idle,
  Reading,
  /** Close delimiter and end of stream seen. */
  Done,
  Failed,
  /** finish() was called. */
  Closed,
}

const DONE: IteratorResult<UploadedFile> = { done: true, value: undefined };
/** Dropped from `fields`, like the query and form parsers do, so a later copy cannot be polluted. */
const FORBIDDEN_FIELD = '__proto__';

interface Waiter {
  resolve(result: IteratorResult<UploadedFile>): void;
  reject(error: unknown): void;
}

class UploadReader implements PartSink {
  readonly fields: Record<string, string> = Object.create(null) as Record<string, string>;
  private readonly source: Readable;
  private readonly limits: UploadLimits;
  private readonly parser: MultipartParser;
  private readonly boundary: string;
  /** The request's Content-Length: each file part then gets the bound of its size. */
  private readonly declaredLength: number | undefined;
  private phase = Phase.Idle;
  private failure: unknown;
  private received = 0;
  /** Body bytes received before the chunk the parser is reading. */
  private chunkStart = 0;
  private fileCount = 0;
  private fieldCount = 0;
  private sink = Sink.None;
  private partBytes = 0;
  private fieldName = '';
  private fieldChunks: Buffer[] = [];
  /** The file whose part is being read. */
  private active: FileEntry | undefined;
  private lastYielded: FileEntry | undefined;
  /** Files whose part began before the handler asked for them. */
  private readonly queue: FileEntry[] = [];
  private waiter: Waiter | undefined;
  private pendingNext: Promise<IteratorResult<UploadedFile>> | undefined;
  private iterationClosed = false;
  private flowing = false;
  private errorGuarded = false;
  private finishResult: Promise<UploadFinish> | undefined;

  constructor(source: Readable, boundary: string, limits: UploadLimits, declaredLength: number | undefined) {
    this.source = source;
    this.limits = limits;
    this.boundary = boundary;
    this.declaredLength = declaredLength;
    this.parser = new MultipartParser(boundary, limits.maxHeaderBytes, this);
  }

  // ---- the files iterator ----

  next(): Promise<IteratorResult<UploadedFile>> {
    if (this.pendingNext !== undefined) {
      // for-await never overlaps calls; a caller that does gets them answered in order.
      const again = () => this.next();
      return this.pendingNext.then(again, again);
    }
    if (this.failure !== undefined) return Promise.reject(this.failure);
    if (this.iterationClosed) return Promise.resolve(DONE);
    this.skipUnread();
    const queued = this.queue.shift();
    if (queued !== undefined) return Promise.resolve(this.yieldFile(queued));
    if (this.phase === Phase.Done) return Promise.resolve(DONE);
    const pending = new Promise<IteratorResult<UploadedFile>>((resolve, reject) => {
      this.waiter = { resolve, reject };
    });
    this.pendingNext = pending;
    this.listen();
    this.updateFlow();
    return pending;
  }

  /** The handler stopped iterating (break, throw): nothing more is read for the iterator. */
  stopIterating(): IteratorResult<UploadedFile> {
    this.iterationClosed = true;
    this.settleWaiter(DONE);
    this.updateFlow();
    return DONE;
  }

  private yieldFile(entry: FileEntry): IteratorResult<UploadedFile> {
    this.lastYielded = entry;
    this.updateFlow();
    return { done: false, value: entry.file };
  }

  private settleWaiter(result: IteratorResult<UploadedFile>): void {
    const waiter = this.waiter;
    if (waiter === undefined) return;
    this.waiter = undefined;
    this.pendingNext = undefined;
    waiter.resolve(result);
  }

  /** The handler asked for the next file without reading the previous one to its end. */
  private skipUnread(): void {
    const last = this.lastYielded;
    this.lastYielded = undefined;
    if (last === undefined || last.ended) return;
    last.abandon();
    if (this.active === last) {
      this.active = undefined;
      this.sink = Sink.Discard;
    }
  }

  // ---- the request stream ----

  private listen(): void {
    if (this.phase !== Phase.Idle) return;
    this.phase = Phase.Reading;
    const source = this.source;
    this.guardErrors();
    if (source.readableEnded) return this.onEnd();
    if (source.destroyed) return this.fail(malformed('aborted'));
    source.on('data', this.onData);
    source.on('end', this.onEnd);
    source.on('close', this.onClose);
    // Attaching 'data' may have started the flow; updateFlow() decides from a known state.
    source.pause();
    this.flowing = false;
  }

  private detach(): void {
    this.source.off('data', this.onData);
    this.source.off('end', this.onEnd);
    this.source.off('close', this.onClose);
  }

  /** A request error must never go unhandled, whatever state the session is in; it stays attached. */
  private guardErrors(): void {
    if (this.errorGuarded) return;
    this.errorGuarded = true;
    this.source.on('error', this.onError);
  }

  /** Reads on only while the iterator waits or the file in progress wants bytes. */
  private updateFlow(): void {
    if (this.phase !== Phase.Reading) return;
    const wanted =
      this.queue.length === 0 &&
      (this.sink === Sink.File ? (this.active as FileEntry).wantsData : this.waiter !== undefined);
    if (wanted === this.flowing) return;
    this.flowing = wanted;
    if (wanted) this.source.resume();
    else this.source.pause();
  }

  private readonly onData = (chunk: Buffer | string): void => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    this.chunkStart = this.received;
    this.received += bytes.length;
    try {
      if (this.received > this.limits.maxBytes) throw tooLarge('maxBytes');
      this.parser.write(bytes);
    } catch (error) {
      this.fail(error);
      return;
    }
    this.updateFlow();
  };

  private readonly onEnd = (): void => {
    if (this.phase !== Phase.Reading) return;
    try {
      this.parser.end();
    } catch (error) {
      this.fail(error);
      return;
    }
    this.phase = Phase.Done;
    this.detach();
    this.settleWaiter(DONE);
  };

  private readonly onError = (error: unknown): void => {
    if (this.phase === Phase.Reading) this.fail(malformed('aborted', error));
  };

  private readonly onClose = (): void => {
    if (this.phase === Phase.Reading && !this.source.readableEnded) this.fail(malformed('aborted'));
  };

  private fail(error: unknown): void {
    if (this.phase !== Phase.Reading) return;
    this.phase = Phase.Failed;
    this.failure = error;
    this.detach();
    this.source.pause();
    this.dropFiles(error as Error);
    const waiter = this.waiter;
    if (waiter !== undefined) {
      this.waiter = undefined;
      this.pendingNext = undefined;
      waiter.reject(error);
    }
  }

  /** Gives up the file in progress and the files nobody asked for yet. */
  private dropFiles(error?: Error): void {
    this.active?.abandon(error);
    for (const entry of this.queue) entry.abandon(error);
    this.queue.length = 0;
    this.active = undefined;
    this.sink = Sink.None;
    this.fieldChunks = [];
  }

  // ---- parts (PartSink) ----

  partStart(headers: PartHeaders, dataOffset: number): void {
    this.partBytes = 0;
    if (headers.filename === undefined) {
      if (++this.fieldCount > this.limits.maxFields) throw tooManyFields();
      this.sink = Sink.Field;
      this.fieldName = headers.name;
      this.fieldChunks = [];
      return;
    }
    if (++this.fileCount > this.limits.maxFiles) throw tooManyFiles();
    if (!matchesAllowedType(headers.contentType ?? DEFAULT_FILE_TYPE, this.limits.allowedTypes)) {
      throw typeNotAllowed();
    }
    const sizeAtMost =
      this.declaredLength === undefined
        ? undefined
        : partSizeBound(this.declaredLength, this.chunkStart + dataOffset, this.boundary);
    const entry = new FileEntry(headers, sizeAtMost, this.onFileRead, this.onFileClose);
    this.active = entry;
    this.sink = Sink.File;
    if (this.waiter !== undefined) this.settleWaiter(this.yieldFile(entry));
    else this.queue.push(entry);
  }

  partData(data: Buffer): void {
    this.partBytes += data.length;
    switch (this.sink) {
      case Sink.File:
        if (this.partBytes > this.limits.maxFileBytes) throw tooLarge('maxFileBytes');
        (this.active as FileEntry).push(data);
        return;
      case Sink.Discard:
        if (this.partBytes > this.limits.maxFileBytes) throw tooLarge('maxFileBytes');
        return;
      case Sink.Field:
        if (this.partBytes > this.limits.maxFieldBytes) throw tooLarge('maxFieldBytes');
        this.fieldChunks.push(data);
        return;
      case Sink.None:
        return;
    }
  }

  partEnd(): void {
    if (this.sink === Sink.File) {
      (this.active as FileEntry).finish();
      this.active = undefined;
    } else if (this.sink === Sink.Field) {
      const chunks = this.fieldChunks;
      this.fieldChunks = [];
      const value =
        chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks).toString('utf8');
      if (this.fieldName !== FORBIDDEN_FIELD) this.fields[this.fieldName] = value;
    }
    this.sink = Sink.None;
  }

  private readonly onFileRead = (entry: FileEntry): void => {
    if (entry === this.active) this.updateFlow();
  };

  /** A file stream closed: when its part is still in progress the handler gave it up; skip the rest. */
  private readonly onFileClose = (entry: FileEntry): void => {
    if (entry !== this.active || entry.ended) return;
    entry.ended = true;
    this.active = undefined;
    this.sink = Sink.Discard;
    this.updateFlow();
  };

  // ---- after the handler ----

  finish(): Promise<UploadFinish> {
    this.finishResult ??= Promise.resolve({ complete: this.close() });
    return this.finishResult;
  }

  private close(): boolean {
    try {
      this.iterationClosed = true;
      if (this.phase === Phase.Idle || this.phase === Phase.Reading) this.phase = Phase.Closed;
      this.detach();
      this.dropFiles();
      this.settleWaiter(DONE);
      return this.release();
    } catch {
      return false;
    }
  }

  /** Whether the body was received to its end; the rest is drained in the background either way. */
  private release(): boolean {
    const { source, received } = this;
    const complete = receivedCompletely(source, received, this.limits.maxBytes);
    if (!source.readableEnded && !source.destroyed) {
      this.guardErrors();
      discardUnread(source, received, this.limits.maxBytes);
    }
    return complete;
  }
}

/**
 * Starts reading an upload route's body. Throws at once, before any byte is read, when the request is not
 * multipart/form-data (415), its boundary is missing or invalid (400 MALFORMED_MULTIPART) or it declares
 * more than maxBytes (413).
 */
export function startUpload(input: StartUploadInput): UploadSession {
  const { stream, headers, limits } = input;
  const boundary = boundaryOf(headers['content-type']);
  const contentLength = parseContentLength(headers['content-length']);
  if (contentLength !== undefined && contentLength > limits.maxBytes) throw tooLarge('maxBytes');
  const reader = new UploadReader(stream, boundary, limits, contentLength);
  const iterator: AsyncIterableIterator<UploadedFile> = {
    next: () => reader.next(),
    return: () => Promise.resolve(reader.stopIterating()),
    [Symbol.asyncIterator]() {
      return this;
    },
  };
  return {
    body: { files: { [Symbol.asyncIterator]: () => iterator }, fields: reader.fields, contentLength },
    finish: () => reader.finish(),
  };
}
