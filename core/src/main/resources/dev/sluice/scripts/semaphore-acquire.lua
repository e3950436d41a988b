-- semaphore-acquire.lua: take a permit if fewer than the allowed number are held, on the Redis clock.
--
-- The semaphore is a permit set (include/permit-set.lua: a sorted set of permit ids scored by the millisecond,
-- Redis clock, at which each permit's lease runs out). Expired permits are reclaimed first, so a holder that
-- died frees its permit one lease later. The limit travels with every call, so a changed limit applies from the
-- next call. A refused caller marks the semaphore as awaited (KEYS[2]) in the same step, until the earliest
-- permit's lease runs out plus a margin, so that semaphore-release.lua publishes a return only when somebody
-- waits.
--
-- Retries are safe: a permit id that already holds a live permit (a retry of a call whose reply was lost, or
-- a hand-over by semaphore-handover.lua whose reply was lost) is granted again with the new lease instead of
-- being refused against its own permit, which nobody would renew or return until its lease ran out.
--
-- Given the caller's instance (ARGV[5]), the mark names it, or says '*' when another instance marked it
-- too: semaphore-handover.lua passes a permit among the threads of one instance only while no other
-- instance waits. Without ARGV[5] the mark is '1', an unknown waiter.
--
-- KEYS[1]: the semaphore, KEYS[2]: its waiters mark.
-- ARGV[1]: permit id, ARGV[2]: permits, ARGV[3]: lease in ms,
-- ARGV[4]: how long the waiters mark outlives the earliest permit's lease, in ms,
-- ARGV[5] (optional): the caller's instance id.
-- Reply: {1, 0} when taken; {0, ms until the earliest permit's lease runs out} when all are held.
--#include permit-set.lua
local now = permit_set.now_ms()
local set = permit_set.open(KEYS[1], ARGV[1], tonumber(ARGV[2]), now)
if set.admits then
  permit_set.grant(set, tonumber(ARGV[3]))
  return {1, 0}
end
local wait = permit_set.earliest(KEYS[1]) - now
local mark = ARGV[5] or '1'
if ARGV[5] then
  local marked = redis.call('GET', KEYS[2])
  if marked and marked ~= mark then
    mark = '*'
  end
end
redis.call('SET', KEYS[2], mark, 'PX', math.max(wait, 0) + tonumber(ARGV[4]))
return {0, wait}
