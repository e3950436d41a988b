-- semaphore-release.lua: return a permit and wake the waiters.
--
-- KEYS[1]: the semaphore. ARGV[1]: permit id, ARGV[2]: the release channel (its message is the key).
-- Reply: 1 when returned in time, 0 when its lease had already run out (it may have been reclaimed and
-- handed to another holder while the caller still ran).
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local expires = tonumber(redis.call('ZSCORE', KEYS[1], ARGV[1]))
if not expires then
  return 0
end
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('PUBLISH', ARGV[2], KEYS[1])
if expires <= now then
  return 0
end
return 1
