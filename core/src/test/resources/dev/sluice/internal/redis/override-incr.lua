-- Replacement used by LuaScriptTest: adds twice ARGV[1], so a test can tell it ran instead of the bundled one.
return redis.call('INCRBY', KEYS[1], 2 * tonumber(ARGV[1]))
