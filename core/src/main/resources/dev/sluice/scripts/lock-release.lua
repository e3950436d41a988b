-- lock-release.lua: delete a lock only if the caller still owns it, and wake the waiters if it has any.
--
-- Comparing the owner token first is what keeps a holder whose lease ran out from deleting the lock of
-- the owner that took it over since. The release is published only when a refused acquisition marked
-- the lock as awaited (KEYS[2], set by lock-acquire.lua in the same step as the refusal), so an
-- uncontended release costs no message; the mark goes with the lock, and waiters that lose the next
-- round set it again.
--
-- KEYS[1]: the lock, KEYS[2]: its waiters mark.
-- ARGV[1]: owner token, ARGV[2]: the release channel (its message is the lock key).
-- Reply: 1 when released, 0 when the caller no longer owned it (nothing was touched).
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return 0
end
if redis.call('DEL', KEYS[1], KEYS[2]) == 2 then
  redis.call('PUBLISH', ARGV[2], KEYS[1])
end
return 1
