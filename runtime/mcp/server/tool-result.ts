// Turning what a route answered into a tool result: a JSON object becomes
// `structuredContent` (anything else is wrapped as `{ result }`), always with a text copy in `content`;
// status 400 and above, or a throw, sets `isError`. A thrown error is answered as its HTTP envelope with the
// details redacted; a body the handler sent itself is passed on as it is. JSON svc wrote itself is kept as
// text and spliced into the response (SplicedToolResult); anything else is parsed to be checked.
import { toErrorResponse, type DetailsRedactor } from '../../http/envelope.js';
import { isJsonMediaType, mediaTypeOf } from '../../http/body.js';
import type { CallToolResult } from '../protocol/types.js';
import type { CapturedResponse } from './tool-reply.js';
import { isJsonObject } from '../protocol/json-rpc.js';
import { SplicedToolResult } from './spliced-result.js';

function textOf(body: string | Buffer | undefined): string {
  if (body === undefined) return '';
  return typeof body === 'string' ? body : body.toString('utf8');
}

/** The result of a route that answered (with any status). */
export function resultFromResponse(response: CapturedResponse, structured: boolean): CallToolResult {
  const { body } = response;
  if (structured && response.serializedJson && typeof body === 'string' && body !== '')
    return new SplicedToolResult(body, response.status >= 400);
  const text = textOf(body);
  const result: CallToolResult = { content: text === '' ? [] : [{ type: 'text', text }] };
  if (structured && text !== '' && isJsonMediaType(mediaTypeOf(response.contentType))) {
    try {
      const value: unknown = JSON.parse(text);
      result.structuredContent = isJsonObject(value) ? value : { result: value };
    } catch {
      // Declared JSON but is not: the text copy is all there is.
    }
  }
  if (response.status >= 400) result.isError = true;
  return result;
}

/** The result of a route that threw: its envelope, details redacted. Also returns the status for reporting. */
export function resultFromError(
  error: unknown,
  redactDetails: DetailsRedactor | false,
  structured: boolean,
): { result: CallToolResult; status: number; code: string } {
  const { status, body } = toErrorResponse(error, { redactDetails });
  const text = JSON.stringify(body);
  const result: CallToolResult = structured
    ? new SplicedToolResult(text, true)
    : { content: [{ type: 'text', text }], isError: true };
  return { result, status, code: body.error.code };
}
