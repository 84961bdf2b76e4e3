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
import { originForm } from '../../http/url.js';

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
  // node-server calls its error handler synchronously while it builds the Request, so the request it failed
  // on is the one being dispatched right now.
  let incomingNow: IncomingMessage | undefined;
  let outgoingNow: ServerResponse | undefined;
  /** The request as sent, while the retry runs with the placeholders. */
  let original: Original | undefined;

  const putBack = () => {
    if (original === undefined) return;
    restore(original);
    original = undefined;
  };

  // The second try: the originals go back before Hono runs; refused again, the envelope answers.
  const retry = getRequestListener(
    (request, env) => {
      putBack();
      return fetch(request, env);
    },
    {
      hostname: options.hostname,
      errorHandler(error) {
        putBack();
        return options.onError(error);
      },
    },
  );

  const first = getRequestListener(fetch, {
    hostname: options.hostname,
    errorHandler(error) {
      const incoming = incomingNow;
      const outgoing = outgoingNow;
      if (!(error instanceof RequestError) || incoming === undefined || outgoing === undefined) {
        return options.onError(error);
      }
      original = { incoming, url: incoming.url, host: incoming.headers.host };
      incoming.url = placeholderTarget(incoming.url);
      incoming.headers.host = 'localhost';
      try {
        void retry(incoming, outgoing);
      } finally {
        putBack();
      }
      // Answered by the retry: node-server writes nothing for this one.
      return undefined;
    },
  });

  return (incoming, outgoing) => {
    incomingNow = incoming;
    outgoingNow = outgoing;
    try {
      void first(incoming, outgoing);
    } finally {
      incomingNow = undefined;
      outgoingNow = undefined;
    }
  };
}
