// While a server closes, keep-alive connections whose request was under way when closing began stay open
// after their answer until the client drops them or the keep-alive timeout ends them, and close() waits that
// long. Sweeping idle connections every few milliseconds closes each one as soon as its answer is out. A
// request that never finishes (a client that stopped reading a download, a stream that never ends) must not
// hold the close forever either: past the drain deadline every connection left is cut.

/** While closing, how often connections that became idle (a request finished) are closed. */
const IDLE_SWEEP_MS = 25;

/** How long a closing server lets requests under way finish before it cuts their connections. */
export const DRAIN_DEADLINE_MS = 30_000;

export interface SweptServer {
  closeIdleConnections(): void;
  closeAllConnections?(): void;
}

/** Starts sweeping `server`'s idle connections; call the result once the server has closed. */
export function sweepIdleConnections(server: SweptServer, deadlineMs = DRAIN_DEADLINE_MS): () => void {
  server.closeIdleConnections();
  const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
  sweep.unref();
  const deadline = setTimeout(() => server.closeAllConnections?.(), deadlineMs);
  deadline.unref();
  return () => {
    clearInterval(sweep);
    clearTimeout(deadline);
  };
}
