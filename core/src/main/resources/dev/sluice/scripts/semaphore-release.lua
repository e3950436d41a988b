-- semaphore-release.lua: return a permit and wake the waiters if it has any.
--
-- The return is published only when a refused acquisition marked the semaphore as awaited (KEYS[2], set
-- by semaphore-acquire.lua in the same step as the refusal); the mark goes with the message, and
-- waiters that lose the next round set it again.
--
-- KEYS[1]: the semaphore, KEYS[2]: its waiters mark.
-- ARGV[1]: permit id, ARGV[2]: the release channel (its message is the key).
-- Reply: 1 when returned in time, 0 when its lease had already run out (it may have been reclaimed and
-- handed to another holder while the caller still ran).
--#include permit-set.lua
local present, live = permit_set.give_back(KEYS[1], ARGV[1], permit_set.now_ms())
if not present then
  return 0
end
if redis.call('DEL', KEYS[2]) == 1 then
  redis.call('PUBLISH', ARGV[2], KEYS[1])
end
return live and 1 or 0
