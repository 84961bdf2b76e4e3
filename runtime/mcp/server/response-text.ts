// The JSON text of the responses an MCP server sends (HTTP and stdio). A tool result that carries serialized
// JSON is spliced in as text; every other response is written by JSON.stringify, so the bytes are those
// JSON.stringify would write for the same value.
import type { JsonRpcResponse } from '../protocol/json-rpc.js';
import { SplicedToolResult } from './spliced-result.js';

function responseText(response: JsonRpcResponse): string {
  if ('result' in response && response.result instanceof SplicedToolResult)
    return `{"jsonrpc":"2.0","id":${JSON.stringify(response.id)},"result":${response.result.toJsonText()}}`;
  return JSON.stringify(response);
}

/** One response, or a batch's responses as one array. */
export function jsonRpcText(payload: JsonRpcResponse | readonly JsonRpcResponse[]): string {
  if (!Array.isArray(payload)) return responseText(payload as JsonRpcResponse);
  let text = '[';
  for (let index = 0; index < payload.length; index++) {
    if (index > 0) text += ',';
    text += responseText(payload[index] as JsonRpcResponse);
  }
  return `${text}]`;
}
