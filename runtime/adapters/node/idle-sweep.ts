// While a server closes, keep-alive connections whose request was under way when closing began stay open
// after their answer until the client drops them or the keep-alive timeout ends them, and close() waits that
// long. Sweeping idle connections every few milliseconds closes each one as soon as its answer is out.

/** While closing, how often connections that became idle (a request finished) are closed. */
const IDLE_SWEEP_MS = 25;

/** Starts sweeping `server`'s idle connections; call the result once the server has closed. */
export function sweepIdleConnections(server: { closeIdleConnections(): void }): () => void {
  server.closeIdleConnections();
  const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
  sweep.unref();
  return () => clearInterval(sweep);
}
