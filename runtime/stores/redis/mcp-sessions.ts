// The Redis MCP tool-session store (McpSessionStore): the same rules as MemoryMcpSessionStore, shared by every
// process on the Redis. Key layout, under the prefix (default 'svc:'):
//   mcp:s:<id>     hash {caller, owner, version, lastSeen}; TTL ttlMs, renewed by every use
//   mcp:recent     sorted set of ids, scored by lastSeen: the recency order for eviction; TTL ttlMs from the
//                  last write (at least as long as any session hash, so it goes once every session is idle)
//   mcp:o:<owner>  set of the owner's session ids (`maxPerCaller`); TTL at least ttlMs, renewed by every use of
//                  one of them. Members whose session is gone (ended, evicted, expired) leave it when the
//                  owner next opens one.
// A session is live while now - lastSeen < ttlMs on the store's clock (passed into the scripts); the key TTLs
// only reclaim memory. Each operation is one script, so concurrent opens on any number of processes leave at
// most maxSessions live sessions, and at most maxPerCaller of one owner.
import type { ProtocolVersion } from '../../mcp/protocol/versions.js';
import {
  maxPerCallerOf,
  ownerOf,
  type McpSessionLimits,
  type McpSessionRecord,
  type McpSessionStore,
} from '../../mcp/server/session-store.js';
import { positiveWholeNumber } from '../../config/whole-number.js';
import type { RedisClient } from './client.js';
import { HashRecord } from './hash.js';
import { prefixOf, type RedisStoreOptions } from './keys.js';
import { LUA_RECORDS, RedisScript } from './script.js';

interface SessionHash {
  caller: string;
  /**
   * Absent from sessions written before owners existed: they are in no owner set, so they count against no
   * one's `maxPerCaller` (only `maxSessions`); they end within ttlMs of the upgrade. `use` reports their caller
   * as their owner.
   */
  owner?: string;
  version: string;
  lastSeen: number;
}

const SESSION = new HashRecord<SessionHash>({
  caller: 'string',
  owner: 'string?',
  version: 'string',
  lastSeen: 'number',
});

// Shared by the scripts. KEYS[2] is always the recency set.
// - live(key, now, ttl): the session's caller and version when it is live; an expired one is deleted (hash
//   and set member) and gives nil.
// - keep_recent(ttl): the set lives at least ttl ms more.
const LUA_MCP = `
local function live(key, member, now, ttl)
  local s = redis.call('HMGET', key, 'caller', 'version', 'lastSeen')
  if not s[1] then return nil end
  if now - tonumber(s[3]) >= ttl then
    redis.call('DEL', key)
    redis.call('ZREM', KEYS[2], member)
    return nil
  end
  return s
end
local function keep_recent(ttl)
  if redis.call('PTTL', KEYS[2]) < ttl then redis.call('PEXPIRE', KEYS[2], ttl) end
end
`;

// KEYS: session, recency set, owner set. ARGV: id, now, ttlMs, maxSessions, session key prefix, owner,
// maxPerCaller, then the hash fields.
// 1. Members idle for ttl or longer leave the set, their hashes with them (expired: they count no more).
// 2. The session is written and becomes the most recent, in both sets.
// 3. The owner's live sessions are read with their last use (their score in the recency set); members whose
//    session is gone, or now another owner's, leave the owner set. Beyond maxPerCaller the least recently
//    used go (hash, member, owner member) in (score, id) order, the new one behind those seen at its instant.
// 4. Beyond maxSessions, the least recently used go (hash and member): the excess + 1 oldest are read in
//    (score, id) order and the new session, were it among them, moves behind those seen at the same instant
//    (it is the most recent of them), so it goes only when others were seen strictly later (clock skew).
// A member whose hash vanished early (closed on another path, evicted by maxmemory) still counts until it
// is popped or ages out: eviction may then take one session too many, never keep one too many.
const OPEN = new RedisScript(`${LUA_RECORDS}${LUA_MCP}
local id, now, ttl, max, prefix = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5]
local owner, per = ARGV[6], tonumber(ARGV[7])
for _, member in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now - ttl)) do
  redis.call('DEL', prefix .. member)
end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - ttl)
put_record(KEYS[1], ttl, 8)
redis.call('ZADD', KEYS[2], ARGV[2], id)
keep_recent(ttl)
index_add(KEYS[3], id, ttl)
local owned = {}
for _, member in ipairs(redis.call('SMEMBERS', KEYS[3])) do
  local seen = redis.call('ZSCORE', KEYS[2], member)
  if seen and redis.call('HGET', prefix .. member, 'owner') == owner then
    table.insert(owned, { member, tonumber(seen) })
  else
    redis.call('SREM', KEYS[3], member)
  end
end
if #owned > per then
  table.sort(owned, function(a, b)
    if a[2] ~= b[2] then return a[2] < b[2] end
    if (a[1] == id) ~= (b[1] == id) then return b[1] == id end
    return a[1] < b[1]
  end)
  for i = 1, #owned - per do
    redis.call('DEL', prefix .. owned[i][1])
    redis.call('ZREM', KEYS[2], owned[i][1])
    redis.call('SREM', KEYS[3], owned[i][1])
  end
end
local excess = redis.call('ZCARD', KEYS[2]) - max
if excess <= 0 then return 0 end
local oldest = redis.call('ZRANGE', KEYS[2], 0, excess, 'WITHSCORES')
local order, mine = {}, nil
for i = 1, #oldest, 2 do
  local member, score = oldest[i], tonumber(oldest[i + 1])
  if mine and score > mine then
    table.insert(order, id)
    mine = nil
  end
  if member == id then mine = score else table.insert(order, member) end
end
if mine then table.insert(order, id) end
for i = 1, excess do
  redis.call('DEL', prefix .. order[i])
  redis.call('ZREM', KEYS[2], order[i])
end
return excess
`);

// KEYS: session, recency set. ARGV: id, caller, now, ttlMs, owner set key prefix. Replies the hash (HGETALL)
// when the caller's session is live, its idle time reset (and its owner set kept as long); nil otherwise. A
// foreign caller's call changes nothing.
const USE = new RedisScript(`${LUA_MCP}
local now, ttl = tonumber(ARGV[3]), tonumber(ARGV[4])
local s = live(KEYS[1], ARGV[1], now, ttl)
if not s or s[1] ~= ARGV[2] then return nil end
redis.call('HSET', KEYS[1], 'lastSeen', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
keep_recent(ttl)
local owner = redis.call('HGET', KEYS[1], 'owner')
if owner then
  local owned = ARGV[5] .. owner
  if redis.call('PTTL', owned) < ttl then redis.call('PEXPIRE', owned, ttl) end
end
return redis.call('HGETALL', KEYS[1])
`);

// KEYS: session, recency set. ARGV: id, caller, now, ttlMs. 1 when the caller's live session ended.
const CLOSE = new RedisScript(`${LUA_MCP}
local s = live(KEYS[1], ARGV[1], tonumber(ARGV[3]), tonumber(ARGV[4]))
if not s or s[1] ~= ARGV[2] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return 1
`);

export interface RedisMcpSessionStoreOptions extends RedisStoreOptions {
  /** Clock in epoch milliseconds; tests pass a fake one. Default `Date.now`. */
  now?: () => number;
}

export class RedisMcpSessionStore implements McpSessionStore {
  readonly ttlMs: number;
  readonly maxSessions: number;
  readonly maxPerCaller: number;
  private readonly sessionPrefix: string;
  private readonly recentKey: string;
  private readonly ownerPrefix: string;
  private readonly now: () => number;

  constructor(
    private readonly client: RedisClient,
    limits: McpSessionLimits,
    options: RedisMcpSessionStoreOptions = {},
  ) {
    this.ttlMs = positiveWholeNumber(limits.ttlMs, 0, 'RedisMcpSessionStore', 'ttlMs');
    this.maxSessions = positiveWholeNumber(limits.maxSessions, 0, 'RedisMcpSessionStore', 'maxSessions');
    this.maxPerCaller = maxPerCallerOf(limits, 'RedisMcpSessionStore');
    const prefix = prefixOf(options);
    this.sessionPrefix = `${prefix}mcp:s:`;
    this.recentKey = `${prefix}mcp:recent`;
    this.ownerPrefix = `${prefix}mcp:o:`;
    this.now = options.now ?? Date.now;
  }

  async open(record: McpSessionRecord): Promise<void> {
    const now = this.now();
    const owner = ownerOf(record);
    const hash = SESSION.args({
      caller: record.caller,
      owner,
      version: record.protocolVersion,
      lastSeen: now,
    });
    await OPEN.run(
      this.client,
      [this.sessionPrefix + record.id, this.recentKey, this.ownerPrefix + owner],
      [record.id, now, this.ttlMs, this.maxSessions, this.sessionPrefix, owner, this.maxPerCaller, ...hash],
    );
  }

  async use(id: string, caller: string): Promise<McpSessionRecord | undefined> {
    const reply = await USE.run(
      this.client,
      [this.sessionPrefix + id, this.recentKey],
      [id, caller, this.now(), this.ttlMs, this.ownerPrefix],
    );
    const session = SESSION.readReply(reply);
    if (session === undefined) return undefined;
    return {
      id,
      caller: session.caller,
      owner: session.owner ?? session.caller,
      protocolVersion: session.version as ProtocolVersion,
    };
  }

  async close(id: string, caller: string): Promise<boolean> {
    const ended = await CLOSE.run(
      this.client,
      [this.sessionPrefix + id, this.recentKey],
      [id, caller, this.now(), this.ttlMs],
    );
    return ended === 1;
  }
}
