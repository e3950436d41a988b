-- semaphore-handover.lua: pass a permit from its holder to another thread of the same instance in one atomic
-- step, instead of a return (semaphore-release.lua) followed by an acquisition (semaphore-acquire.lua): two
-- round trips, the permit free in between.
--
-- The holder's permit id leaves the set and the next one enters it with a fresh lease, on the Redis clock,
-- as semaphore-acquire.lua takes a permit (include/permit-set.lua). It does so only while no other instance marked the semaphore as
-- awaited (KEYS[2], which semaphore-acquire.lua sets to the refused instance's id, or '*' when several
-- instances wait, or '1' when the caller did not say who it is): then the permit is returned and the return
-- published exactly as semaphore-release.lua does, and the next thread is refused; it contends like every
-- other waiter, so a busy instance cannot keep permits from the others by passing them around. When the
-- holder's lease had already run out (its permit may count for another holder by now), nothing is passed:
-- the permit is returned as semaphore-release.lua would and the next thread is refused. Expired permits
-- are reclaimed first, and the limit travels with the call, as in semaphore-acquire.lua: with fewer permits
-- allowed than are held, the holder's permit is returned and nobody takes it.
--
-- KEYS[1]: the semaphore, KEYS[2]: its waiters mark.
-- ARGV[1]: the holder's permit id, ARGV[2]: the next permit id, ARGV[3]: permits, ARGV[4]: the next lease
-- in ms, ARGV[5]: the caller's instance id, ARGV[6]: the release channel (its message is the key).
-- Reply: {held, taken}: held is 1 when the holder's permit was still live (as semaphore-release.lua's 1),
-- taken is 1 when the next permit id now holds the permit.
--#include permit-set.lua
local now = permit_set.now_ms()
local present, live = permit_set.give_back(KEYS[1], ARGV[1], now)
local held = live and 1 or 0
local marked = redis.call('GET', KEYS[2])
if not live or (marked and marked ~= ARGV[5]) then
  if present and redis.call('DEL', KEYS[2]) == 1 then
    redis.call('PUBLISH', ARGV[6], KEYS[1])
  end
  return {held, 0}
end
local set = permit_set.open(KEYS[1], ARGV[2], tonumber(ARGV[3]), now)
if not set.admits then
  return {1, 0}
end
permit_set.grant(set, tonumber(ARGV[4]))
return {1, 1}
