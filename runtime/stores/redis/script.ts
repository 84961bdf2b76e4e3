// A Lua script run by SHA (EVALSHA), sent whole (EVAL) only when Redis does not know it yet (after a restart
// or SCRIPT FLUSH). Every store operation that reads and writes is one script, so it is atomic in Redis.
import { createHash } from 'node:crypto';
import type { RedisClient } from './client.js';
import { redisCall } from './errors.js';

export type ScriptArg = string | number;

/**
 * Adds `member` to the index set `set` and keeps the set alive at least `ttl` ms, so an index lives as long as
 * its longest-lived member. Members whose key already expired stay until the index is next read.
 */
export const LUA_INDEX_ADD = `
local function index_add(set, member, ttl)
  redis.call('SADD', set, member)
  if redis.call('PTTL', set) < ttl then redis.call('PEXPIRE', set, ttl) end
end
`;

function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('NOSCRIPT');
}

export class RedisScript {
  readonly sha: string;

  constructor(readonly lua: string) {
    this.sha = createHash('sha1').update(lua).digest('hex');
  }

  /** The script's reply; STORE_UNAVAILABLE when Redis cannot answer. */
  run(client: RedisClient, keys: readonly string[], args: readonly ScriptArg[]): Promise<unknown> {
    return redisCall(async () => {
      try {
        return await client.evalsha(this.sha, keys.length, ...keys, ...args);
      } catch (error) {
        if (!isNoScript(error)) throw error;
        return await client.eval(this.lua, keys.length, ...keys, ...args);
      }
    });
  }
}
