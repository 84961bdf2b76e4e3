// The stdio transport: newline-delimited JSON-RPC on stdin/stdout for an
// agent that launches the service as a child process. stdout carries only protocol messages: while serving
// process.stdout, anything else the app writes there is sent to stderr. At most `maxConcurrentRequests` calls
// run at once; one more is answered -32000 (SERVER_BUSY); notifications are never refused. A batch holds at
// most `maxBatchSize` messages, as over HTTP.
import type { Readable, Writable } from 'node:stream';
import type { App } from '../../app/app.js';
import type { RequestHeaders } from '../../http/types.js';
import {
  classifyMessage,
  failure,
  JSON_RPC_ERROR,
  type JsonRpcId,
  type JsonRpcResponse,
} from '../protocol/json-rpc.js';
import { LineReader } from '../protocol/line-reader.js';
import { allowsBatches, LATEST_PROTOCOL_VERSION } from '../protocol/versions.js';
import { batchTooLarge, DEFAULT_MAX_BATCH_SIZE } from './batch.js';
import { jsonRpcText } from './response-text.js';
import { requireMcpService } from './plugin.js';
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import type { McpConnection, MessageScope } from './server.js';
import type { CallCancellation } from './cancellation.js';
import { positiveWholeNumber } from '../../config/whole-number.js';
import { invalidOptions } from '../../config/option-errors.js';

export const DEFAULT_STDIO_MAX_CONCURRENT_REQUESTS = 16;
/** The longest line read (4 MiB); a longer one is discarded and answered as a parse error. */
export const DEFAULT_STDIO_MAX_LINE_BYTES = 4 * 1024 * 1024;

export interface McpStdioOptions {
  /** Default process.stdin. */
  input?: Readable;
  /** Default process.stdout. */
  output?: Writable;
  /** Calls running at once before SERVER_BUSY (default 16). */
  maxConcurrentRequests?: number;
  /** Default 4 MiB. */
  maxLineBytes?: number;
  /** Headers every call carries, e.g. `{ authorization: 'Bearer …' }`: stdio has no request of its own. */
  headers?: RequestHeaders;
  /** The most messages a JSON-RPC batch may hold (default 32); a larger one is refused whole (-32600). */
  maxBatchSize?: number;
}

const STDIO_OPTIONS = optionKeys<McpStdioOptions>({
  input: true,
  output: true,
  maxConcurrentRequests: true,
  maxLineBytes: true,
  headers: true,
  maxBatchSize: true,
});

export interface McpStdioServer {
  /** Resolves once the input ended and every running call was answered. */
  readonly finished: Promise<void>;
  /** Stops reading, waits for running calls, restores process.stdout. */
  close(): Promise<void>;
}

/** Serves the app's tools over stdio. Boots the app; listing is not filtered (the launching agent is trusted). */
export async function serveMcpStdio(app: App, options: McpStdioOptions = {}): Promise<McpStdioServer> {
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    throw invalidOptions('serveMcpStdio');
  rejectUnknownOptions(options, STDIO_OPTIONS, 'serveMcpStdio');
  const maxBatchSize = positiveWholeNumber(
    options.maxBatchSize,
    DEFAULT_MAX_BATCH_SIZE,
    'serveMcpStdio',
    'maxBatchSize',
  );
  const maxConcurrent = positiveWholeNumber(
    options.maxConcurrentRequests,
    DEFAULT_STDIO_MAX_CONCURRENT_REQUESTS,
    'serveMcpStdio',
    'maxConcurrentRequests',
  );
  const maxLineBytes = positiveWholeNumber(
    options.maxLineBytes,
    DEFAULT_STDIO_MAX_LINE_BYTES,
    'serveMcpStdio',
    'maxLineBytes',
  );
  await app.boot();
  const service = requireMcpService(app.container);
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const diverted = output === process.stdout ? divertStdout() : undefined;
  const writeLine = diverted?.protocolWrite ?? ((line: string) => output.write(line));

  const connection: McpConnection = {
    protocolVersion: LATEST_PROTOCOL_VERSION,
    running: new Map<JsonRpcId, CallCancellation>(),
  };
  const scope = (): MessageScope => ({
    caller: { ip: undefined, headers: options.headers ?? {} },
    protocolVersion: connection.protocolVersion,
    connection,
    visible: () => true,
  });
  const pending = new Set<Promise<void>>();
  let active = 0;

  const send = (message: JsonRpcResponse | JsonRpcResponse[]) => void writeLine(`${jsonRpcText(message)}\n`);

  function track(work: Promise<void>): void {
    pending.add(work);
    void work.finally(() => pending.delete(work));
  }

  /** One message; undefined when nothing is to be answered. */
  async function answer(value: unknown): Promise<JsonRpcResponse | undefined> {
    const classified = classifyMessage(value);
    if (classified.kind === 'invalid')
      return failure(classified.id, JSON_RPC_ERROR.INVALID_REQUEST, classified.reason);
    if (classified.kind === 'response') return undefined;
    if (classified.kind === 'notification') return service.server.handle(classified.message, scope());
    if (active >= maxConcurrent)
      return failure(classified.message.id, JSON_RPC_ERROR.SERVER_BUSY, 'Server is busy.', {
        code: 'SERVER_BUSY',
      });
    active++;
    try {
      return await service.server.handle(classified.message, scope());
    } finally {
      active--;
    }
  }

  function onLine(line: string): void {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      send(failure(null, JSON_RPC_ERROR.PARSE_ERROR, 'Parse error: a line must be one JSON-RPC message.'));
      return;
    }
    if (Array.isArray(value)) {
      if (!allowsBatches(connection.protocolVersion) || value.length === 0) {
        send(failure(null, JSON_RPC_ERROR.INVALID_REQUEST, 'JSON-RPC batches are not allowed here.'));
        return;
      }
      if (value.length > maxBatchSize) {
        send(batchTooLarge(maxBatchSize));
        return;
      }
      track(
        Promise.all(value.map(answer)).then((answers) => {
          const responses = answers.filter((item): item is JsonRpcResponse => item !== undefined);
          if (responses.length > 0) send(responses);
        }),
      );
      return;
    }
    track(
      answer(value).then((response) => {
        if (response !== undefined) send(response);
      }),
    );
  }

  const lines = new LineReader(maxLineBytes, onLine, () =>
    send(
      failure(null, JSON_RPC_ERROR.PARSE_ERROR, `Parse error: a line is longer than ${maxLineBytes} bytes.`),
    ),
  );
  const reader = (chunk: Buffer | string) =>
    void lines.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  const ended = new Promise<void>((resolve) => {
    input.on('data', reader);
    input.once('end', resolve);
    input.once('close', resolve);
  });
  const finished = ended.then(async () => {
    while (pending.size > 0) await Promise.allSettled([...pending]);
  });
  let closed = false;
  return {
    finished,
    async close() {
      if (closed) return;
      closed = true;
      input.off('data', reader);
      while (pending.size > 0) await Promise.allSettled([...pending]);
      diverted?.restore();
    },
  };
}

/** Sends process.stdout writes to stderr; returns the real stdout writer and the way back. */
function divertStdout(): { protocolWrite: (line: string) => boolean; restore: () => void } {
  const stdout = process.stdout;
  const original = stdout.write;
  const protocolWrite = (line: string) => original.call(stdout, line);
  stdout.write = ((...args: Parameters<typeof process.stderr.write>) =>
    process.stderr.write(...args)) as typeof stdout.write;
  return { protocolWrite, restore: () => void (stdout.write = original) };
}
