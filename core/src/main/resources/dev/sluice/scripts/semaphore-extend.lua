-- semaphore-extend.lua: renew a permit's lease if it has not run out (the watchdog's renewal).
--
-- It renews a semaphore's permits and a concurrency limit's (taken by gcra.lua) alike: both are permit sets
-- (include/permit-set.lua).
--
-- KEYS[1]: the permit set. ARGV[1]: permit id, ARGV[2]: new lease in ms.
-- Reply: 1 when renewed, 0 when the permit had expired (it is removed: it may already count for another).
--#include permit-set.lua
return permit_set.renew(KEYS[1], ARGV[1], permit_set.now_ms(), tonumber(ARGV[2])) and 1 or 0
