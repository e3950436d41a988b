-- semaphore-acquire.lua: take a permit if fewer than the allowed number are held, on the Redis clock.
--
-- The semaphore is a sorted set of permit ids scored by the millisecond (Redis clock) at which each
-- permit's lease runs out. Expired permits are reclaimed first, so a holder that died frees its permit
-- one lease later. The limit travels with every call, so a changed limit applies from the next call.
-- The set itself expires with its last permit. A refused caller marks the semaphore as awaited (KEYS[2])
-- in the same step, until the earliest permit's lease runs out plus a margin, so that
-- semaphore-release.lua publishes a return only when somebody waits.
--
-- KEYS[1]: the semaphore, KEYS[2]: its waiters mark.
-- ARGV[1]: permit id, ARGV[2]: permits, ARGV[3]: lease in ms,
-- ARGV[4]: how long the waiters mark outlives the earliest permit's lease, in ms.
-- Reply: {1, 0} when taken; {0, ms until the earliest permit's lease runs out} when all are held.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
  redis.call('PEXPIREAT', KEYS[1], redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')[2])
  return {1, 0}
end
local wait = tonumber(redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2]) - now
redis.call('SET', KEYS[2], '1', 'PX', math.max(wait, 0) + tonumber(ARGV[4]))
return {0, wait}
