-- lock-extend.lua: reset a lock's lease only if the caller still owns it (the watchdog's renewal).
--
-- KEYS[1]: the lock. ARGV[1]: owner token, ARGV[2]: new lease in ms.
-- Reply: 1 when extended, 0 when the caller no longer owned it (nothing was touched).
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return 0
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
