// A tool result whose structured content is JSON text svc's own serializers wrote (the route's answer or the
// error envelope). The response writer splices that text into the JSON-RPC response as it is, once as
// `structuredContent` and once escaped as the text copy, instead of parsing it back and serializing it again.
// Anything else that reads the result (JSON.stringify, in-process callers) sees the plain result: the
// text is parsed the first time `structuredContent` is asked for.
import type { CallToolResult, ContentBlock } from '../protocol/types.js';
import { isJsonObject } from '../protocol/json-rpc.js';

const OPEN_BRACE = 0x7b;

export class SplicedToolResult implements CallToolResult {
  [field: string]: unknown;
  readonly content: ContentBlock[];
  readonly isError: true | undefined;
  /** Serialized JSON, not empty, with no whitespace before its first token (as JSON.stringify writes it). */
  private readonly json: string;
  private parsed: Record<string, unknown> | undefined;

  constructor(json: string, isError: boolean) {
    this.json = json;
    this.content = [{ type: 'text', text: json }];
    this.isError = isError ? true : undefined;
  }

  /** The answer as an object; any other JSON value is wrapped as `{ result }`. */
  get structuredContent(): Record<string, unknown> {
    if (this.parsed === undefined) {
      const value: unknown = JSON.parse(this.json);
      this.parsed = isJsonObject(value) ? value : { result: value };
    }
    return this.parsed;
  }

  /** What JSON.stringify writes: the same fields, in the same order, as the spliced text. */
  toJSON(): CallToolResult {
    const plain: CallToolResult = { content: this.content, structuredContent: this.structuredContent };
    if (this.isError === true) plain.isError = true;
    return plain;
  }

  /** The result as JSON text, the answer written twice without being parsed. */
  toJsonText(): string {
    // JSON text written by our serializers is an object exactly when it starts with a brace.
    const structured = this.json.charCodeAt(0) === OPEN_BRACE ? this.json : `{"result":${this.json}}`;
    const error = this.isError === true ? ',"isError":true' : '';
    return `{"content":[{"type":"text","text":${JSON.stringify(this.json)}}],"structuredContent":${structured}${error}}`;
  }
}
