-- lock-acquire.lua: take a lock and issue its fencing token in one atomic step: when it is free, when the
-- caller already owns it, or, passed a holder, straight from that holder (a hand-off).
--
-- The lock is a string holding the owner's token, expiring after the lease. The fencing counter sits beside
-- it in the same hash slot. The new token is one more than the last one but never less than the Redis clock
-- in microseconds: if the counter is gone (it expires a day after the last acquisition, or a fail-over lost
-- it) the clock still puts the new token above every earlier one, unless the clock went back further than
-- the time since that acquisition. Tokens stay below 2^53, so Lua's doubles hold them exactly. This is the
-- one place tokens are issued: a hand-off is this script with a holder.
--
-- Retries are safe: when the caller's token already owns the lock (a retry of a call whose reply was lost,
-- by the client or by the caller), the lease is set again and the token issued then is returned, instead of
-- refusing the owner its own lock, which nobody would renew or release until its lease ran out.
--
-- A refused caller waits for the release message, so it marks the lock as awaited (KEYS[3]) in this same
-- step: lock-release.lua publishes only when that mark is there. The mark outlives the holder's lease by
-- a margin; a waiter tries again before the lease runs out, which renews the mark.
--
-- Hand-off (ARGV[5] given): a holder passes the lock to the next thread of its JVM, instead of a release
-- followed by an acquisition (two round trips, the lock free in between). When another instance marked the
-- lock as awaited, the lock is released and the release published instead, as lock-release.lua does, and
-- the new owner is refused: it then contends like everybody else, so a busy JVM cannot keep a lock from the
-- other nodes by passing it around. When the holder no longer owns the lock (its lease ran out), this is an
-- ordinary acquisition for the new owner.
--
-- KEYS[1]: the lock, KEYS[2]: its fencing counter, KEYS[3]: its waiters mark.
-- ARGV[1]: owner token, ARGV[2]: lease in ms, ARGV[3]: how long the counter outlives this call, in ms,
-- ARGV[4]: how long the waiters mark outlives the holder's lease, in ms,
-- ARGV[5] (hand-off only): the holder's owner token, ARGV[6] (hand-off only): the release channel.
-- Reply: {1, fencing token, held} when taken; {0, ms to wait before trying again, held} when refused; held is
-- 1 when the holder of a hand-off still owned the lock (or, on a retry, had passed it), else 0. It calls only
-- commands of the documented ACL user (GET, SET, DEL, PTTL, PEXPIRE, TIME, PUBLISH; docs/operations.md).
local holder = ARGV[5]
local current = redis.call('GET', KEYS[1])
local held = 0
if current == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  if holder then
    held = 1
  end
  local issued = tonumber(redis.call('GET', KEYS[2]))
  if issued then
    return {1, issued, held}
  end
elseif holder and current == holder then
  if redis.call('GET', KEYS[3]) then
    redis.call('DEL', KEYS[1], KEYS[3])
    redis.call('PUBLISH', ARGV[6], KEYS[1])
    return {0, 0, 1}
  end
  held = 1
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
elseif current then
  local ttl = redis.call('PTTL', KEYS[1])
  redis.call('SET', KEYS[3], '1', 'PX', math.max(ttl, 0) + tonumber(ARGV[4]))
  return {0, ttl, 0}
else
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local token = math.max((tonumber(redis.call('GET', KEYS[2])) or 0) + 1, now)
redis.call('SET', KEYS[2], string.format('%.0f', token), 'PX', ARGV[3])
return {1, token, held}
