-- lock-acquire.lua: take a lock if it is free and issue its fencing token, in one atomic step.
--
-- The lock is a string holding the owner's token, expiring after the lease (SET NX PX). The fencing
-- counter sits beside it in the same hash slot. The new token is one more than the last one but
-- never less than the Redis clock in microseconds: if the counter is gone (it expires a day after the
-- last acquisition, or a fail-over lost it) the clock still puts the new token above every earlier one,
-- unless the clock went back further than the time since that acquisition. Tokens stay below 2^53, so
-- Lua's doubles hold them exactly.
--
-- A refused caller waits for the release message, so it marks the lock as awaited (KEYS[3]) in this same
-- step: lock-release.lua publishes only when that mark is there. The mark outlives the holder's lease by
-- a margin; a waiter tries again before the lease runs out, which renews the mark.
--
-- KEYS[1]: the lock, KEYS[2]: its fencing counter, KEYS[3]: its waiters mark.
-- ARGV[1]: owner token, ARGV[2]: lease in ms, ARGV[3]: how long the counter outlives this call, in ms,
-- ARGV[4]: how long the waiters mark outlives the holder's lease, in ms.
-- Reply: {1, fencing token} when taken; {0, ms until the holder's lease runs out} when held.
if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  local ttl = redis.call('PTTL', KEYS[1])
  redis.call('SET', KEYS[3], '1', 'PX', math.max(ttl, 0) + tonumber(ARGV[4]))
  return {0, ttl}
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local token = math.max((tonumber(redis.call('GET', KEYS[2])) or 0) + 1, now)
redis.call('SET', KEYS[2], string.format('%.0f', token), 'PX', ARGV[3])
return {1, token}
