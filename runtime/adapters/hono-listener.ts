// The node request listener of the Hono adapter: @hono/node-server's, which builds a web Request for Hono,
// with one difference. node-server builds the Request's URL from the Host header and the target by WHATWG
// rules and refuses what that parser refuses (a Host of `a b`, `[zz]` or `example.com:99999`, a backslash in
// the path, the target `*`) with a bare 400, where Fastify and Express serve such requests: they never build
// anything from Host, and route on the target as sent. Such a request is handed to node-server once more with
// a placeholder Host (`localhost`) and, when the target itself was refused, `/`; the originals are put back
// before Hono runs. So svc's neutral request, the headers, routing (hono-path.ts) and `c.req.path` see the
// request as sent; only the web Request's `url` carries the placeholders. Requests node-server accepts take
// its usual path untouched.
import { getRequestListener, RequestError } from '@hono/node-server';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { originForm } from '../http/url.js';

type FetchCallback = Parameters<typeof getRequestListener>[0];

/** What a request looked like before the placeholders went in. */
interface Original {
  incoming: IncomingMessage;
  url: string | undefined;
  host: string | undefined;
}

/** A target node-server can take: origin-form without backslashes; anything else becomes `/`. */
function placeholderTarget(url: string | undefined): string {
  const target = originForm(url ?? '/');
  return target.charCodeAt(0) === 0x2f /* / */ && !target.includes('\\') ? target : '/';
}

function restore(original: Original): void {
  const { incoming, url, host } = original;
  if (url !== undefined) incoming.url = url;
  if (host === undefined) delete incoming.headers.host;
  else incoming.headers.host = host;
}

export interface ListenerOptions {
  /** Host used when a request has none (node-server's `hostname`). */
  hostname: string;
  /** Answers what node-server could not hand to Hono even with the placeholders, or a failed fetch. */
  onError(error: unknown): Response;
}

export function honoNodeListener(fetch: FetchCallback, options: ListenerOptions): RequestListener {
  // node-server calls its error handler synchronously when it cannot build the Request, so the request it
  // failed on is the one being dispatched right now.
  let incomingNow: IncomingMessage | undefined;
  let outgoingNow: ServerResponse | undefined;
  let pending: Original | undefined;
  let retrying = false;

  const putBack = () => {
    const original = pending;
    if (original === undefined) return;
    pending = undefined;
    restore(original);
  };

  const listener = getRequestListener(
    (request, env) => {
      putBack();
      return fetch(request, env);
    },
    {
      hostname: options.hostname,
      errorHandler(error) {
        const incoming = incomingNow;
        const outgoing = outgoingNow;
        putBack();
        const refused = error instanceof RequestError && incoming !== undefined && outgoing !== undefined;
        // Refused even with the placeholders, or not a refusal at all: the envelope answers.
        if (!refused || retrying) return options.onError(error);
        pending = { incoming, url: incoming.url, host: incoming.headers.host };
        incoming.url = placeholderTarget(incoming.url);
        incoming.headers.host = 'localhost';
        retrying = true;
        try {
          void dispatch(incoming, outgoing);
        } finally {
          retrying = false;
          putBack();
        }
        // Answered by the second dispatch: node-server writes nothing for this one.
        return undefined;
      },
    },
  );

  function dispatch(incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> {
    const previousIncoming = incomingNow;
    const previousOutgoing = outgoingNow;
    incomingNow = incoming;
    outgoingNow = outgoing;
    try {
      return listener(incoming, outgoing);
    } finally {
      incomingNow = previousIncoming;
      outgoingNow = previousOutgoing;
    }
  }

  return (incoming, outgoing) => void dispatch(incoming, outgoing);
}
