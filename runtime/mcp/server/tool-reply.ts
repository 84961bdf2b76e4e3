// The reply a tool call's route writes into: it keeps status, headers and body in memory instead of sending
// them, so the call can turn them into a tool result. A streamed body is collected up to a cap: a tool result
// is one message, not a download.
import type { Readable } from 'node:stream';
import { lowerHeaderName } from '../../http/header-name.js';
import { checkedStatus } from '../../http/status.js';
import type { ReplySink } from '../../http/types.js';

/** The most a streamed body may hold to become a tool result (4 MiB). */
export const MAX_STREAMED_TOOL_RESULT_BYTES = 4 * 1024 * 1024;

export interface CapturedResponse {
  status: number;
  body: string | Buffer | undefined;
  contentType: string | undefined;
}

export class ToolReply implements ReplySink {
  statusCode: number;
  statusChosen = false;
  sent = false;
  private readonly headers = new Map<string, string | number | string[]>();
  private captured: CapturedResponse | undefined;

  constructor(successStatus: number) {
    this.statusCode = successStatus;
  }

  /** What the route answered; undefined while it has not answered. */
  get response(): CapturedResponse | undefined {
    return this.captured;
  }

  status(code: number): this {
    this.statusCode = checkedStatus(code);
    this.statusChosen = true;
    return this;
  }

  header(name: string, value: string | number | readonly string[]): this {
    this.headers.set(lowerHeaderName(name), typeof value === 'object' ? [...value] : value);
    return this;
  }

  getHeader(name: string): string | number | string[] | undefined {
    return this.headers.get(lowerHeaderName(name));
  }

  removeHeader(name: string): this {
    this.headers.delete(lowerHeaderName(name));
    return this;
  }

  send(payload?: string | Buffer): void {
    const contentType = this.getHeader('content-type');
    this.finish(this.statusCode, payload, typeof contentType === 'string' ? contentType : undefined);
  }

  finish(status: number, body: string | Buffer | undefined, contentType: string | undefined): void {
    if (this.sent) return;
    this.sent = true;
    this.statusCode = status;
    const declared = this.getHeader('content-type');
    this.captured = {
      status,
      body,
      contentType: contentType ?? (typeof declared === 'string' ? declared : undefined),
    };
  }

  async stream(status: number, source: Readable): Promise<void> {
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of source) {
        const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
        size += bytes.length;
        if (size > MAX_STREAMED_TOOL_RESULT_BYTES)
          throw new Error(`a streamed tool result is larger than ${MAX_STREAMED_TOOL_RESULT_BYTES} bytes`);
        chunks.push(bytes);
      }
    } finally {
      source.destroy();
    }
    this.finish(status, Buffer.concat(chunks), undefined);
  }
}
