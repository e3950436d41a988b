-- Test fixture for ScriptExecutor: adds ARGV[1] to the counter at KEYS[1] and returns the new value.
return redis.call('INCRBY', KEYS[1], ARGV[1])
