-- permit-set.lua: the permit set, shared by semaphores and concurrency limits. Not a script of its own: a script
-- that has the line "--#include permit-set.lua" gets this text in place of that line when Sluice loads it
-- (bundled or an operator's replacement), so that every script takes, renews and returns permits alike.
--
-- A permit set is a sorted set of permit ids scored by the millisecond (Redis clock) at which each permit's lease
-- runs out; a lease runs out at its millisecond, so a permit scored at or before now is gone. Expired permits (a
-- holder that died) are removed before a permit is counted. The set expires with its latest lease. A permit id
-- that already holds a live permit is the caller's own (a retry of a call whose reply was lost, or a permit passed
-- on): it is granted again with the new lease instead of being counted against the caller.
--
-- It defines one local table, permit_set, and calls only ZADD, ZCARD, ZRANGE, ZREM, ZREMRANGEBYSCORE, ZSCORE,
-- PEXPIREAT and TIME. Times are milliseconds on the Redis clock; the caller reads the clock once (now_ms) and
-- passes it, so that one script decides on one instant.
local permit_set = {}

-- Now on the Redis clock, in whole milliseconds.
function permit_set.now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- The set under key as id finds it at now, expired permits removed: held (permits counted, id's own included),
-- own (whether id holds one) and admits (whether id may hold one of permits: its own, or one is free).
function permit_set.open(key, id, permits, now)
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
  local set = { key = key, id = id, permits = permits, now = now }
  set.own = redis.call('ZSCORE', key, id) ~= false
  set.held = redis.call('ZCARD', key)
  set.admits = set.own or set.held < permits
  return set
end

-- Gives the set's id a permit until lease ms from now (its own permit gets the new lease); the set then expires
-- with its latest lease, which is returned.
function permit_set.grant(set, lease)
  redis.call('ZADD', set.key, set.now + lease, set.id)
  if not set.own then
    set.own, set.held = true, set.held + 1
  end
  local latest = permit_set.latest(set.key)
  redis.call('PEXPIREAT', set.key, latest)
  return latest
end

-- Removes the set's id's own permit, if it holds one (a refused caller holds none).
function permit_set.withdraw(set)
  if set.own then
    redis.call('ZREM', set.key, set.id)
    set.own, set.held = false, set.held - 1
  end
end

-- The earliest and the latest lease end in the set under key, which holds at least one permit.
function permit_set.earliest(key)
  return tonumber(redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')[2])
end

function permit_set.latest(key)
  return tonumber(redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')[2])
end

-- Returns id's permit to the set under key: whether id was in the set at all, and whether its lease was still
-- running at now (an expired one may already count for another holder). Either way id is no longer in the set.
function permit_set.give_back(key, id, now)
  local expires = tonumber(redis.call('ZSCORE', key, id))
  if not expires then
    return false, false
  end
  redis.call('ZREM', key, id)
  return true, expires > now
end

-- Renews id's permit until lease ms from now if its lease is still running; an expired one is removed (it may
-- already count for another holder). The set then expires with its latest lease. Returns whether it was renewed.
function permit_set.renew(key, id, now, lease)
  local expires = tonumber(redis.call('ZSCORE', key, id))
  if not expires or expires <= now then
    redis.call('ZREM', key, id)
    return false
  end
  redis.call('ZADD', key, 'XX', now + lease, id)
  redis.call('PEXPIREAT', key, permit_set.latest(key))
  return true
end
