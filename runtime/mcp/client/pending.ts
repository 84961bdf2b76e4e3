// The client's requests in flight, by JSON-RPC id: each one ends exactly once, by its answer, its timeout,
// the caller's abort signal, a lost connection or close(); whichever comes first wins, the rest are ignored.
import { errors } from '../../../generated/modules/errors.js';
import type { JsonRpcId, JsonRpcResponse } from '../protocol/json-rpc.js';

export interface PendingOptions {
  method: string;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  /** Called when the client stops waiting without an answer (timeout or abort), to tell the server. */
  onGiveUp(reason: string): void;
}

interface Entry {
  method: string;
  resolve(result: Record<string, unknown>): void;
  reject(error: unknown): void;
}

export class PendingRequests {
  private readonly entries = new Map<JsonRpcId, Entry>();

  /**
   * Registers request `id`; the promise settles with its result. `controller` is aborted whenever the request
   * ends without an answer, so the transport stops reading for it.
   */
  add(
    id: JsonRpcId,
    options: PendingOptions,
  ): { promise: Promise<Record<string, unknown>>; controller: AbortController } {
    const controller = new AbortController();
    const { method, timeoutMs, signal, onGiveUp } = options;
    const promise = new Promise<Record<string, unknown>>((resolve, reject) => {
      const finish = (): boolean => {
        if (!this.entries.has(id)) return false;
        this.entries.delete(id);
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        return true;
      };
      const giveUp = (error: unknown, reason: string): void => {
        if (!finish()) return;
        onGiveUp(reason);
        controller.abort();
        reject(error);
      };
      const timer = setTimeout(
        () =>
          giveUp(
            errors.MCP_CLIENT_TIMEOUT({
              message: `The tool server did not answer ${method} within ${timeoutMs} ms.`,
              details: { method, timeoutMs },
            }),
            `Timed out after ${timeoutMs} ms.`,
          ),
        timeoutMs,
      );
      // The caller's own abort is not a client failure: like fetch, the call rejects with the signal's reason.
      const onAbort = (): void => giveUp(signal?.reason, 'Aborted by the caller.');
      signal?.addEventListener('abort', onAbort, { once: true });
      this.entries.set(id, {
        method,
        resolve: (result) => {
          if (finish()) resolve(result);
        },
        reject: (error) => {
          if (!finish()) return;
          controller.abort();
          reject(error);
        },
      });
    });
    return { promise, controller };
  }

  /** Settles the request a response answers; false when no request waits for that id (late or unknown). */
  answer(response: JsonRpcResponse): boolean {
    if (response.id === null) return false;
    const entry = this.entries.get(response.id);
    if (!entry) return false;
    if ('result' in response) {
      entry.resolve(response.result);
    } else {
      const { code, message, data } = response.error;
      entry.reject(
        errors.MCP_SERVER_FAILED({
          message: `The tool server answered ${entry.method} with error ${code}: ${message}`,
          details: { method: entry.method, rpcCode: code, rpcMessage: message },
          internalDetails: data === undefined ? undefined : { rpcData: data },
        }),
      );
    }
    return true;
  }

  fail(id: JsonRpcId, error: unknown): void {
    this.entries.get(id)?.reject(error);
  }

  failAll(error: unknown): void {
    for (const entry of [...this.entries.values()]) entry.reject(error);
  }
}
