// An in-memory neutral request and reply, for running a pipeline in process (as MCP tool calls will).
import type { Readable } from 'node:stream';
import type { ReplySink, RequestContext, SvcRequest } from 'svckit';

export interface FakeRequestInput {
  method?: SvcRequest['method'];
  url?: string;
  headers?: SvcRequest['headers'];
  query?: Record<string, string | string[]>;
  params?: Record<string, string>;
  body?: unknown;
  bodyKind?: SvcRequest['bodyKind'];
  context: RequestContext;
}

export function fakeRequest(input: FakeRequestInput): SvcRequest {
  const url = input.url ?? '/';
  return {
    method: input.method ?? 'GET',
    url,
    path: url.split('?')[0] ?? url,
    routePattern: url,
    headers: input.headers ?? {},
    ip: '127.0.0.1',
    query: input.query ?? (Object.create(null) as Record<string, string>),
    params: input.params ?? (Object.create(null) as Record<string, string>),
    body: input.body,
    bodyKind: input.body === undefined ? undefined : (input.bodyKind ?? 'json'),
    context: input.context,
  };
}

export class FakeReply implements ReplySink {
  statusCode = 200;
  statusChosen = false;
  sent = false;
  headers: Record<string, string | number | readonly string[]> = {};
  body: string | Buffer | undefined;
  finished = 0;

  status(code: number): this {
    this.statusCode = code;
    this.statusChosen = true;
    return this;
  }
  header(name: string, value: string | number | readonly string[]): this {
    this.headers[name.toLowerCase()] = value;
    return this;
  }
  getHeader(name: string): string | number | string[] | undefined {
    return this.headers[name.toLowerCase()] as string | undefined;
  }
  removeHeader(name: string): this {
    delete this.headers[name.toLowerCase()];
    return this;
  }
  send(payload?: string | Buffer): void {
    this.finish(this.statusCode, payload, undefined);
  }
  finish(status: number, body: string | Buffer | undefined, contentType: string | undefined): void {
    if (this.sent) throw new Error('already sent');
    if (contentType !== undefined) this.headers['content-type'] = contentType;
    this.statusCode = status;
    this.body = body;
    this.sent = true;
    this.finished++;
  }
  async stream(status: number, source: Readable): Promise<void> {
    if (this.sent) throw new Error('already sent');
    this.statusCode = status;
    this.sent = true;
    this.finished++;
    const chunks: Buffer[] = [];
    for await (const chunk of source) chunks.push(Buffer.from(chunk as Uint8Array));
    this.body = Buffer.concat(chunks);
  }
  json(): unknown {
    return typeof this.body === 'string' ? JSON.parse(this.body) : undefined;
  }
}
