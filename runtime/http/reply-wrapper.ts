// A reply that delegates to the adapter's reply and lets the pipeline act right before and right after the
// response is written, whoever writes it (a hook, a guard's rejection, the handler, the error envelope).
// Used only on routes that need it (upload/raw bodies, response hooks), so other requests pay nothing.
import type { Readable } from 'node:stream';
import type { ReplySink } from './types.js';

export abstract class ReplyWrapper implements ReplySink {
  protected readonly inner: ReplySink;

  constructor(inner: ReplySink) {
    this.inner = inner;
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
    this.finish(this.inner.statusCode, payload, undefined);
  }

  finish(status: number, body: string | Buffer | undefined, contentType: string | undefined): void {
    this.beforeWrite();
    this.inner.finish(status, body, contentType);
    this.afterWrite(status, body, contentType);
  }

  stream(status: number, source: Readable): Promise<void> {
    this.beforeWrite();
    return this.inner.stream(status, source).then(
      () => this.afterWrite(status, undefined, undefined),
      (error: unknown) => {
        // A stream that failed after its head went out was still a response.
        if (this.inner.sent) this.afterWrite(status, undefined, undefined);
        throw error;
      },
    );
  }

  /** Runs before every write attempt. */
  protected beforeWrite(): void {}

  /**
   * Runs once a response was written (for a stream: once it ended, with no body). `contentType` is the one
   * finish() was given; undefined when the header set before applies.
   */
  protected afterWrite(
    _status: number,
    _body: string | Buffer | undefined,
    _contentType: string | undefined,
  ): void {}
}
