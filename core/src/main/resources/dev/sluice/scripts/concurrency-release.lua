-- concurrency-release.lua: return a request's permits of concurrency limits (taken by gcra.lua, kind 'permits').
--
-- Every concurrency policy of one request holds a permit under the same permit id, one permit set per policy
-- and key (include/permit-set.lua, as a semaphore's), so one call returns them all. Nobody waits on these sets
-- (a request that finds no free permit is refused at once), so nothing is published.
--
-- This is the script's wire format; PermitProtocol.java writes the arguments and reads the reply, and a
-- replacement script (sluice.script.concurrency-release) must keep it.
-- KEYS: the permit sets (all in one hash slot). ARGV[1]: the permit id.
-- Reply: an integer from 0 to the number of KEYS, how many of the permits were still held (an expired one may
-- already have been reclaimed); the permit id is removed from every set either way.
--#include permit-set.lua
local now = permit_set.now_ms()
local held = 0
for _, key in ipairs(KEYS) do
  local _, live = permit_set.give_back(key, ARGV[1], now)
  if live then held = held + 1 end
end
return held
