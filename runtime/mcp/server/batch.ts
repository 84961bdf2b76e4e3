// JSON-RPC batches (protocol 2025-03-26 only): at most `maxBatchSize` messages, over HTTP and over stdio, and
// over HTTP each request in a batch pays the rate limits its own POST would have paid. One POST was counted
// once by the limiter, so without this a batch of a thousand tool calls ran as one request.
import { SvcError } from '../../http/errors.js';
import type { PipelineInput, SvcReply } from '../../http/types.js';
import type { RateLimitGuard } from '../../edge/rate-limit/limiter.js';
import {
  failure,
  JSON_RPC_ERROR,
  type ClassifiedMessage,
  type JsonRpcFailure,
} from '../protocol/json-rpc.js';

/** The most messages one batch may hold (`maxBatchSize`); a larger batch is refused whole. */
export const DEFAULT_MAX_BATCH_SIZE = 32;

/** The answer to a batch past the cap: one JSON-RPC -32600 for the whole batch (HTTP 400). */
export function batchTooLarge(maxBatchSize: number): JsonRpcFailure {
  return failure(
    null,
    JSON_RPC_ERROR.INVALID_REQUEST,
    `A JSON-RPC batch may hold at most ${maxBatchSize} messages.`,
  );
}

/** The answer to one batch message refused by a rate limit. */
export function rateLimitedMessage(message: ClassifiedMessage & { kind: 'request' }): JsonRpcFailure {
  return failure(message.message.id, JSON_RPC_ERROR.RATE_LIMITED, 'Too many requests.', {
    code: 'RATE_LIMITED',
  });
}

function isRateLimited(error: unknown): boolean {
  return error instanceof SvcError && error.code === 'RATE_LIMITED';
}

/**
 * Charges the batch's requests to the endpoint's rate limits, in order, and answers the indexes refused.
 * The POST itself already paid for one request (the first); notifications, responses and invalid messages
 * cost nothing (they run no tool). Once a limit refuses, every later request is refused without asking the
 * store again: a used-up bucket stays used up for the rest of its window.
 */
export async function chargeBatch(
  messages: readonly ClassifiedMessage[],
  limiter: RateLimitGuard | undefined,
  input: PipelineInput,
  reply: SvcReply,
): Promise<ReadonlySet<number>> {
  const refused = new Set<number>();
  if (limiter === undefined) return refused;
  let paidByPost = false;
  for (const [index, message] of messages.entries()) {
    if (message.kind !== 'request') continue;
    if (!paidByPost) {
      paidByPost = true;
      continue;
    }
    if (refused.size === 0) {
      try {
        await limiter.countMessage(input, reply);
        continue;
      } catch (error) {
        if (!isRateLimited(error)) throw error;
      }
    }
    refused.add(index);
  }
  return refused;
}
