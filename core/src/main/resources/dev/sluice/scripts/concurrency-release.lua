-- concurrency-release.lua: return a request's permits of concurrency limits (taken by gcra.lua, kind 'permits').
--
-- Every concurrency policy of one request holds a permit under the same permit id, one sorted set per policy
-- and key (scored by lease expiry, as in semaphore-acquire.lua), so one call returns them all. Nobody waits
-- on these sets (a request that finds no free permit is refused at once), so nothing is published.
--
-- This is the script's wire format; PermitProtocol.java writes the arguments and reads the reply, and a
-- replacement script (sluice.script.concurrency-release) must keep it.
-- KEYS: the permit sets (all in one hash slot). ARGV[1]: the permit id.
-- Reply: an integer from 0 to the number of KEYS, how many of the permits were still held (an expired one may
-- already have been reclaimed); the permit id is removed from every set either way.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local held = 0
for _, key in ipairs(KEYS) do
  local expires = tonumber(redis.call('ZSCORE', key, ARGV[1]))
  if expires then
    redis.call('ZREM', key, ARGV[1])
    if expires > now then held = held + 1 end
  end
end
return held
