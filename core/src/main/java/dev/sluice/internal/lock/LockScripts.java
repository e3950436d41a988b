package dev.sluice.internal.lock;

import dev.sluice.internal.redis.LuaScript;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The Lua scripts of locks and semaphores, bundled or replaced by {@code sluice.script.<name>}. A hand-off is
 * {@code lock-acquire} passed the holder, so that fencing tokens are issued in one script only; a semaphore's
 * hand-over is {@code semaphore-handover}, which leaves {@code semaphore-release} and {@code semaphore-extend} as
 * they are for other users of the permit sets. Immutable.
 */
public record LockScripts(LuaScript lockAcquire, LuaScript lockRelease, LuaScript lockExtend,
                          LuaScript lockFence,
                          LuaScript semaphoreAcquire, LuaScript semaphoreRelease, LuaScript semaphoreExtend,
                          LuaScript semaphoreHandover) {

    /**
     * Loads every script, taking operator replacements from {@code overrides} (script name to location, as in
     * {@code SluiceConfig.scripts()}).
     */
    public static LockScripts load(Map<String, String> overrides) {
        String prefix = LuaScript.configKey("");
        java.util.function.Function<String, Optional<String>> config =
                key -> Optional.ofNullable(overrides.get(key.substring(prefix.length())));
        return new LockScripts(LuaScript.load("lock-acquire", config), LuaScript.load("lock-release", config),
                LuaScript.load("lock-extend", config), LuaScript.load("lock-fence", config),
                LuaScript.load("semaphore-acquire", config), LuaScript.load("semaphore-release", config),
                LuaScript.load("semaphore-extend", config), LuaScript.load("semaphore-handover", config));
    }

    /** Every script, for preloading (which also checks that replacements compile). */
    public List<LuaScript> all() {
        return List.of(lockAcquire, lockRelease, lockExtend, lockFence, semaphoreAcquire, semaphoreRelease,
                semaphoreExtend, semaphoreHandover);
    }
}
