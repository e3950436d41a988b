-- gcra.lua: decide one or more rate-limit policies atomically, on the Redis clock.
--
-- Each bandwidth is a GCRA bucket whose state is its theoretical arrival time (TAT): the instant on the Redis
-- clock at which it is full again. The key expires at that instant, so an idle bucket costs nothing. A request
-- of cost c moves the TAT by c * interval; it conforms when the moved TAT is at most capacity * interval ahead
-- of now. The request is admitted only if every bandwidth of every deciding policy admits it; then all are
-- charged, otherwise none is (a denied request does not eat another policy's quota).
--
-- Each policy says how it takes part, in three fields:
--   kind      'bucket': a rate's GCRA buckets, one per bandwidth; 'budget': the same buckets, which also reserve
--             tokens for the node's local budget (below); 'permits': a concurrency limit's permit set
--   decides   '1': a refusal by this policy refuses the request; '0': it never refuses (shadow mode, or a
--             charge after the response)
--   charge    when this policy is charged (a bucket moves by the cost, a permit set takes a permit):
--             'never'         only decided (the check before a request charged after its response)
--             'if-all-admit'  when the request is admitted (every deciding policy admits it) and this one admits
--                             it too (for a deciding policy that follows)
--             'if-it-admits'  when this policy admits it, whatever the others decide (a shadowed rate)
--             'always'        buckets only: charged without deciding (after a counted response); the bucket
--                             moves by the cost but never further than empty, and the reply says allowed
--             'refund'        kind 'bucket' only: cost tokens given back without deciding (the unspent part of a
--                             node's local budget); the bucket moves back by the cost but never fuller than full
--                             (its TAT never before now), and the reply says allowed
--
-- A budget (kind 'budget') is a rate policy that lets a node admit requests of one key on its own for a short while:
-- besides its own charge it asks for up to 'reserve' more tokens, which its buckets give when the request is admitted
-- and this policy admits it, as many as every bandwidth still holds after the policy's own charge (none when one holds
-- none, so a reservation never refuses a request or takes more than a bucket has). The reserved tokens are charged like
-- the cost; the node spends them locally or gives them back with a 'refund'. Its reply has a sixth integer, the tokens
-- reserved, and 'remaining' counts what the buckets hold after them.
--
-- A permit set (kind 'permits') is a semaphore's data model, written once in include/permit-set.lua: a sorted
-- set of permit ids scored by the millisecond (Redis clock) at which each permit's lease runs out, so that
-- semaphore-extend.lua renews a permit and concurrency-release.lua returns it. Expired permits (a holder that
-- died) are removed first. It takes part in the all-or-nothing rule like a bucket: no permit is taken for a
-- request a rate refuses, no token for one that finds no free permit. A permit id already in the set is this
-- request's own (the store retries a decision once when its connection broke, and the first run may have taken
-- the permit): it is not counted against the request, granted again with the new lease, or removed when the
-- request is refused. Its reply uses the same five integers: remaining = free permits, tightest = 0, wait =
-- until the earliest lease runs out (admitted: 0 while a permit is free), reset = until the latest lease runs out.
--
-- Exact at every rate: interval = period / tokens is a fraction of a microsecond in general. Each bandwidth
-- comes with it as interval_units / units_per_us in lowest terms, and the script counts that bucket's durations
-- (how far its TAT is ahead of now) in its own unit, 1/units_per_us µs, in which the interval is whole. The
-- configuration keeps capacity * interval_units + units_per_us within 2^52, so every number here is an integer
-- that Lua's doubles hold exactly (sums of two included). Absolute times stay whole microseconds (TIME).
--
-- Stored value: one integer, so that Redis keeps every bucket in its smallest encoding whatever its rate:
--   the TAT in whole microseconds ("1795000000123456") when there is no remainder in units (always when the
--   interval is a whole number of microseconds);
--   for a bucket of at most 1000 units per µs with a remainder, the TAT followed by the remainder in exactly
--   three digits, 19 digits in all ("1795000000123456004" for 4 units);
--   for a bucket of more than 1000 units per µs (9999/1s: 1/9999 µs), which an absolute TAT leaves no room for,
--   18 digits: the digit 13 - d, the TAT modulo 10^m µs in m digits, and the remainder in d digits, d being the
--   digits of units_per_us - 1 (4 to 12) and m = 17 - d ("9" .. "0000123456789" .. "0042" for d = 4). The TAT
--   is the one instant with those last m digits within 10^m / 2 µs of now: a bucket is never more than a full
--   bucket ahead, and since capacity * interval_units stays within 2^52, a full bucket of such a rate spans less
--   than 4.5 * 10^(16 - d) µs, under half of 10^m;
--   for more than 10^12 units per µs, the TAT, ':' and the remainder ("1795000000123456:4567").
-- A value of 19 digits or more is the second form (a TAT of whole microseconds has 16 until the year 2286), one
-- of 18 digits the third; both are split as strings, since Lua's doubles lose digits beyond 2^53. Each form is
-- read whatever the bucket's rate is now (a limit changed by a redeployment reads its old bucket). Anything else
-- under the key (another type, another tool's text) counts as an absent bucket, read with MGET, which answers nil
-- for a key of another type instead of failing; the next charge overwrites it.
--
-- This is the script's wire format; GcraProtocol.java writes the arguments and reads the reply, and a
-- replacement script (sluice.script.gcra) must keep it. Malformed arguments are answered with an error reply.
-- KEYS: per policy, a bucket or a budget: one key per bandwidth; a permit set: the set.
-- ARGV: policy_count, then per policy: kind, decides, charge, and then
--       a bucket:     cost, bandwidth_count, and per bandwidth: interval_units, units_per_us, capacity
--       a budget:     cost, reserve, bandwidth_count, and per bandwidth as a bucket
--       a permit set: permits, lease_ms, permit_id
-- Reply: per policy five integers (a budget six), in this order:
--   allowed    1 or 0: whether this policy admits the request (the request itself is admitted when every
--              deciding policy does)
--   remaining  tokens left in the tightest bandwidth, the one with the fewest
--   tightest   that bandwidth's index, 0-based
--   wait_us    denied: until this request could be admitted, -1 = never; admitted: until one more token is
--              available in every bandwidth (the latest of them); rounded up
--   reset_us   until the tightest bucket is full again, rounded up
--   reserved   a budget only: the tokens reserved for the node, 0 to reserve
local function clock()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000000 + tonumber(t[2])
end
local now = clock()
local now_ms = math.floor(now / 1000)

-- For a bucket of more than 1000 units per µs (see above): the digits of its remainder and of its TAT's modulus.
local function fine_digits(units)
  local d = #string.format('%.0f', units - 1)
  return d, 17 - d
end

-- A stored value's TAT: whole microseconds and the remainder in units (see above); nil for a value this script
-- did not write.
local function tat_of(value)
  local micros = tonumber(value)
  if micros then
    if #value == 18 and string.find(value, '^[1-9]%d+$') then -- the form of more than 1000 units per µs
      local d = 13 - (string.byte(value, 1) - 48)
      local m = 17 - d
      local modulus = 10 ^ m
      local tat = now - math.fmod(now, modulus) + tonumber(string.sub(value, 2, 1 + m))
      if tat - now > modulus / 2 then
        tat = tat - modulus
      elseif now - tat > modulus / 2 then
        tat = tat + modulus
      end
      return tat, tonumber(string.sub(value, 2 + m))
    end
    if micros >= 1e18 and #value >= 19 and string.find(value, '^%d+$') then
      return tonumber(string.sub(value, 1, -4)), tonumber(string.sub(value, -3))
    end
    return micros, 0
  end
  local whole, rem = string.match(value, '^(%d+):(%d+)$')
  return tonumber(whole), tonumber(rem)
end

-- The common case, one enforced policy (decides, charged if all admit) of one bandwidth whose interval is whole
-- microseconds
-- (units_per_us = 1): the general code below without its tables and helpers, same reply.
if ARGV[1] == '1' and ARGV[2] == 'bucket' and ARGV[3] == '1' and ARGV[4] == 'if-all-admit' and ARGV[6] == '1'
    and ARGV[8] == '1' then
  local cost, interval, capacity = tonumber(ARGV[5]), tonumber(ARGV[7]), tonumber(ARGV[9])
  local span = capacity * interval
  local value = redis.call('MGET', KEYS[1])[1]
  local tat = value and tat_of(value)
  local ahead, clamped = 0, false
  if tat and tat % 1 == 0 and tat > now then
    ahead = tat - now
    if ahead > span then ahead, clamped = span, true end
  end
  local moved = ahead + cost * interval
  local ok, wait = true, 0
  if cost > capacity then
    ok, wait = false, -1
  elseif moved > span then
    ok, wait = false, moved - span
  else
    ahead = moved
  end
  if ok or clamped then
    redis.call('SET', KEYS[1], string.format('%.0f', now + ahead), 'PX', math.ceil(ahead / 1000))
  end
  if ok then wait = math.max(0, ahead + interval - span) end
  local left = math.floor((span - ahead) / interval)
  if left * interval > span - ahead then left = left - 1 end
  return { ok and 1 or 0, left, 0, wait, ahead }
end

-- The permit set's functions, defined only past the common case above, which needs none of them.
--#include permit-set.lua

-- floor(a / b) for integers below 2^53, b > 0: the division alone may round up to the next integer.
local function floor_div(a, b)
  local q = math.floor(a / b)
  if q * b > a then return q - 1 end
  return q
end

-- ceil(a / b) likewise: the division alone may round down to the integer below.
local function ceil_div(a, b)
  local q = math.ceil(a / b)
  if q * b < a then return q + 1 end
  return q
end

-- How far the stored TAT is ahead of now, in units: 0 for an absent or past bucket and for a value this script
-- did not write (text, fractions, nan). More than a full bucket ahead (the clock stepped back, or the limit
-- shrank) counts as exactly full, not emptier, and the second result asks for that to be stored.
local function ahead_of(value, units, span)
  if not value then return 0, false end
  local micros, rem = tat_of(value)
  if not micros or micros % 1 ~= 0 then return 0, false end
  micros = micros - now
  if micros < 0 then return 0, false end
  if micros > floor_div(span, units) + 1 then return span, true end
  local ahead = micros * units + math.min(rem, units - 1)
  if ahead > span then return span, true end
  return ahead, false
end

-- Stores a TAT that is ahead > 0 units ahead of now, expiring when the bucket is full again.
local function store(key, ahead, units)
  local micros = floor_div(ahead, units)
  local rem = ahead - micros * units
  local value
  local d, m = fine_digits(units)
  if units > 1000 and d <= 12 then
    value = (13 - d) .. string.format('%0' .. m .. '.0f', math.fmod(now + micros, 10 ^ m))
        .. string.format('%0' .. d .. '.0f', rem)
  else
    value = string.format('%.0f', now + micros)
    if rem > 0 and units <= 1000 then
      value = value .. string.format('%03d', rem)
    elseif rem > 0 then
      value = value .. ':' .. string.format('%.0f', rem)
    end
  end
  redis.call('SET', key, value, 'PX', math.ceil(ceil_div(ahead, units) / 1000))
end

local CHARGES = { ['never'] = true, ['if-all-admit'] = true, ['if-it-admits'] = true, ['always'] = true,
                  ['refund'] = true }
local KINDS = { ['bucket'] = true, ['budget'] = true, ['permits'] = true }
local values = redis.call('MGET', unpack(KEYS))
local policies, all_ok = {}, true
local arg, k = 2, 1
for p = 1, tonumber(ARGV[1]) do
  local pol = { kind = ARGV[arg], decides = ARGV[arg + 1] == '1', charge = ARGV[arg + 2], ok = true, never = false,
                wait = 0, buckets = {} }
  if not KINDS[pol.kind] or (ARGV[arg + 1] ~= '1' and ARGV[arg + 1] ~= '0') or not CHARGES[pol.charge]
      or (pol.kind == 'permits' and pol.charge == 'always') or (pol.kind ~= 'bucket' and pol.charge == 'refund') then
    return redis.error_reply('gcra.lua: policy ' .. p .. ' has kind ' .. tostring(pol.kind) .. ', decides '
        .. tostring(ARGV[arg + 1]) .. ', charge ' .. tostring(pol.charge) .. '; see the header for the accepted values')
  end
  arg = arg + 3
  local n = 0
  if pol.kind == 'permits' then
    local set = permit_set.open(KEYS[k], ARGV[arg + 2], tonumber(ARGV[arg]), now_ms)
    set.lease = tonumber(ARGV[arg + 1])
    if not set.admits then
      pol.ok = false
      pol.wait = (permit_set.earliest(set.key) - now_ms) * 1000
    end
    pol.permit = set
    arg, k = arg + 3, k + 1
  else
    pol.cost = tonumber(ARGV[arg])
    if pol.kind == 'budget' then
      pol.reserve = tonumber(ARGV[arg + 1])
      arg = arg + 1
    end
    n = tonumber(ARGV[arg + 1])
    arg = arg + 2
  end
  for b = 1, n do
    local interval, units, capacity = tonumber(ARGV[arg]), tonumber(ARGV[arg + 1]), tonumber(ARGV[arg + 2])
    local bucket = { key = KEYS[k], interval = interval, units = units, span = capacity * interval }
    bucket.ahead, bucket.clamped = ahead_of(values[k], units, bucket.span)
    bucket.moved = bucket.ahead + pol.cost * interval
    if pol.charge == 'refund' then bucket.moved = math.max(0, bucket.ahead - pol.cost * interval) end
    arg, k = arg + 3, k + 1
    if pol.cost > capacity then
      pol.ok, pol.never = false, true
    elseif bucket.moved > bucket.span then
      pol.ok = false
      pol.wait = math.max(pol.wait, ceil_div(bucket.moved - bucket.span, units))
    end
    pol.buckets[b] = bucket
  end
  if pol.charge == 'always' or pol.charge == 'refund' then pol.ok, pol.never = true, false end
  if pol.decides then all_ok = all_ok and pol.ok end
  policies[p] = pol
end

-- Whether a policy is charged, by its charge field (see the header).
local function charged(pol)
  if pol.charge == 'if-all-admit' then return all_ok and pol.ok end
  if pol.charge == 'if-it-admits' then return pol.ok end
  return pol.charge == 'always' or pol.charge == 'refund'
end

-- A concurrency policy's reply; takes the permit when told to (charged). A permit the set holds under this request's id
-- already is this request's (taken by an earlier run of the same decision whose reply was lost): granted again
-- with the new lease when charged, returned when not, since a refused request holds no permit.
local function permit_reply(pol, take)
  local set = pol.permit
  if take then
    permit_set.grant(set, set.lease)
  else
    permit_set.withdraw(set)
  end
  local wait, reset = pol.wait, 0
  if set.held > 0 then
    if pol.ok and set.held >= set.permits then wait = (permit_set.earliest(set.key) - now_ms) * 1000 end
    reset = (permit_set.latest(set.key) - now_ms) * 1000
  end
  return { pol.ok and 1 or 0, math.max(0, set.permits - set.held), 0, wait, reset }
end

local reply = {}
for _, pol in ipairs(policies) do
  if pol.permit then
    local r = permit_reply(pol, charged(pol))
    for i = 1, 5 do reply[#reply + 1] = r[i] end
  else
    local remaining, tightest, reset, next_token = nil, 0, 0, 0
    local charge = charged(pol)
    -- A budget's reservation: what every bandwidth holds after the policy's own charge, up to the reserve.
    local reserved = 0
    if pol.reserve and all_ok and pol.ok then reserved = pol.reserve end
    for _, bucket in ipairs(pol.buckets) do
      bucket.after = bucket.ahead
      if charge then
        bucket.after = bucket.moved
        if pol.charge == 'always' and bucket.after > bucket.span then bucket.after = bucket.span end
      end
      if reserved > 0 then reserved = math.min(reserved, floor_div(bucket.span - bucket.after, bucket.interval)) end
    end
    for b, bucket in ipairs(pol.buckets) do
      local ahead = bucket.after + reserved * bucket.interval
      if ahead > 0 and (charge or bucket.clamped or reserved > 0) then
        store(bucket.key, ahead, bucket.units)
      elseif charge then
        redis.call('DEL', bucket.key) -- a refund that left the bucket full
      end
      local left = floor_div(bucket.span - ahead, bucket.interval)
      if remaining == nil or left < remaining then
        remaining, tightest, reset = left, b - 1, ceil_div(ahead, bucket.units)
      end
      next_token = math.max(next_token, ceil_div(math.max(0, ahead + bucket.interval - bucket.span), bucket.units))
    end
    local wait = next_token
    if pol.never then
      wait = -1
    elseif not pol.ok then
      wait = pol.wait
    end
    reply[#reply + 1] = pol.ok and 1 or 0
    reply[#reply + 1] = remaining
    reply[#reply + 1] = tightest
    reply[#reply + 1] = wait
    reply[#reply + 1] = reset
    if pol.kind == 'budget' then reply[#reply + 1] = reserved end
  end
end
return reply
