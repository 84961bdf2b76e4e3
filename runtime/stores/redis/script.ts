// A Lua script run by SHA (EVALSHA), sent whole (EVAL) only when Redis does not know it yet (after a restart
// or SCRIPT FLUSH). Every store operation that reads and writes is one script, so it is atomic in Redis.
import { createHash } from 'node:crypto';
import type { RedisClient } from './client.js';
import { redisCall } from './errors.js';

export type ScriptArg = string | number;

/**
 * Lua helpers the store scripts share; prepend to a script that uses them.
 * - put_record(key, ttl, first): replaces `key` with a hash of the field/value pairs in ARGV from `first` on
 *   (HashRecord.args), living `ttl` ms; false, with `key` deleted, when the record has already expired.
 * - index_add(set, member, ttl): adds `member` to an index set kept alive at least `ttl` ms, so an index lives
 *   as long as its longest-lived member. Members whose key expired stay until the index is next read.
 * - index_each(set, prefix, field, owner, visit): calls visit(key, member) for each member whose record still
 *   has `field` = `owner`; the others (expired, or the same hash stored again for another owner) leave the set.
 */
export const LUA_RECORDS = `
local function put_record(key, ttl, first)
  redis.call('DEL', key)
  if ttl <= 0 then return false end
  redis.call('HSET', key, unpack(ARGV, first))
  redis.call('PEXPIRE', key, ttl)
  return true
end
local function index_add(set, member, ttl)
  redis.call('SADD', set, member)
  if redis.call('PTTL', set) < ttl then redis.call('PEXPIRE', set, ttl) end
end
local function index_each(set, prefix, field, owner, visit)
  for _, member in ipairs(redis.call('SMEMBERS', set)) do
    local key = prefix .. member
    if redis.call('HGET', key, field) == owner then
      visit(key, member)
    else
      redis.call('SREM', set, member)
    end
  end
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

// KEYS: record, its owner's index. ARGV: member, TTL, then the record's fields. Creates a session or a
// one-time token.
export const PUT_INDEXED = new RedisScript(`${LUA_RECORDS}
if put_record(KEYS[1], tonumber(ARGV[2]), 3) then index_add(KEYS[2], ARGV[1], tonumber(ARGV[2])) end
return 1
`);
