-- semaphore-extend.lua: renew a permit's lease if it has not run out (the watchdog's renewal).
--
-- KEYS[1]: the semaphore. ARGV[1]: permit id, ARGV[2]: new lease in ms.
-- Reply: 1 when renewed, 0 when the permit had expired (it is removed: it may already count for another).
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local expires = tonumber(redis.call('ZSCORE', KEYS[1], ARGV[1]))
if not expires or expires <= now then
  redis.call('ZREM', KEYS[1], ARGV[1])
  return 0
end
redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIREAT', KEYS[1], redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')[2])
return 1
