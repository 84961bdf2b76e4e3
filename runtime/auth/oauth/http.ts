// Every call to a provider goes through `callProvider`: its own deadline (`timeoutMs`, by AbortSignal), no
// redirects followed (an endpoint is the URL configured or discovered, not wherever it points), a body capped
// in size (its bytes counted as they arrive), 2xx only, and JSON only. A failure is an OAuthExchangeError
// whose message says what failed (for the log); it never quotes a reply that could hold a token.
import { OAuthExchangeError } from './exchange-error.js';
import type { ProviderContext } from './types.js';

/** A provider reply larger than this is refused: discovery documents and key sets are a few KiB. */
const MAX_BODY_BYTES = 1024 * 1024;

export interface ProviderReply {
  status: number;
  headers: Headers;
  /** The parsed JSON body. */
  json: unknown;
}

/** Calls `url` and answers its JSON; `what` names the call in failures ("token endpoint"). */
export async function callProvider(
  context: ProviderContext,
  what: string,
  url: string,
  init: RequestInit = {},
): Promise<ProviderReply> {
  let response: Response;
  let text: string;
  try {
    response = await context.fetch(url, {
      ...init,
      redirect: 'manual',
      signal: AbortSignal.timeout(context.timeoutMs),
    });
    text = await cappedText(response, what);
  } catch (error) {
    if (error instanceof OAuthExchangeError) throw error;
    const name = error instanceof Error ? error.name : 'Error';
    // undici's "fetch failed" says why only in its cause (ECONNREFUSED, a TLS error, …).
    const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
    const why = cause === undefined ? '' : ` (${String(cause.code ?? cause.message)})`;
    const reason =
      name === 'TimeoutError' ? `no answer within ${context.timeoutMs} ms` : `${String(error)}${why}`;
    throw new OAuthExchangeError(`${what} (${url}) failed: ${reason}`, { cause: error });
  }
  const json = parseJson(text);
  if (response.status < 200 || response.status > 299) {
    throw new OAuthExchangeError(`${what} answered HTTP ${response.status}${errorCodeOf(json)}`);
  }
  if (json === undefined) {
    const type = response.headers.get('content-type') ?? 'no content type';
    throw new OAuthExchangeError(
      `${what} answered a body that is not JSON (${type}, ${text.length} characters)`,
    );
  }
  return { status: response.status, headers: response.headers, json };
}

/** `json` when it is a JSON object (not an array), else an OAuthExchangeError naming `what`. */
export function jsonObject(json: unknown, what: string): Record<string, unknown> {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw new OAuthExchangeError(`${what} answered JSON that is not an object`);
  }
  return json as Record<string, unknown>;
}

/**
 * The body as text, read chunk by chunk and given up (the body cancelled, which closes the connection) as
 * soon as it passes MAX_BODY_BYTES: a chunked reply has no length to check first, and a declared length is
 * only a claim. A Content-Length that is not a whole number is refused before any byte is read.
 */
async function cappedText(response: Response, what: string): Promise<string> {
  const declared = response.headers.get('content-length');
  if (declared !== null && !/^\d+$/.test(declared)) {
    await discard(response.body);
    throw new OAuthExchangeError(`${what} answered an invalid Content-Length ${JSON.stringify(declared)}`);
  }
  if (declared !== null && Number(declared) > MAX_BODY_BYTES) {
    await discard(response.body);
    throw new OAuthExchangeError(`${what} answered ${declared} bytes, more than ${MAX_BODY_BYTES}`);
  }
  if (response.body === null) return '';
  const reader = response.body.getReader();
  // Decoded as response.text() does: UTF-8, a leading BOM dropped, bad sequences replaced.
  const decoder = new TextDecoder();
  let text = '';
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    received += value.byteLength;
    if (received > MAX_BODY_BYTES) {
      await reader.cancel().catch(() => undefined);
      throw new OAuthExchangeError(`${what} answered more than ${MAX_BODY_BYTES} bytes`);
    }
    text += decoder.decode(value, { stream: true });
  }
}

/** Drops a body not to be read; a failure to cancel changes nothing about the refusal. */
async function discard(body: ReadableStream<Uint8Array> | null): Promise<void> {
  await body?.cancel().catch(() => undefined);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The OAuth `error` code of a refusal (`invalid_grant`), which is safe to log; never its other fields. */
function errorCodeOf(json: unknown): string {
  if (json === null || typeof json !== 'object') return '';
  const code = (json as { error?: unknown }).error;
  return typeof code === 'string' && /^[\w.-]{1,64}$/.test(code) ? ` (error ${code})` : '';
}
