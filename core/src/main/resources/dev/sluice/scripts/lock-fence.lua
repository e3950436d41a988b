-- lock-fence.lua: raise a fencing counter to at least a given token (Redlock only).
--
-- After a Redlock acquisition the client takes the highest token any granting master issued and writes
-- it back to those masters, so that any later quorum, which shares at least one master with this one,
-- issues a higher token.
--
-- KEYS[1]: the fencing counter. ARGV[1]: token, ARGV[2]: how long the counter outlives this call, in ms.
-- Reply: the counter's value afterwards.
local token = math.max(tonumber(redis.call('GET', KEYS[1])) or 0, tonumber(ARGV[1]))
redis.call('SET', KEYS[1], string.format('%.0f', token), 'PX', ARGV[2])
return token
