// The reply a tool call's route writes into: it keeps status, headers and body in memory instead of sending
// them, so the call can turn them into a tool result. A streamed body is collected up to a cap: a tool result
// is one message, not a download.
import type { Readable } from 'node:stream';
import { lowerHeaderName } from '../../http/header-name.js';
import { JSON_CONTENT_TYPE } from '../../http/reply-mapping.js';
import { checkedStatus } from '../../http/status.js';
import type { ReplySink } from '../../http/types.js';

/** The most a streamed body may hold to become a tool result (4 MiB). */
export const MAX_STREAMED_TOOL_RESULT_BYTES = 4 * 1024 * 1024;

export interface CapturedResponse {
  status: number;
  body: string | Buffer | undefined;
  contentType: string | undefined;
  /**
   * The body is JSON the pipeline's reply mapping wrote (JSON.stringify or the route's compiled serializer),
   * so it can be spliced into the tool result unparsed. Never true for bytes the handler sent itself.
   */
  serializedJson: boolean;
}

export class ToolReply implements ReplySink {
  statusCode: number;
  statusChosen = false;
  sent = false;
  /** Made on the first header set: most routes set none. */
  private headers: Map<string, string | number | string[]> | undefined;
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
    this.headers ??= new Map();
    this.headers.set(lowerHeaderName(name), typeof value === 'object' ? [...value] : value);
    return this;
  }

  getHeader(name: string): string | number | string[] | undefined {
    return this.headers === undefined ? undefined : this.headers.get(lowerHeaderName(name));
  }

  removeHeader(name: string): this {
    this.headers?.delete(lowerHeaderName(name));
    return this;
  }

  /** The handler's own bytes: passed on as they are, never taken for serialized JSON. */
  send(payload?: string | Buffer): void {
    const contentType = this.getHeader('content-type');
    this.capture(this.statusCode, payload, typeof contentType === 'string' ? contentType : undefined, false);
  }

  /**
   * The pipeline's answer. The reply mapping passes JSON_CONTENT_TYPE exactly when it wrote the handler's
   * value as JSON itself; handlers only see `send()`.
   */
  finish(status: number, body: string | Buffer | undefined, contentType: string | undefined): void {
    this.capture(status, body, contentType, contentType === JSON_CONTENT_TYPE && typeof body === 'string');
  }

  private capture(
    status: number,
    body: string | Buffer | undefined,
    contentType: string | undefined,
    serializedJson: boolean,
  ): void {
    if (this.sent) return;
    this.sent = true;
    this.statusCode = status;
    const declared = this.getHeader('content-type');
    this.captured = {
      status,
      body,
      contentType: contentType ?? (typeof declared === 'string' ? declared : undefined),
      serializedJson,
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
    this.capture(status, Buffer.concat(chunks), undefined, false);
  }
}
