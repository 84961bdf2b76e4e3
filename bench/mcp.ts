// The mcp bench: a route called as an agent tool (POST /mcp, a JSON-RPC tools/call) against the same route
// called over HTTP. An HTTP pair (bench/http.ts) whose two sides are the same server,
// bench/servers/svc-fastify-mcp.ts, in two processes: the "HTTP" one is sent the route, the "MCP" one the
// equivalent tools/call. Rows: GET /hello on the stateless endpoint, the same on the endpoint with sessions
// (initialized once per server start), and the validated POST /items on the stateless endpoint. Before the
// load, each server start checks once that the call answers what the route answers over HTTP (a JSON-RPC
// error or an `isError` result is a 200 too, which autocannon would count as a success).
import { isDeepStrictEqual } from 'node:util';
import { LATEST_PROTOCOL_VERSION, PROTOCOL_VERSION_HEADER, SESSION_HEADER } from 'svckit';
import type { BenchRequest, HttpPair } from './http.js';

export const MCP_ID = 'mcp';

const SERVER = 'bench/servers/svc-fastify-mcp.ts';
const STATELESS_PATH = '/mcp';
/** Where bench/servers/svc-fastify-mcp.ts mounts its endpoint with sessions. */
const SESSION_PATH = '/mcp-session';
/** The POST /items body of the other HTTP pairs (bench/http.ts). */
const ITEM = { name: 'widget', quantity: 3, tags: ['a', 'b'] };

interface ToolCallSizes {
  /** Request body bytes: the route's (0 for a GET) and the tools/call's. */
  request: [number, number];
  /** Response body bytes: the route's and the JSON-RPC response's. */
  response: [number, number];
}

/** Body sizes per row, as the checks saw them, for the section's note. */
const sizes = new Map<string, ToolCallSizes>();

function toolCall(name: string, args: Record<string, unknown>): string {
  return JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });
}

function jsonHeaders(headers?: Record<string, string>): Record<string, string> {
  return { 'content-type': 'application/json', ...headers };
}

async function send(url: string, request: BenchRequest): Promise<{ status: number; text: string }> {
  const response = await fetch(url + request.path, {
    method: request.method,
    headers: request.body === undefined ? request.headers : jsonHeaders(request.headers),
    body: request.body,
  });
  return { status: response.status, text: await response.text() };
}

/** Initializes a session on the endpoint with sessions, as an MCP client does once; its header. */
async function openSession(url: string): Promise<Record<string, string>> {
  const initialize = await fetch(url + SESSION_PATH, {
    method: 'POST',
    headers: jsonHeaders(),
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: LATEST_PROTOCOL_VERSION,
        capabilities: {},
        clientInfo: { name: 'svc-bench', version: '1.0.0' },
      },
    }),
  });
  const id = initialize.headers.get(SESSION_HEADER);
  await initialize.arrayBuffer();
  if (!initialize.ok || id === null) throw new Error(`mcp: initialize answered ${initialize.status}`);
  const headers = { [SESSION_HEADER]: id, [PROTOCOL_VERSION_HEADER]: LATEST_PROTOCOL_VERSION };
  const initialized = await fetch(url + SESSION_PATH, {
    method: 'POST',
    headers: jsonHeaders(headers),
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  await initialized.arrayBuffer();
  if (initialized.status !== 202)
    throw new Error(`mcp: notifications/initialized answered ${initialized.status}`);
  return headers;
}

/** Throws unless the tool call's result is the route's HTTP answer, as structuredContent and as text. */
async function checkToolCall(row: string, url: string, http: BenchRequest, mcp: BenchRequest): Promise<void> {
  const direct = await send(url, http);
  const called = await send(url, mcp);
  const response = JSON.parse(called.text) as {
    error?: unknown;
    result?: { isError?: boolean; structuredContent?: unknown; content?: { text?: string }[] };
  };
  const result = response.result;
  if (
    direct.status >= 300 ||
    called.status !== 200 ||
    result === undefined ||
    result.isError === true ||
    result.content?.[0]?.text !== direct.text ||
    !isDeepStrictEqual(result.structuredContent, JSON.parse(direct.text))
  ) {
    throw new Error(
      `mcp ${row}: the tool call does not answer what the route does: HTTP ${direct.status} ${direct.text}; MCP ${called.status} ${called.text}`,
    );
  }
  sizes.set(row, {
    request: [Buffer.byteLength(http.body ?? ''), Buffer.byteLength(mcp.body ?? '')],
    response: [Buffer.byteLength(direct.text), Buffer.byteLength(called.text)],
  });
}

/** The tools/call equivalent of `http`, on the stateless endpoint or the one with sessions. */
function toolCallOf(
  row: string,
  http: BenchRequest,
  tool: string,
  args: Record<string, unknown>,
  session: boolean,
): BenchRequest {
  // The latest protocol version: results carry structuredContent (from 2025-06-18), as for today's clients.
  const call = {
    method: 'POST' as const,
    path: session ? SESSION_PATH : STATELESS_PATH,
    body: toolCall(tool, args),
    headers: { [PROTOCOL_VERSION_HEADER]: LATEST_PROTOCOL_VERSION },
  };
  return {
    ...call,
    prepare: async (url) => {
      const sessionHeaders = session ? await openSession(url) : {};
      await checkToolCall(row, url, http, { ...call, headers: { ...call.headers, ...sessionHeaders } });
      return sessionHeaders;
    },
  };
}

const HELLO: BenchRequest = { method: 'GET', path: '/hello' };
const CREATE_ITEM: BenchRequest = { method: 'POST', path: '/items', body: JSON.stringify(ITEM) };

const ROWS = {
  hello: 'GET /hello (JSON)',
  helloSession: 'GET /hello (JSON), MCP with a session',
  createItem: 'POST /items (validated JSON body)',
};

export const MCP_PAIR: HttpPair = {
  id: MCP_ID,
  title:
    'svc on Fastify: a route called as an MCP tool (`tools/call` on POST /mcp) vs the same route over HTTP',
  plain: SERVER,
  svc: SERVER,
  labels: { plain: 'HTTP', svc: 'MCP tools/call' },
  workloads: [
    { name: ROWS.hello, ...HELLO, svc: toolCallOf(ROWS.hello, HELLO, 'get_hello', {}, false) },
    { name: ROWS.helloSession, ...HELLO, svc: toolCallOf(ROWS.helloSession, HELLO, 'get_hello', {}, true) },
    {
      name: ROWS.createItem,
      ...CREATE_ITEM,
      svc: toolCallOf(ROWS.createItem, CREATE_ITEM, 'post_items', ITEM, false),
    },
  ],
};

function sizeRows(): string[] {
  return [...sizes].map(
    ([row, { request, response }]) =>
      `| ${row} | ${request[0]} | ${request[1]} | ${response[0]} | ${response[1]} |`,
  );
}

/** Appended to the pair's section: what the table compares, and what a tool call does that HTTP does not. */
export function mcpNote(): string {
  return [
    'Both sides run the same server, `bench/servers/svc-fastify-mcp.ts` (the two routes with `meta.mcp: true`,',
    '`mcpPlugin()`, and `mcpRoutes({ sessions: false })` at /mcp plus an endpoint with sessions at',
    '/mcp-session), in two processes: **HTTP** is sent the route, **MCP tools/call** the equivalent',
    '`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_hello","arguments":{}}}` (or',
    '`post_items` with the item as its arguments) with `MCP-Protocol-Version: 2025-11-25`, so results carry',
    '`structuredContent`. The session row initializes once per server start and sends `Mcp-Session-Id` on',
    'every call. "svc / plain" reads MCP / HTTP here. Each server start first checks that the call answers',
    "exactly the route's HTTP body (as `structuredContent` and as its text copy).",
    '',
    '| row | HTTP request body B | tools/call request body B | HTTP response body B | tools/call response body B |',
    '|---|---|---|---|---|',
    ...sizeRows(),
    '',
    'What a tool call does that the HTTP request does not, per request:',
    '',
    '- **JSON-RPC in**: Fastify parses a JSON body (the GET has none; the POST parses the envelope around the',
    '  item), and the endpoint checks Host/Origin, finds the MCP service and classifies the message as',
    '  JSON-RPC once.',
    '- **two pipelines**: the endpoint request runs its route pipeline (request id, context, reply), then the',
    '  tool call builds a synthetic request for the route (arguments split into params, query and body, a URL,',
    "  forwarded headers, a second request id and context) and runs the route's own pipeline into an",
    '  in-memory reply (with a session, a cancellation record; its AbortSignal is made only when the handler',
    "  asks for `toolSignal()`). Compiling the tool's pipeline happens once at boot, not per call.",
    "- **result wrapping**: the route's answer, serialised once by the route's serializer, is spliced into the",
    '  JSON-RPC response unparsed, as `structuredContent` and once more as an escaped string for the text copy:',
    '  encoded once, sent twice (the sizes above). A body the handler sent itself is still parsed to be checked.',
    "- **sessions**: a lookup of the session and the caller's key (an HMAC-SHA256 only when an Authorization",
    '  header is sent), so `notifications/cancelled` can end the call.',
  ].join('\n');
}
