-- lock-handoff.lua: pass a lock from its holder to the next thread of the same JVM in one atomic step,
-- instead of a release followed by an acquisition (two round trips, the lock free in between).
--
-- When the holder still owns the lock and no other instance is waiting for it, the lock takes the new
-- owner's token and lease, and a new fencing token is issued, exactly as lock-acquire.lua would. When
-- another instance marked the lock as awaited (KEYS[3], left by its refused attempt), the lock is released
-- and the release published, as lock-release.lua does, and the new owner is refused: it then contends like
-- everybody else, so a busy JVM cannot keep a lock from the other nodes by passing it around. When the
-- holder no longer owns the lock (its lease ran out), this is an ordinary acquisition for the new owner.
--
-- KEYS[1]: the lock, KEYS[2]: its fencing counter, KEYS[3]: its waiters mark.
-- ARGV[1]: holder's owner token, ARGV[2]: new owner token, ARGV[3]: new lease in ms, ARGV[4]: how long the
-- counter outlives this call, in ms, ARGV[5]: how long a waiters mark outlives the lease, in ms,
-- ARGV[6]: the release channel.
-- Reply: {1, fencing token, held} when passed or taken; {0, ms to wait before trying again, held} when
-- refused; held is 1 when the holder still owned the lock, else 0. It calls only commands of the documented ACL
-- user (GET, SET, DEL, PTTL, TIME, PUBLISH; docs/operations.md).
local held = redis.call('GET', KEYS[1]) == ARGV[1]
if held then
  if redis.call('GET', KEYS[3]) then
    redis.call('DEL', KEYS[1], KEYS[3])
    redis.call('PUBLISH', ARGV[6], KEYS[1])
    return {0, 0, 1}
  end
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
elseif not redis.call('SET', KEYS[1], ARGV[2], 'NX', 'PX', ARGV[3]) then
  local ttl = redis.call('PTTL', KEYS[1])
  redis.call('SET', KEYS[3], '1', 'PX', math.max(ttl, 0) + tonumber(ARGV[5]))
  return {0, ttl, 0}
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local token = math.max((tonumber(redis.call('GET', KEYS[2])) or 0) + 1, now)
redis.call('SET', KEYS[2], string.format('%.0f', token), 'PX', ARGV[4])
if held then
  return {1, token, 1}
end
return {1, token, 0}
