// The reply of an upload or raw route: the adapter's reply plus one step that runs right before the response
// is written, whoever writes it (a guard's rejection, the handler, the reply mapping, the error envelope), to
// deal with the unread rest of the request body (runtime/http/body-release.ts).
import type { Readable } from 'node:stream';
import { closeIfBodyUnread, discardBody } from './body-release.js';
import type { ReplySink } from './types.js';

export class BodyReleasingReply implements ReplySink {
  private readonly inner: ReplySink;
  private readonly body: Readable | undefined;
  private released = false;
  /** Disposes of the unread body; by default discards up to `limit` bytes. An upload session replaces it. */
  drain: () => void;

  constructor(inner: ReplySink, body: Readable | undefined, limit: number) {
    this.inner = inner;
    this.body = body;
    this.drain = () => {
      if (body !== undefined) discardBody(body, limit);
    };
  }

  get statusCode(): number {
    return this.inner.statusCode;
  }

  get statusChosen(): boolean {
    return this.inner.statusChosen;
  }

  get sent(): boolean {
    return this.inner.sent;
  }

  status(code: number): this {
    this.inner.status(code);
    return this;
  }

  header(name: string, value: string | number | readonly string[]): this {
    this.inner.header(name, value);
    return this;
  }

  getHeader(name: string): string | number | string[] | undefined {
    return this.inner.getHeader(name);
  }

  removeHeader(name: string): this {
    this.inner.removeHeader(name);
    return this;
  }

  send(payload?: string | Buffer): void {
    this.release();
    this.inner.send(payload);
  }

  finish(status: number, body: string | Buffer | undefined, contentType: string | undefined): void {
    this.release();
    this.inner.finish(status, body, contentType);
  }

  stream(status: number, source: Readable): Promise<void> {
    this.release();
    return this.inner.stream(status, source);
  }

  /** `Connection: close` when the body was not read to its end, then the drain; once, before the first write. */
  release(): void {
    if (this.released) return;
    this.released = true;
    closeIfBodyUnread(this.body, this, this.drain);
  }
}
