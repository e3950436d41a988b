-- lock-release.lua: delete a lock only if the caller still owns it, and wake the waiters.
--
-- Comparing the owner token first is what keeps a holder whose lease ran out from deleting the lock of
-- the owner that took it over since.
--
-- KEYS[1]: the lock. ARGV[1]: owner token, ARGV[2]: the release channel (its message is the lock key).
-- Reply: 1 when released, 0 when the caller no longer owned it (nothing was touched).
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return 0
end
redis.call('DEL', KEYS[1])
redis.call('PUBLISH', ARGV[2], KEYS[1])
return 1
