-- gcra.lua: decide one or more rate-limit policies atomically, on the Redis clock.
--
-- Each bandwidth is a GCRA bucket stored as one string: its theoretical arrival time (TAT), an integer
-- count of microseconds on the Redis clock at which the bucket is full again. The key expires at that
-- moment, so an idle bucket costs nothing. A request of cost c moves the TAT by c * interval; it conforms
-- when the moved TAT is at most capacity * interval ahead of now. All numbers stay integers below 2^53,
-- so Lua's doubles are exact; replies are integers, so Redis does not truncate them.
--
-- The request is admitted only if every bandwidth of every policy admits it; then all are charged,
-- otherwise none is (a denied request does not eat another policy's quota).
--
-- KEYS: one key per bandwidth, policy after policy.
-- ARGV: policy_count, then per policy: cost, bandwidth_count, then per bandwidth: interval_us, capacity.
-- Reply: per policy five integers: allowed (1/0), remaining, tightest bandwidth index (0-based),
--        wait_us (denied: until this request could be admitted, -1 = never; admitted: until one more
--        token), reset_us (until the tightest bucket is full again).
local function clock()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000000 + tonumber(t[2])
end
local now = clock()

-- The common case, one policy of one bandwidth: the general code below without its tables, same reply.
if ARGV[1] == '1' and ARGV[3] == '1' then
  local cost, interval, capacity = tonumber(ARGV[2]), tonumber(ARGV[4]), tonumber(ARGV[5])
  local tat = tonumber(redis.call('GET', KEYS[1])) or now
  if tat < now then tat = now end
  local span, new_tat = capacity * interval, tat + cost * interval
  local ok, wait, state = true, 0, tat
  if cost > capacity then
    ok, wait = false, -1
  elseif new_tat - now > span then
    ok, wait = false, new_tat - span - now
  else
    state = new_tat
    redis.call('SET', KEYS[1], string.format('%.0f', state), 'PX', math.ceil((state - now) / 1000))
    wait = math.max(0, state + interval - span - now)
  end
  return { ok and 1 or 0, math.floor((span - (state - now)) / interval), 0, wait, state - now }
end

local policies, all_ok = {}, true
local arg, k = 2, 1
for p = 1, tonumber(ARGV[1]) do
  local pol = { cost = tonumber(ARGV[arg]), ok = true, never = false, wait = 0, buckets = {} }
  local n = tonumber(ARGV[arg + 1])
  arg = arg + 2
  for b = 1, n do
    local bucket = { key = KEYS[k], interval = tonumber(ARGV[arg]), capacity = tonumber(ARGV[arg + 1]) }
    arg, k = arg + 2, k + 1
    local tat = tonumber(redis.call('GET', bucket.key)) or now
    if tat < now then tat = now end
    bucket.span = bucket.capacity * bucket.interval
    bucket.tat, bucket.new_tat = tat, tat + pol.cost * bucket.interval
    if pol.cost > bucket.capacity then
      pol.ok, pol.never = false, true
    elseif bucket.new_tat - now > bucket.span then
      pol.ok = false
      pol.wait = math.max(pol.wait, bucket.new_tat - bucket.span - now)
    end
    pol.buckets[b] = bucket
  end
  all_ok = all_ok and pol.ok
  policies[p] = pol
end

local reply = {}
for _, pol in ipairs(policies) do
  local remaining, tightest, reset, next_token
  for b, bucket in ipairs(pol.buckets) do
    local state = all_ok and bucket.new_tat or bucket.tat
    if all_ok then
      redis.call('SET', bucket.key, string.format('%.0f', state), 'PX', math.ceil((state - now) / 1000))
    end
    local left = math.floor((bucket.span - (state - now)) / bucket.interval)
    if remaining == nil or left < remaining then
      remaining, tightest, reset = left, b - 1, state - now
      next_token = state + bucket.interval - bucket.span - now
    end
  end
  local wait
  if pol.never then
    wait = -1
  elseif not pol.ok then
    wait = pol.wait
  else
    wait = math.max(0, next_token)
  end
  reply[#reply + 1] = pol.ok and 1 or 0
  reply[#reply + 1] = remaining
  reply[#reply + 1] = tightest
  reply[#reply + 1] = wait
  reply[#reply + 1] = reset
end
return reply
